// The load generator's CPU and throughput with and without a live page (issue 52): a closed loop
// of 100 connections and a 20,000/s rate, each run three ways: no `live`; `live` with no page open;
// `live` with one page open (a server-sent-events client in another process, reading every event,
// started once before the runs).
// CPU ms/s is this process's CPU per second of measured run (1000 = one core busy).
// Usage (after `npm run build` at the repository root):
//   node benchmarks/live.mjs [--rounds 5] [--seconds 5]
// The target (salvo's test server) and the page's reader run in their own processes pinned to
// core 1, and this process (salvo) to core 0, when taskset is there. Rounds alternate the three.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { median } from './lib/summary.mjs';
import { describeMachine, planPinning, wrapCommand } from './lib/system.mjs';
import { startTestServer } from './lib/targets.mjs';

const SALVO_DIST = new URL('../dist/index.js', import.meta.url);
if (!existsSync(SALVO_DIST)) throw new Error('dist/index.js is not built (npm run build at the repository root)');
const { runLoad } = await import(SALVO_DIST.href);

const { values: args } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, seconds: { type: 'string', default: '5' } },
});
const rounds = Number(args.rounds);
const durationMs = Number(args.seconds) * 1000;

/**
 * The page's reader, one process for the whole benchmark (so that no process starts during a run):
 * for each url on its stdin it reads the events until the stream ends and prints the bytes.
 */
const READER = `
const http = require('node:http');
require('node:readline').createInterface({ input: process.stdin }).on('line', (url) => {
  http.get(url + 'events', (res) => {
    let bytes = 0, events = 0;
    res.on('data', (chunk) => { bytes += chunk.length; events += chunk.toString().split('\\n\\n').length - 1; });
    res.on('end', () => console.log(JSON.stringify({ bytes, events })));
  }).on('error', (e) => console.log(JSON.stringify({ error: e.message })));
});
`;

function startReader(pinning) {
  const argv = wrapCommand([process.execPath, '-e', READER], { taskset: pinning.taskset, cpu: pinning.target });
  const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = [];
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    for (let end; (end = buffered.indexOf('\n')) >= 0; buffered = buffered.slice(end + 1)) waiting.shift()?.(JSON.parse(buffered.slice(0, end)));
  });
  return {
    open(url) {
      child.stdin.write(`${url}\n`);
      return new Promise((resolve) => waiting.push(resolve));
    },
    stop: () => child.kill(),
  };
}

/** One run: responses/s and this process's CPU; with `page`, a reader opened as the page listens. */
async function measure(options, live, reader) {
  let reading;
  const cpuBefore = process.cpuUsage();
  const result = await runLoad(
    live === undefined
      ? options
      : { ...options, live: { onLive: ({ url }) => void (reading = live === 'page' ? reader.open(url) : undefined) } },
  );
  const cpu = process.cpuUsage(cpuBefore);
  const page = await reading;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    'req/s': result.requests.perSecond,
    'CPU µs/req': (cpuMs * 1000) / Math.max(1, result.requests.completed),
    'CPU ms/s': cpuMs / (result.durationMs / 1000),
    page,
  };
}

const pinning = planPinning();
const machine = describeMachine();
const server = await startTestServer({}, pinning);
const reader = startReader(pinning);
if (pinning.taskset) execFileSync(pinning.taskset, ['-a', '-p', '-c', pinning.generator, String(process.pid)], { stdio: 'ignore' });
const scenarios = {
  'closed loop, 100 connections': { url: `${server.baseUrl}/`, connections: 100, duration: durationMs },
  'rate 20,000/s, 100 connections': { url: `${server.baseUrl}/`, connections: 100, rate: 20_000, duration: durationMs },
};
const contenders = { without: undefined, 'live, no page': 'none', 'live, page open': 'page' };
console.log(`${machine.cpu}, ${machine.cores} cores, node ${machine.node}, ${pinning.taskset ? 'salvo on core 0, target and page reader on core 1' : 'unpinned'}; load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
try {
  for (const [name, options] of Object.entries(scenarios)) {
    const runs = Object.fromEntries(Object.keys(contenders).map((key) => [key, []]));
    await runLoad({ ...options, duration: 1000 }); // warm-up, discarded
    for (let round = 0; round < rounds; round++)
      for (const [contender, live] of Object.entries(contenders)) runs[contender].push(await measure(options, live, reader));
    console.log(`\n${name} (${args.seconds} s, ${rounds} rounds, medians [min-max])`);
    for (const [contender, list] of Object.entries(runs)) {
      const cells = ['req/s', 'CPU µs/req', 'CPU ms/s'].map((key) => {
        const values = list.map((run) => run[key]);
        const digits = key === 'req/s' ? 0 : 1;
        return `${key} ${median(values).toFixed(digits)} [${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}]`;
      });
      const pages = list.map((run) => run.page).filter(Boolean);
      const page = pages.length === 0 ? '' : `  page got ${median(pages.map((p) => p.events))} events, ${median(pages.map((p) => p.bytes))} B`;
      console.log(`  ${contender.padEnd(16)} ${cells.join('  ')}${page}`);
    }
  }
} finally {
  reader.stop();
  await server.stop();
  console.log(`\nload average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}
