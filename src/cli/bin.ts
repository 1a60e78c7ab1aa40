// The `salvo` executable (package.json "bin"): built to dist/cli.js, which imports the library from
// ./index.js rather than bundling a second copy.
import { runCli } from './commands.js';

process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
