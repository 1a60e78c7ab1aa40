// Runs every example, as CI does (`npm run examples` at the root, after `npm run build`): installs
// mocha and jest into their own folders (salvo itself is linked from this checkout), then runs each
// example and exits non-zero when any fails. `npm install`, not `npm ci`: jest's resolver lists
// platform bindings that npm leaves out of a lock file when the registry lacks them, and `npm ci`
// then rejects that lock file (npm/cli#9846).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const steps = [
  ['basic', 'node', ['basic.mjs'], here('.')],
  ['coordinated omission', 'node', ['coordinated-omission.mjs'], here('.')],
  ['capacity search', 'node', ['capacity.mjs'], here('.')],
  ['load any function: a task module over 2 workers', 'node', ['task.mjs'], here('.')],
  ['an OpenAI-compatible streaming endpoint: TTFT threshold and capacity at a TTFT objective', 'node', ['llm-streaming.mjs'], here('.')],
  ['an LLM serving benchmark: a ShareGPT sample, goodput at SLOs, vLLM JSON', 'node', ['serving.mjs'], here('llm')],
  ['a server CPU budget per request (monitor)', 'node', ['server-cpu-budget.mjs'], here('.')],
  ['websocket broadcast, clients ramping in steps', 'node', ['websocket-broadcast.mjs'], here('.')],
  ['socket.io broadcast, clients ramping in steps', 'node', ['socketio-broadcast.mjs'], here('.')],
  ['cli', 'node', ['cli.mjs', '--duration', '2s', '--connections', '4'], here('.')],
  ['cli, 2 workers', 'node', ['cli.mjs', '--duration', '2s', '--connections', '4', '--workers', '2', '--transport', 'undici'], here('.')],
  ['node:test', 'node', ['--test', 'node-test/load.test.mjs'], here('.')],
  ['regression against a stored baseline', 'node', ['--test', 'regression/regression.test.mjs'], here('.')],
  ['node:test gate against a baseline history', 'node', ['--test', 'node-test/gate.test.mjs'], here('.')],
  ['the CI gate job (github-workflow.yml, gitlab-ci.yml) on this machine', 'node', ['local.mjs'], here('ci-gate')],
  ['kubernetes recipe, 3 segment processes on this machine', 'node', ['local.mjs', '--segments', '3'], here('kubernetes/segments')],
  ['mocha: install', npm, ['install', '--no-audit', '--no-fund'], here('mocha')],
  ['mocha', npm, ['test'], here('mocha')],
  ['jest: install', npm, ['install', '--no-audit', '--no-fund'], here('jest')],
  ['jest', npm, ['test'], here('jest')],
];

const failed = [];
for (const [name, command, args, cwd] of steps) {
  console.log(`\n=== example: ${name} (${[command, ...args].join(' ')})`);
  const { status } = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (status !== 0) failed.push(`${name} (exit ${status})`);
}
console.log(failed.length === 0 ? '\nall examples passed' : `\nfailed: ${failed.join(', ')}`);
process.exitCode = failed.length === 0 ? 0 : 1;
