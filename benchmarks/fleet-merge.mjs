// What a coordinator spends merging one second of a fleet: each agent's second arrives as JSON
// (the SecondSummary and RunningTotals its worker threads' ProgressMerger made: encoded HDR
// histograms for the whole second and for each request name, counts, status and error codes), and
// the coordinator parses them and merges them with the same ProgressMerger, agents for threads,
// which emits the merged second (every histogram added, then encoded again for the outputs).
//
//   taskset -c 0 node benchmarks/fleet-merge.mjs [--agents 16] [--names 100] [--rates 2500,20000]
//                                                [--seconds 300] [--rounds 3]
//
// `--rates` are requests per second per agent, spread over the names (a wide log-normal around
// 5 ms: wider distributions encode larger). The merger is bundled from src/ with esbuild (it is not
// an export of dist/; dist bundles this same file). Per merged second: the process's CPU time
// (garbage collection included) from the first agent's message to the emitted second, and the wall
// time JSON.parse took of it; medians over `--seconds` seconds (after 20 of warm-up) per round, then
// over rounds. The share of one core is that CPU time per 1,000 ms. Wall time is printed too, but on
// a busy host it counts the time others held the core.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { median } from './lib/summary.mjs';

const { values } = parseArgs({
  options: {
    agents: { type: 'string', default: '16' },
    names: { type: 'string', default: '100' },
    rates: { type: 'string', default: '2500,20000' },
    seconds: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
    distinct: { type: 'string', default: '10' },
  },
});
const agents = Number(values.agents);
const names = Number(values.names);
const measuredSeconds = Number(values.seconds);
const rounds = Number(values.rounds);
/** Distinct seconds made per agent, cycled through: making them is slower than merging them. */
const distinct = Number(values.distinct);
const WARMUP_SECONDS = 20;

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'salvo-fleet-merge-'));
const bundle = join(dir, 'merger.mjs');
await build({
  stdin: {
    contents: "export { ProgressMerger } from './src/workers/progress.ts';\nexport { createHistogram, encodeHistogram } from './src/stats/histogram.ts';\n",
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: bundle,
  logLevel: 'warning',
});
const { ProgressMerger, createHistogram, encodeHistogram } = await import(bundle);
await rm(dir, { recursive: true, force: true });

let seed = 7;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
/** Log-normal around 5 ms, in µs: most under 20 ms, a tail to a few hundred. */
const latencyUs = () => Math.max(1, Math.round(5000 * Math.exp(0.9 * Math.sqrt(-2 * Math.log(random())) * Math.cos(2 * Math.PI * random()))));
const NAMES = Array.from({ length: names }, (_, i) => `GET /api/item/${i}`);

/** One agent's message for one second, as JSON: what travels from agent to coordinator. */
function agentSecond(second, perSecond, sentSoFar) {
  const total = createHistogram();
  const byName = {};
  let errors = 0;
  for (const [index, name] of NAMES.entries()) {
    // An uneven spread over the names, as real traffic has: some hot, most cool.
    const count = Math.max(1, Math.round(((perSecond / names) * 2 * (names - index)) / (names + 1)));
    const histogram = createHistogram();
    for (let i = 0; i < count; i++) histogram.recordValue(latencyUs());
    const failed = random() < 0.05 ? 1 : 0;
    errors += failed;
    byName[name] = { sent: count, completed: count - failed, errors: failed, histogram: encodeHistogram(histogram) };
    total.add(histogram);
    histogram.destroy();
  }
  const completed = total.totalCount;
  const at = (p) => total.getValueAtPercentile(p) / 1000;
  const summary = {
    second,
    sent: completed,
    completed: completed - errors,
    errors,
    retried: 0,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    connections: 100,
    targetRate: perSecond,
    cpuPercent: 60,
    eventLoopUtilization: 0.6,
    histogram: encodeHistogram(total),
    byName,
  };
  total.destroy();
  const sent = sentSoFar + completed;
  const totals = {
    sent,
    completed: sent - second,
    errors: second,
    retried: 0,
    failed: Math.round(sent * 0.002) + second,
    statusCodes: { 200: Math.round(sent * 0.99) - second, 201: Math.round(sent * 0.008), 404: Math.round(sent * 0.001), 503: Math.round(sent * 0.001) },
    errorsByCode: { TIMEOUT: Math.floor(second / 2), ECONNRESET: Math.ceil(second / 2) },
  };
  return JSON.stringify({ summary, totals });
}

function measure(perSecond) {
  // messages[agent][k]: the agent's k-th distinct second; the `second` field is set as it is sent.
  const messages = Array.from({ length: agents }, () =>
    Array.from({ length: distinct }, (_, k) => agentSecond(0, perSecond, k * perSecond)),
  );
  const bytes = median(messages.flat().map((text) => Buffer.byteLength(text)));
  const perRound = [];
  for (let round = 0; round < rounds; round++) {
    const times = { cpu: [], wall: [], parse: [] };
    let emitted = 0;
    const merger = new ProgressMerger(agents, () => emitted++);
    for (let second = 0; second < WARMUP_SECONDS + measuredSeconds; second++) {
      let parse = 0;
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      for (let agent = 0; agent < agents; agent++) {
        const text = messages[agent][(second + agent) % distinct];
        const parseStart = performance.now();
        const { summary, totals } = JSON.parse(text);
        parse += performance.now() - parseStart;
        // The last agent's add emits the merged second (its histograms added, then encoded).
        merger.add(agent, { ...summary, second }, totals);
      }
      const wall = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      if (emitted !== second + 1) throw new Error(`second ${second} was not emitted after every agent's part`);
      if (second < WARMUP_SECONDS) continue;
      times.cpu.push((cpu.user + cpu.system) / 1000);
      times.wall.push(wall);
      times.parse.push(parse);
    }
    const sorted = [...times.cpu].sort((a, b) => a - b);
    perRound.push({
      cpuMs: median(times.cpu),
      cpuP90Ms: sorted[Math.floor(sorted.length * 0.9)],
      cpuMaxMs: sorted.at(-1),
      wallMs: median(times.wall),
      parseMs: median(times.parse),
    });
  }
  return { perSecond, bytes, perRound };
}

const affinity = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
console.log(`${agents} agents x ${names} names, ${measuredSeconds} seconds a round, ${rounds} rounds; CPUs allowed: ${affinity}; load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (const rate of values.rates.split(',').map(Number)) {
  const { perSecond, bytes, perRound } = measure(rate);
  const mid = (key) => median(perRound.map((r) => r[key]));
  const range = (key) => `[${Math.min(...perRound.map((r) => r[key])).toFixed(1)}-${Math.max(...perRound.map((r) => r[key])).toFixed(1)}]`;
  console.log(JSON.stringify({ perAgentPerSecond: perSecond, fleetPerSecond: perSecond * agents, messageBytes: bytes, rounds: perRound }));
  console.log(
    `${perSecond}/s per agent (${perSecond * agents}/s fleet), ${(bytes / 1024).toFixed(1)} KiB per agent message: ` +
      `CPU per merged second ${mid('cpuMs').toFixed(1)} ms ${range('cpuMs')} median over rounds (p90 ${mid('cpuP90Ms').toFixed(1)}, max ${mid('cpuMaxMs').toFixed(1)}) ` +
      `= ${(mid('cpuMs') / 10).toFixed(1)}% of one core; JSON.parse ${mid('parseMs').toFixed(1)} ms of it; wall ${mid('wallMs').toFixed(1)} ms ${range('wallMs')}`,
  );
}
console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
