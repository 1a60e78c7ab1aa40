// The CI gate as a CI job runs it (runGate: measure, compare with the history, measure a regression
// again), in a quiet hour and in a busy one (a second process loading every core), and how often an
// unchanged build fails it under load.
//
//   node build.mjs && node benchmarks/gate.mjs [--runs 5] [--duration 1s] [--unchanged 20] [--remeasure 1] [--busy 0.6] [--cpu]
//
// The service is a child process burning a fixed CPU time per request (test/fixtures/cpu-server-process.ts):
// 0.5 ms for the unchanged build, 0.6 ms for the one 20% slower. Each hour has a history of its own and
// five builds, as a main branch and its pull requests make them: builds 1-3 unchanged (stored, as main
// stores them), build 4 20% slower, build 5 unchanged. Then, still under load, `--unchanged` more unchanged
// builds are gated on the busy hour's history. The exit status is the CLI's: 0 passed, 3 regressed.
// `--busy` is the share of each core the loading process keeps busy (its threads spin and sleep in 10 ms turns).
// `--cpu` watches the service's pid (`monitor`) and gates on its CPU per request alone (5%) instead of
// the default margins (requests/s and latency): a figure a busy host moves much less.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { addToHistory, runGate, runLoad } from '../dist/index.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    duration: { type: 'string', default: '1s' },
    unchanged: { type: 'string', default: '20' },
    remeasure: { type: 'string', default: '1' },
    busy: { type: 'string', default: '0.6' },
    cpu: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const remeasure = Number(values.remeasure);
const cores = availableParallelism();

/** A service build: a child process burning `burnMs` of CPU per request. */
async function service(burnMs) {
  const script = fileURLToPath(new URL('../test/fixtures/cpu-server-process.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import=tsx', script, String(burnMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout, 'data');
  const { url, pid } = JSON.parse(line.toString());
  return { url, pid, stop: () => child.stdin.end() };
}

/** The busy hour: one process whose threads keep `share` of every core busy. */
function loadCores(share) {
  const spin = Math.round(10 * share);
  const thread = `const wait = new Int32Array(new SharedArrayBuffer(4)); for (;;) { const t = Date.now(); while (Date.now() - t < ${spin}); Atomics.wait(wait, 0, 0, ${10 - spin}); }`;
  const main = `const { Worker } = require('node:worker_threads'); for (let i = 0; i < ${cores}; i++) new Worker(${JSON.stringify(thread)}, { eval: true });`;
  const child = spawn(process.execPath, ['-e', main], { stdio: 'ignore' });
  return () => child.kill('SIGKILL');
}

/** One build's runs: a closed loop on 4 connections, as a CI job repeats its load test. */
const measureOf = ({ url, pid }) => async () => {
  const results = [];
  const monitor = values.cpu ? { monitor: { processes: [pid] } } : {};
  for (let run = 0; run < runs; run++) results.push(await runLoad({ url, connections: 4, duration: values.duration, warmup: '250ms', ...monitor }));
  return results;
};
const margins = values.cpu ? { margins: { 'server.cpuPerRequestMs': '5%' } } : {};

/** Gates one build on `dir`'s history; stores it when `store` (a main-branch build). */
async function build(dir, service, store, label) {
  const started = Date.now();
  const gate = await runGate(dir, 'api', measureOf(service), { remeasure, ...margins });
  const first = gate.comparison.remeasured !== undefined ? 3 : gate.comparison.ok ? 0 : 3;
  const status = !gate.results.every((result) => result.ok) ? 1 : gate.comparison.ok ? 0 : 3;
  if (store) await addToHistory(dir, 'api', gate.results, { baseline: status === 0, env: {}, label });
  const rps = gate.results.reduce((sum, result) => sum + result.requests.perSecond, 0) / gate.results.length;
  const worst = gate.comparison.metrics.reduce((low, metric) => (metric.improvement < low.improvement ? metric : low), { improvement: Infinity, message: 'no comparison' });
  return { label, status, first, measurements: gate.measurements, rps, worst: worst.message, noBaseline: gate.comparison.noBaseline?.code, seconds: (Date.now() - started) / 1000 };
}

function print(rows) {
  for (const row of rows) {
    const note = row.noBaseline ?? row.worst;
    console.log(`  ${row.label.padEnd(22)} exit ${row.status}  (first measurement ${row.first}, measured ${row.measurements}x)  ${row.rps.toFixed(0).padStart(5)} req/s  ${(row.seconds).toFixed(0)} s  ${note}`);
  }
}

async function hour(name, unchanged, slower) {
  const dir = mkdtempSync(join(tmpdir(), `salvo-gate-${name}-`));
  try {
    const rows = [];
    for (let n = 1; n <= 3; n++) rows.push(await build(dir, unchanged, true, `build ${n} (main)`));
    rows.push(await build(dir, slower, false, 'build 4 (20% slower)'));
    rows.push(await build(dir, unchanged, false, 'build 5 (unchanged)'));
    console.log(`${name} hour (load average ${loadavg()[0].toFixed(1)} on ${cores} cores):`);
    print(rows);
    return dir;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

const unchanged = await service(0.5);
const slower = await service(0.6);
let stopLoad;
const dirs = [];
try {
  dirs.push(await hour('quiet', unchanged, slower));
  stopLoad = loadCores(Number(values.busy));
  const busyDir = await hour('busy', unchanged, slower);
  dirs.push(busyDir);
  const rows = [];
  for (let n = 1; n <= Number(values.unchanged); n++) rows.push(await build(busyDir, unchanged, false, `unchanged ${n}`));
  console.log(`${values.unchanged} unchanged builds under load (load average ${loadavg()[0].toFixed(1)}):`);
  print(rows);
  const firstAlarms = rows.filter((row) => row.first !== 0).length;
  const alarms = rows.filter((row) => row.status !== 0).length;
  console.log(`false alarms: ${alarms} of ${rows.length} with remeasure ${remeasure}; ${firstAlarms} of ${rows.length} on the first measurement (what remeasure 0 would have failed)`);
} finally {
  stopLoad?.();
  unchanged.stop();
  slower.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
