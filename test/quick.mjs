// `npm test`, the quick loop: the fast module tests, the documentation's checks and one run of each
// transport and protocol (smoke.test.ts), a few minutes on a busy 2-core machine. `npm run test:all`
// runs every test file (tap's own include, package.json), as CI does on each Node version. A file
// here is still run by test:all; a new test file goes here only if it takes a few seconds at most.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const QUICK = [
  // module tests: parsers, encoders, statistics, options and their errors, formatting, the engine
  // and the runner over fakes
  'capacity-format', 'capacity-judge', 'checks', 'cli-errors', 'cli-progress', 'compare-statistics',
  'agents', 'engine', 'errors', 'format', 'h2-frames', 'hpack', 'http1-parser', 'http1-request', 'lifecycle',
  'merge', 'histogram', 'options', 'outputs-options', 'outputs-remote-write', 'pacer', 'requests', 'schedule',
  'json-body', 'option-table', 'run-kind', 'arrival-schedule', 'knee', 'segment', 'shard', 'socketio-packet', 'source-size', 't-test',
  'threshold-windows', 'thresholds', 'warnings', 'websocket-opening', 'websocket-options', 'steered-stages', 'run-steering', 'session-state',
  'form-body', 'llm', 'journeys', 'har', 'live-server',
  // the documentation: its code blocks and links, and every error and warning code
  'docs', 'error-codes',
  // each transport and protocol once, the pacer, worker threads and the built command
  'smoke',
];

const root = fileURLToPath(new URL('..', import.meta.url));
// Test files live in test/unit/ (modules over fakes) and test/e2e/ (real servers and processes);
// the quick list names them without their folder.
const FOLDERS = ['unit', 'e2e'];
const all = FOLDERS.flatMap((folder) =>
  readdirSync(new URL(`${folder}/`, import.meta.url))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `test/${folder}/${name}`),
).sort();
const named = (name) => all.filter((file) => file.endsWith(`/${name}.test.ts`));
const missing = QUICK.filter((name) => named(name).length !== 1);
if (missing.length > 0) {
  console.error(`test/quick.mjs lists test files that are not in exactly one of test/${FOLDERS.join('/, test/')}/: ${missing.join(', ')}`);
  process.exit(1);
}
const quickFiles = QUICK.flatMap(named);
// `--others`: every other test file, for CI, which runs the quick list once (as `npm test`) and then these.
const others = process.argv[2] === '--others';
const files = others ? all.filter((file) => !quickFiles.includes(file)) : quickFiles;
const tap = spawnSync(`${root}node_modules/.bin/tap`, [...files, ...process.argv.slice(others ? 3 : 2)], { cwd: root, stdio: 'inherit' });
process.exit(tap.status ?? 1);
