// What request names cost: net, 100 connections against nginx (one worker, /2b), a single request
// and a sequence of 10 requests, each from this build (every step a name of its own, recorded by its
// own recorder) and from an earlier build (`--before`, e.g. main's before names: the same steps
// unnamed, one recording).
//
//   node names.mjs --before /path/to/before/dist/index.js [--after /path/to/dist/index.js]
//                  [--rounds 5] [--duration 5] [--connections 100]
//
// Pinned like bench.mjs (target core 1, generator core 0), the four contenders alternating within a
// round, a 1 s in-process warm-up. Prints one JSON line per run and the medians with same-round ratios.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findExecutable, planPinning, runBounded, wrapCommand, parseBashTimes } from './lib/system.mjs';
import { startNginx } from './lib/targets.mjs';
import { median } from './lib/summary.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '100' },
    before: { type: 'string' },
    after: { type: 'string' },
  },
});
if (values.before === undefined) throw new Error('names.mjs needs --before <dist/index.js of the build to compare with>');
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const pinning = planPinning();
const durationS = Number(values.duration);
const connections = Number(values.connections);
const STEPS = 10;
const steps = (named) => Array.from({ length: STEPS }, (_, i) => ({ ...(named ? { name: `step ${i}` } : {}), path: `/2b?step=${i}` }));

const contenders = [];
for (const [build, dist] of [['before', values.before], ['after', values.after ?? here('../dist/index.js')]]) {
  contenders.push({ name: `single (${build})`, dist, options: {} });
  contenders.push({ name: `10 steps (${build})`, dist, options: { requests: steps(build === 'after') } });
}

const nginx = findExecutable('nginx');
if (!nginx) throw new Error('names.mjs needs nginx');
const target = await startNginx(nginx, pinning);
const rows = [];
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const contender of contenders) {
      const spec = { url: `${target.baseUrl}/2b`, connections, durationS, warmupS: 1, pipelining: 1, keepAlive: true, transport: 'net', dist: contender.dist, options: contender.options };
      const argv = wrapCommand([process.execPath, here('./runners/salvo.mjs'), JSON.stringify(spec)], { taskset: pinning.taskset, cpu: pinning.generator, reportCpu: true });
      const result = await runBounded(argv, { timeoutMs: (durationS + 30) * 1000 });
      const [out, times] = result.stdout.split('--- times');
      const line = JSON.parse(out.trim().split('\n').at(-1));
      const row = { round, contender: contender.name, perSecond: line.completed / (line.durationMs / 1000), errors: line.errors, cpuUsPerReq: (parseBashTimes(times ?? '') * 1000) / line.completed };
      rows.push(row);
      process.stdout.write(`${JSON.stringify(row)}\n`);
    }
  }
} finally {
  await target.stop();
}

const of = (name) => rows.filter((row) => row.contender === name);
for (const workload of ['single', '10 steps']) {
  const before = of(`${workload} (before)`);
  const after = of(`${workload} (after)`);
  const ratios = after.map((row) => row.perSecond / before.find((other) => other.round === row.round).perSecond);
  console.log(
    `${workload}: before ${median(before.map((r) => r.perSecond)).toFixed(0)} req/s (${Math.min(...before.map((r) => r.perSecond)).toFixed(0)}-${Math.max(...before.map((r) => r.perSecond)).toFixed(0)}), ` +
      `after ${median(after.map((r) => r.perSecond)).toFixed(0)} req/s (${Math.min(...after.map((r) => r.perSecond)).toFixed(0)}-${Math.max(...after.map((r) => r.perSecond)).toFixed(0)}); ` +
      `after/before same round: median ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}); ` +
      `CPU µs/req ${median(before.map((r) => r.cpuUsPerReq)).toFixed(2)} -> ${median(after.map((r) => r.cpuUsPerReq)).toFixed(2)}`,
  );
}
