// The `salvo` executable (package.json "bin"): built to dist/cli.js, which imports the library from
// ./index.js rather than bundling a second copy.
import { runCli } from './commands.js';

process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
// Once the command has answered, what the user's code left open (a task's setup that never
// finished, a client a teardown did not close) must not hold it: it exits a second later at most.
setTimeout(() => process.exit(), 1000).unref();
