// salvo in this thread (workers: 1) against salvo on worker threads (workers: 2 ...), same target,
// alternating rounds, medians. Usage (after `npm run build` at the repository root):
//   node benchmarks/workers.mjs [--rounds 5] [--seconds 3] [--connections 64] [--rate 5000] [--max-workers 2]
// The target is nginx with one worker when installed, else salvo's test server, in its own process
// pinned to core 1. The load generator is left unpinned: worker threads exist to use more cores.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { median } from './lib/summary.mjs';
import { describeMachine, findExecutable, planPinning } from './lib/system.mjs';
import { startNginx, startTestServer } from './lib/targets.mjs';

const SALVO_DIST = new URL('../dist/index.js', import.meta.url);
if (!existsSync(SALVO_DIST)) throw new Error('dist/index.js is not built (npm run build at the repository root)');
const { runLoad } = await import(SALVO_DIST.href);

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    rate: { type: 'string', default: '5000' },
    'max-workers': { type: 'string', default: '2' },
  },
});
const rounds = Number(args.rounds);
const durationMs = Number(args.seconds) * 1000;
const connections = Number(args.connections);
const rate = Number(args.rate);
const workerCounts = Array.from({ length: Number(args['max-workers']) }, (_, index) => index + 1);

/** One measured run: wall time around runLoad, and CPU time of this process (every thread). */
async function measure(options) {
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  const result = await runLoad(options);
  const wallMs = performance.now() - startedAt;
  const cpu = process.cpuUsage(cpuBefore);
  return { result, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

const scenarios = {
  /** Thread start, module load, connect and barrier: what a run pays before its first request. */
  startup: async (url, workers) => {
    const { wallMs } = await measure({ url, connections: workers, workers, amount: workers });
    return { 'start ms': wallMs };
  },
  /** Closed loop: as fast as the target answers. */
  throughput: async (url, workers) => {
    const { result, cpuMs } = await measure({ url, connections, workers, duration: durationMs });
    return {
      'req/s': result.requests.perSecond,
      'p50 ms': result.latency.p50,
      'p99 ms': result.latency.p99,
      'CPU µs/req': (cpuMs * 1000) / Math.max(1, result.requests.completed),
    };
  },
  /** Open loop at a fixed rate: do the shards add up to the rate, and what do threads add to latency? */
  paced: async (url, workers) => {
    const { result } = await measure({ url, connections, workers, rate, duration: durationMs });
    return {
      'sent/s': result.requests.sent / (result.durationMs / 1000),
      'p50 ms': result.latency.p50,
      'p99 ms': result.latency.p99,
      missed: result.requests.missed,
    };
  },
};

const pinning = planPinning();
const nginx = findExecutable('nginx');
const target = nginx ? await startNginx(nginx, pinning) : await startTestServer({}, pinning);
const url = `${target.baseUrl}${nginx ? '/2b' : '/'}`;
const machine = describeMachine();
console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);
console.log(`target: ${target.name}${pinning.target === undefined ? ' (unpinned)' : ` pinned to core ${pinning.target}`}; generator unpinned`);
console.log(`${rounds} alternating rounds of ${durationMs / 1000} s, ${connections} connections, paced at ${rate}/s\n`);

try {
  for (const [name, run] of Object.entries(scenarios)) {
    const samples = new Map(workerCounts.map((workers) => [workers, []]));
    for (let round = 0; round < rounds; round++) {
      // Alternate the order so that neither configuration always runs on a warmer machine.
      const order = round % 2 === 0 ? workerCounts : [...workerCounts].reverse();
      for (const workers of order) samples.get(workers).push(await run(url, workers));
    }
    const metrics = Object.keys(samples.get(workerCounts[0])[0]);
    const rows = workerCounts.map((workers) => {
      const row = { config: workers === 1 ? 'workers: 1 (this thread)' : `workers: ${workers} (threads)` };
      for (const metric of metrics) {
        const value = median(samples.get(workers).map((sample) => sample[metric]));
        row[metric] = value === undefined ? '-' : Number(value.toPrecision(4));
      }
      return row;
    });
    console.log(`${name} (median of ${rounds})`);
    console.table(rows);
  }
} finally {
  await target.stop();
}
