// Open-loop rate accuracy and coordinated omission, measured at the server (issue 4).
//
//   npm run build            # at the repository root: this imports ../dist/index.js
//   cd benchmarks && npm install
//   node rate.mjs [--rates 1000,10000,50000] [--duration 3] [--rounds 3] [--connections 50] [--skip-stall]
//   node rate.mjs --pacing [--rates 200,1000,5000,20000] [--dist ../dist[,/other/dist]] [--duration 4] [--rounds 3]
//
// 1. Rate accuracy: salvo at each target rate; the server (a minimal responder in its own process)
//    timestamps every arrival with performance.now() and reports the achieved rate and the spread of the gaps between
//    arrivals. With `taskset` and two or more cores the load generator runs on core 0 and the server
//    on core 1. Each run is a fresh process; rounds alternate the rates; tables show the median over
//    rounds and the min–max range.
// 2. Coordinated omission: 1000/s for 3 s, 10 connections, the server stalls for 500 ms one second
//    after the first request; salvo's corrected and uncorrected latency next to autocannon with
//    `overallRate` (its latency is measured from the actual write, and "corrected" with a fixed 1 ms
//    interval), plus the burstiness each one puts on the server.
// 3. Pacing cost (--pacing, issue 12): salvo `rate` and autocannon `overallRate` alternating at each
//    rate, 50 connections: the generator process's CPU over the measured run (100% = one core), and
//    send lag p50/p99 both as salvo reports it (`result.generator.sendLag`) and as the server sees it
//    (each arrival's distance behind the ideal line first + k / rate, shifted so the earliest is 0).
//    `--dist` runs other builds of salvo, comma-separated (main's and this one: before/after, same rounds).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const self = fileURLToPath(import.meta.url);
const role = process.argv[2];
/** Generator on core 0, server on core 1: set by main once `taskset` is known to work. */
let pinning = false;


const RESPONSE = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * The target: a minimal keep-alive HTTP/1.1 responder (GET only) that timestamps every request as it
 * is read, and can stall (hold every response due in the next 500 ms), driven over IPC by the
 * orchestrator. createTestServer's onRequest parses every header, which caps it below 50k/s on one
 * core; this one answers well above the rates measured.
 */
async function serve() {
  const net = await import('node:net');
  let arrivals = new Float64Array(1 << 20);
  let count = 0;
  let stallAfterMs = 0;
  let stallUntil = 0;
  let cpuAtReset = 0;
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    let held = 0;
    let partial = 0; // bytes of "\r\n\r\n" matched at the end of the last chunk
    const release = () => {
      const now = performance.now();
      if (now < stallUntil) return void setTimeout(release, stallUntil - now);
      for (; held > 0; held--) socket.write(RESPONSE);
    };
    socket.on('data', (chunk) => {
      const now = performance.now();
      let requests = 0;
      for (let i = 0; i < chunk.length; i++) {
        partial = chunk[i] === HEAD_END[partial] ? partial + 1 : chunk[i] === 13 ? 1 : 0;
        if (partial === 4) {
          requests++;
          partial = 0;
        }
      }
      for (let r = 0; r < requests; r++) {
        if (count === arrivals.length) {
          const grown = new Float64Array(arrivals.length * 2);
          grown.set(arrivals);
          arrivals = grown;
        }
        if (count === 0 && stallAfterMs > 0) setTimeout(() => (stallUntil = performance.now() + 500), stallAfterMs);
        arrivals[count++] = now;
      }
      if (now < stallUntil || held > 0) {
        if (held === 0) setTimeout(release, stallUntil - now);
        held += requests;
      } else {
        for (let r = 0; r < requests; r++) socket.write(RESPONSE);
      }
    });
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.on('message', (message) => {
    if (message.type === 'reset') {
      cpuAtReset = cpuMs();
      count = 0;
      stallAfterMs = message.stallAfterMs ?? 0;
      stallUntil = 0;
      process.send({ type: 'ready' });
    } else if (message.type === 'report') {
      const stats = arrivalStats(arrivals.subarray(0, count), message.rate, message.durationS);
      process.send({ type: 'report', arrivals: { ...stats, serverCpuMs: cpuMs() - cpuAtReset } });
    } else if (message.type === 'close') {
      server.close();
      process.exit(0);
    }
  });
  process.send({ type: 'listening', url: `http://127.0.0.1:${server.address().port}/` });
}

function quantile(sorted, q) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Achieved rate (arrivals / run length), gap quantiles, and the fullest 100 ms window vs its share. */
function arrivalStats(arrivals, rate, durationS) {
  const n = arrivals.length;
  if (n < 2) return { count: n };
  const gaps = new Float64Array(n - 1);
  for (let i = 1; i < n; i++) gaps[i - 1] = arrivals[i] - arrivals[i - 1];
  gaps.sort();
  const spanMs = arrivals[n - 1] - arrivals[0];
  const windows = new Uint32Array(Math.floor(spanMs / 100) + 1);
  for (let i = 0; i < n; i++) windows[Math.floor((arrivals[i] - arrivals[0]) / 100)]++;
  // The last window is partial; leave it out of the fullest.
  let fullest = 0;
  for (let i = 0; i < windows.length - 1; i++) fullest = Math.max(fullest, windows[i]);
  // Lateness behind the ideal schedule: a pacer sends slot k at first + k / rate, so arrival k minus
  // k / rate is constant but for send lag (and loopback jitter); the smallest such value is the origin.
  // (The 0.1% quantile rather than the minimum, so that one arrival early by loopback jitter does not
  // move the whole line.)
  const lags = new Float64Array(n);
  for (let k = 0; k < n; k++) lags[k] = arrivals[k] - (k * 1000) / rate;
  lags.sort();
  const origin = quantile(lags, 0.001);
  for (let k = 0; k < n; k++) lags[k] -= origin;
  return {
    count: n,
    achieved: n / durationS,
    lagP50: Math.max(0, quantile(lags, 0.5)),
    lagP99: Math.max(0, quantile(lags, 0.99)),
    gapP01: quantile(gaps, 0.01),
    gapP50: quantile(gaps, 0.5),
    gapP99: quantile(gaps, 0.99),
    fullestWindowShare: fullest / (rate / 10),
  };
}

function cpuMs() {
  const usage = process.resourceUsage();
  return (usage.userCPUTime + usage.systemCPUTime) / 1000;
}

async function runSalvo(spec) {
  const { runLoad } = await import(new URL(`${spec.dist ?? '../dist'}/index.js`, import.meta.url).href);
  const cpuBefore = cpuMs();
  const startedAt = performance.now();
  const result = await runLoad({ url: spec.url, rate: spec.rate, duration: spec.durationS * 1000, connections: spec.connections });
  // Process CPU over the wall time of the whole call (connecting included), as for autocannon.
  const wallMs = performance.now() - startedAt;
  const pick = (l) => ({ p50: l.p50, p90: l.p90, p99: l.p99, p999: l.p999, max: l.max });
  process.stdout.write(`${JSON.stringify({
    sent: result.requests.sent,
    missed: result.requests.missed,
    perSecond: result.requests.perSecond,
    cpuMs: cpuMs() - cpuBefore,
    wallMs,
    generator: result.generator,
    latency: pick(result.latency),
    uncorrected: pick(result.latencyUncorrected),
  })}\n`);
  process.exit(0);
}

async function runAutocannon(spec) {
  const { default: autocannon } = await import('autocannon');
  const cpuBefore = cpuMs();
  const startedAt = performance.now();
  const result = await autocannon({ url: spec.url, connections: spec.connections, duration: spec.durationS, overallRate: spec.rate });
  const l = result.latency;
  process.stdout.write(`${JSON.stringify({
    sent: result.requests.sent,
    perSecond: result.requests.total / result.duration,
    cpuMs: cpuMs() - cpuBefore,
    wallMs: performance.now() - startedAt,
    latency: { p50: l.p50, p90: l.p90, p99: l.p99, p999: l.p99_9, max: l.max },
  })}\n`);
  process.exit(0);
}

function pinned(core, args) {
  return pinning ? ['taskset', ['-c', String(core), process.execPath, ...args]] : [process.execPath, args];
}

async function runClient(kind, spec) {
  const [command, args] = pinned(0, [self, `--${kind}`, JSON.stringify(spec)]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`${kind} exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1));
}

function ask(server, message, type) {
  const reply = new Promise((resolve) => {
    const onMessage = (m) => {
      if (m.type !== type) return;
      server.off('message', onMessage);
      resolve(m);
    };
    server.on('message', onMessage);
  });
  server.send(message);
  return reply;
}

function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** "median (min–max)" over rounds. */
function cell(values, digits = 2) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return 'n/a';
  const f = (v) => v.toFixed(digits);
  return finite.length === 1 ? f(finite[0]) : `${f(median(finite))} (${f(Math.min(...finite))}–${f(Math.max(...finite))})`;
}

function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

async function main() {
  const { values } = parseArgs({
    options: {
      rates: { type: 'string', default: '1000,10000,50000' },
      duration: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      'skip-stall': { type: 'boolean', default: false },
      pacing: { type: 'boolean', default: false },
      dist: { type: 'string' },
    },
  });
  if (values.pacing) {
    values.rates = process.argv.some((a) => a.startsWith('--rates')) ? values.rates : '200,1000,5000,20000';
    values.duration = process.argv.some((a) => a.startsWith('--duration')) ? values.duration : '4';
  }
  const rates = values.rates.split(',').map(Number);
  const durationS = Number(values.duration);
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);
  pinning = availableParallelism() >= 2 && (await hasTaskset());

  const [command, args] = pinned(1, [self, '--serve']);
  const server = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { url } = await new Promise((resolve) => server.once('message', resolve));
  console.log(`node ${process.version}, ${availableParallelism()} cores, ${pinning ? 'generator on core 0, server on core 1' : 'not pinned'}; ${rounds} rounds, ${durationS} s each\n`);

  try {
    if (values.pacing) {
      await pacing(server, url, { rates, durationS, rounds, connections, dist: values.dist });
      return;
    }
    const byRate = new Map(rates.map((rate) => [rate, []]));
    for (let round = 0; round < rounds; round++) {
      for (const rate of rates) {
        await ask(server, { type: 'reset' }, 'ready');
        const client = await runClient('salvo', { url, rate, durationS, connections });
        const { arrivals } = await ask(server, { type: 'report', rate, durationS }, 'report');
        byRate.get(rate).push({ client, arrivals });
        process.stderr.write('.');
      }
    }
    process.stderr.write('\n');
    console.log(`### Rate accuracy (salvo, ${connections} connections; server-side arrival clock)\n`);
    console.log(table(
      ['target /s', 'achieved /s (server)', 'missed', 'gap p50 ms', 'gap p01 ms', 'gap p99 ms', 'fullest 100 ms window / share', 'generator CPU %', 'server CPU %'],
      rates.map((rate) => {
        const runs = byRate.get(rate);
        return [
          String(rate),
          cell(runs.map((r) => r.arrivals.achieved), 0),
          cell(runs.map((r) => r.client.missed), 0),
          cell(runs.map((r) => r.arrivals.gapP50), 3),
          cell(runs.map((r) => r.arrivals.gapP01), 3),
          cell(runs.map((r) => r.arrivals.gapP99), 3),
          cell(runs.map((r) => r.arrivals.fullestWindowShare), 2),
          cell(runs.map((r) => (r.client.cpuMs / (durationS * 1000)) * 100), 0),
          cell(runs.map((r) => (r.arrivals.serverCpuMs / (durationS * 1000)) * 100), 0),
        ];
      }),
    ));

    if (!values['skip-stall']) {
      const stallRuns = { salvo: [], autocannon: [] };
      for (let round = 0; round < rounds; round++) {
        for (const kind of ['salvo', 'autocannon']) {
          await ask(server, { type: 'reset', stallAfterMs: 1000 }, 'ready');
          const client = await runClient(kind, { url, rate: 1000, durationS: 3, connections: 10 });
          const { arrivals } = await ask(server, { type: 'report', rate: 1000, durationS: 3 }, 'report');
          stallRuns[kind].push({ client, arrivals });
          process.stderr.write('.');
        }
      }
      process.stderr.write('\n');
      console.log('\n### Coordinated omission: 1000/s, 10 connections, 3 s; the server stalls 500 ms after 1 s\n');
      const rows = [
        ['salvo `latency` (from intended time)', stallRuns.salvo, (c) => c.latency],
        ['salvo `latencyUncorrected` (from write)', stallRuns.salvo, (c) => c.uncorrected],
        ['autocannon `overallRate`', stallRuns.autocannon, (c) => c.latency],
      ];
      console.log(table(
        ['', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms'],
        rows.map(([name, runs, pick]) => [name, ...['p50', 'p90', 'p99', 'p999', 'max'].map((p) => cell(runs.map((r) => pick(r.client)[p]), 1))]),
      ));
      console.log('\nWhat each put on the server (arrival clock):\n');
      console.log(table(
        ['', 'requests', 'gap p50 ms', 'fullest 100 ms window / share'],
        Object.entries(stallRuns).map(([name, runs]) => [
          name,
          cell(runs.map((r) => r.arrivals.count), 0),
          cell(runs.map((r) => r.arrivals.gapP50), 3),
          cell(runs.map((r) => r.arrivals.fullestWindowShare), 2),
        ]),
      ));
    }
  } finally {
    server.send({ type: 'close' });
    await once(server, 'exit');
  }
}

/**
 * Section 3: CPU and send lag at each rate, alternating within a round: salvo from each build in
 * `dist` (comma-separated, for a before/after comparison in the same rounds) and autocannon.
 */
async function pacing(server, url, { rates, durationS, rounds, connections, dist }) {
  const dists = (dist ?? '../dist').split(',');
  const contenders = [
    ...dists.map((d) => ({ kind: 'salvo', dist: d, name: dists.length > 1 ? `salvo ${d}` : 'salvo' })),
    { kind: 'autocannon', name: 'autocannon' },
  ];
  const runs = new Map();
  for (let round = 0; round < rounds; round++) {
    for (const rate of rates) {
      const order = round % 2 ? [...contenders].reverse() : contenders;
      for (const { kind, dist: from, name } of order) {
        await ask(server, { type: 'reset' }, 'ready');
        const client = await runClient(kind, { url, rate, durationS, connections, dist: from });
        const { arrivals } = await ask(server, { type: 'report', rate, durationS }, 'report');
        const key = `${name} ${rate}`;
        runs.set(key, [...(runs.get(key) ?? []), { client, arrivals }]);
        process.stderr.write('.');
      }
    }
  }
  process.stderr.write('\n');
  console.log(`### Pacing cost (${connections} connections, ${durationS} s, ${rounds} rounds)\n`);
  console.log(table(
    ['target /s', 'contender', 'achieved /s (server)', 'CPU % (process, whole call)', 'generator.cpuPercent (measured run)', 'send lag p50 ms (salvo)', 'send lag p99 ms (salvo)', 'lag p50 ms (server)', 'lag p99 ms (server)', 'saturated'],
    rates.flatMap((rate) => contenders.map(({ name }) => {
      const list = runs.get(`${name} ${rate}`);
      const generator = (r) => r.client.generator;
      return [
        String(rate),
        name,
        cell(list.map((r) => r.arrivals.achieved), 0),
        cell(list.map((r) => (r.client.cpuMs / r.client.wallMs) * 100), 1),
        cell(list.map((r) => generator(r)?.cpuPercent), 1),
        cell(list.map((r) => generator(r)?.sendLag?.p50), 3),
        cell(list.map((r) => generator(r)?.sendLag?.p99), 3),
        cell(list.map((r) => r.arrivals.lagP50), 3),
        cell(list.map((r) => r.arrivals.lagP99), 3),
        list.some((r) => generator(r)) ? `${list.filter((r) => generator(r)?.saturated).length}/${list.length}` : 'n/a',
      ];
    })),
  ));
}

async function hasTaskset() {
  const child = spawn('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  const [code] = await Promise.race([once(child, 'exit'), once(child, 'error').then(() => [1])]);
  return code === 0;
}

if (role === '--serve') await serve();
else if (role === '--salvo') await runSalvo(JSON.parse(process.argv[3]));
else if (role === '--autocannon') await runAutocannon(JSON.parse(process.argv[3]));
else await main();
