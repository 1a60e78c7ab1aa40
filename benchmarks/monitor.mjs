// What `monitor` costs the load generator, and why it exists: the spread of server.cpuPerRequestMs
// against the spread of requests/s over repeated runs on a noisy host.
//
//   npm run build && node --import=tsx benchmarks/monitor.mjs [--rounds 3] [--duration 3000] [--repeats 8]
//
// The server (a child process burning 0.2 ms of CPU per request) is pinned to core 1 and salvo to
// core 0 when taskset and 2+ cores exist. Part 1 alternates the variants (no monitor, a pid,
// a pid and node_exporter) round by round, at a rate and in a closed loop, and reports salvo's own
// process CPU (process.cpuUsage around runLoad) as medians. Part 2 repeats one closed-loop run and
// reports each figure's coefficient of variation (stddev / mean).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad } from '../dist/index.js';
import { ServerMonitor } from '../src/monitor/monitor.ts';
import { median } from './lib/summary.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, duration: { type: 'string', default: '3000' }, repeats: { type: 'string', default: '8' } } });
const rounds = Number(values.rounds);
const durationMs = Number(values.duration);
const repeats = Number(values.repeats);
const pin = availableParallelism() >= 2 && existsSync('/usr/bin/taskset');
if (pin) execFileSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });

const script = fileURLToPath(new URL('../test/fixtures/cpu-server-process.ts', import.meta.url));
const command = [process.execPath, '--import=tsx', script, '0.2'];
const child = pin ? spawn('taskset', ['-c', '1', ...command], { stdio: ['pipe', 'pipe', 'inherit'] }) : spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
const [line] = await once(child.stdout, 'data');
const { url, pid } = JSON.parse(line.toString());

let exporter;
let metricsUrl;
if (existsSync('/usr/bin/prometheus-node-exporter')) {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address();
  probe.close();
  exporter = spawn('/usr/bin/prometheus-node-exporter', [`--web.listen-address=127.0.0.1:${port}`, '--collector.disable-defaults', '--collector.cpu', '--collector.meminfo', '--collector.netdev'], { stdio: 'ignore' });
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  await new Promise((resolve) => setTimeout(resolve, 500));
}

const variants = [
  ['no monitor', undefined],
  ['pid', { processes: [pid] }],
  ...(metricsUrl === undefined ? [] : [['pid + node_exporter', { processes: [pid], prometheus: [metricsUrl] }]]),
];
const scenarios = [
  ['rate 1000/s, 20 connections', { rate: 1000, connections: 20 }],
  ['closed loop, 10 connections', { connections: 10 }],
];

async function measured(options) {
  const before = process.cpuUsage();
  const result = await runLoad({ url, duration: durationMs, ...options });
  const { user, system } = process.cpuUsage(before);
  return { result, cpuMs: (user + system) / 1000 };
}

console.log(`host: ${execFileSync('uptime').toString().trim()}; pinned: ${pin}`);

// Part 0: the monitor alone, against an idle process of the same length: its CPU per second is what
// it adds to the generator's process whatever the load (run with --import=tsx for the source import).
const idleCpu = async (monitor) => {
  const before = process.cpuUsage();
  monitor?.start(Date.now() + 10, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 10_050));
  await monitor?.finish([]);
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000 / 10;
};
console.log('\n| monitor alone, 10 s | CPU, ms per s (median of 3, idle baseline subtracted) |');
console.log('|---|---|');
for (const [name, monitor] of variants.slice(1)) {
  const costs = [];
  for (let i = 0; i < 3; i++) costs.push((await idleCpu(new ServerMonitor({ processes: monitor.processes, prometheus: (monitor.prometheus ?? []).map((url) => ({ url, devices: undefined })) }))) - (await idleCpu(undefined)));
  console.log(`| ${name} | ${median(costs).toFixed(2)} |`);
}
console.log('\n| scenario | monitor | salvo CPU, ms per s (median) | salvo CPU, µs per request | req/s |');
console.log('|---|---|---|---|---|');
for (const [scenario, options] of scenarios) {
  const rows = new Map(variants.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, monitor] of variants) {
      const { result, cpuMs } = await measured({ ...options, ...(monitor === undefined ? {} : { monitor }) });
      rows.get(name).push({ cpuPerSecond: cpuMs / (result.durationMs / 1000), cpuPerRequestUs: (cpuMs * 1000) / result.requests.completed, perSecond: result.requests.perSecond });
    }
  }
  for (const [name, runs] of rows) {
    const m = (key) => median(runs.map((run) => run[key]));
    console.log(`| ${scenario} | ${name} | ${m('cpuPerSecond').toFixed(1)} | ${m('cpuPerRequestUs').toFixed(1)} | ${m('perSecond').toFixed(0)} |`);
  }
}

const perSecond = [];
const cpuPerRequest = [];
for (let i = 0; i < repeats; i++) {
  const { result } = await measured({ connections: 10, monitor: { processes: [pid] } });
  perSecond.push(result.requests.perSecond);
  cpuPerRequest.push(result.server.cpuPerRequestMs);
}
const cv = (list) => {
  const mean = list.reduce((a, b) => a + b, 0) / list.length;
  return Math.sqrt(list.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (list.length - 1)) / mean;
};
const range = (list, digits) => `${Math.min(...list).toFixed(digits)}-${Math.max(...list).toFixed(digits)}`;
console.log(`\n${repeats} closed-loop runs of ${durationMs} ms against a server burning 0.2 ms per request:`);
console.log('| figure | range | coefficient of variation |');
console.log('|---|---|---|');
console.log(`| requests.perSecond | ${range(perSecond, 0)} | ${(cv(perSecond) * 100).toFixed(1)}% |`);
console.log(`| server.cpuPerRequestMs | ${range(cpuPerRequest, 3)} | ${(cv(cpuPerRequest) * 100).toFixed(1)}% |`);
console.log(`host after: ${execFileSync('uptime').toString().trim()}`);
child.stdin.end();
exporter?.kill();
