// The warnings that explain a strange number: raised against servers and limits that cause them,
// and not raised on a healthy server.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { runLoad, type LoadResult, type TransportName } from '../../src/index.js';
import type { Plan } from '../../src/shared/plan.js';
import { diagnose } from '../../src/stats/diagnose.js';
import { wholeRunMergeInfo } from '../fixtures/merge-info.js';
import { noPhases } from '../fixtures/phases.js';
import { rawServer } from '../fixtures/raw-http-server.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun } from '../fixtures/timing.js';
import { diagnoses } from '../fixtures/warnings.js';

const TRANSPORTS: TransportName[] = ['net', 'undici', 'http'];
const BODY = 'hello, world';

for (const transport of TRANSPORTS) {
  t.test(`${transport}: SERVER_NAGLE_DELAY from a server that writes the head, then the body byte by byte, without TCP_NODELAY`, async (t) => {
    const server = await rawServer(t, (socket) => {
      socket.setNoDelay(false);
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${BODY.length}\r\n\r\n`);
      for (const byte of BODY) socket.write(byte);
    });
    await inSomeRun(t, 3, async (timing) => {
      const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, transport, connections: 4, duration: 1000 });
      t.equal(result.errors.total, 0);
      const { ttfb, receive } = result.phases;
      // Nagle holds the body until the client's delayed ACK (40 ms on Linux): the stall is all in receive.
      timing.ok(receive.p50 >= 38 && ttfb.p50 < 5, `fast first byte (${ttfb.p50} ms), a delayed-ACK receive (${receive.p50} ms)`);
      const warning = result.warnings.find((w) => w.code === 'SERVER_NAGLE_DELAY');
      timing.ok(warning !== undefined, 'SERVER_NAGLE_DELAY raised');
      if (warning) t.match(warning.message, /TCP_NODELAY/, 'it says what the server should do');
    });
  });
}

t.test('a healthy server raises no warning', async (t) => {
  const server = await testServer(t);
  for (const transport of TRANSPORTS) {
    for (const keepAlive of [true, false]) {
      const result = await runLoad({ url: server.url, transport, connections: 4, amount: 400, keepAlive });
      t.equal(result.requests.completed, 400);
      t.same(diagnoses(result.warnings), [], `${transport}, keepAlive ${keepAlive}: no diagnosis`);
    }
  }
});

/** What test/fixtures/file-limit-child.ts prints. */
interface ChildRun {
  error?: { name: string; code: string; message: string };
  completed?: number;
  errors?: Record<string, number>;
  warnings?: Array<{ code: string; message: string }>;
}

/** Runs test/fixtures/file-limit-child.ts under `ulimit -n 64` and returns what it printed. */
async function underFileLimit(connections: number | 'most', target: string): Promise<ChildRun> {
  const script = fileURLToPath(new URL('../fixtures/file-limit-child.ts', import.meta.url));
  const child = spawn('bash', ['-c', `ulimit -n 64 && exec "${process.execPath}" --import=tsx "${script}" ${connections} ${target}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await once(child, 'close');
  return JSON.parse(out) as ChildRun;
}

t.test('FILE_LIMIT: more connections than the open-file limit allows reject before the run', { skip: process.platform === 'win32' && 'needs bash and ulimit' }, async (t) => {
  const server = await testServer(t);
  const refused = await underFileLimit(100, server.url);
  t.equal(refused.error?.name, 'SalvoRangeError');
  t.equal(refused.error?.code, 'SALVO_OUT_OF_RANGE');
  t.match(refused.error?.message ?? '', /^connections: 100 /, 'names the option and its value');
  t.match(refused.error?.message ?? '', /open-file limit \(ulimit -n\) is 64/, 'names the limit and ulimit -n');
  t.equal(server.stats.connections, 0, 'nothing was sent');
  const fits = await underFileLimit(10, server.url);
  t.notOk(fits.error, 'a run that fits runs');
  t.ok((fits.completed ?? 0) > 0, `completed ${fits.completed}`);
  t.same(diagnoses(fits.warnings ?? []), []);
});

t.test('FILE_LIMIT: EMFILE during a run is counted and explained', { skip: process.platform === 'win32' && 'needs bash and ulimit' }, async (t) => {
  // As many connections as fit the limit, but the server in the same process takes a file for each
  // too. Which side runs out first is a race: the server's accept (libuv then drops the connection,
  // and the client sees it closed) or the client's socket (EMFILE). The client wins it most of the
  // time; a run the server won is repeated, up to 5 runs.
  let run = await underFileLimit('most', 'local');
  for (let attempt = 1; attempt < 5 && run.error === undefined && (run.errors?.EMFILE ?? 0) === 0; attempt++) {
    t.comment(`run ${attempt}: the server ran out of files first (${JSON.stringify(run.errors)}); again`);
    run = await underFileLimit('most', 'local');
  }
  t.notOk(run.error);
  t.ok((run.errors?.EMFILE ?? 0) > 0, `EMFILE counted: ${JSON.stringify(run.errors)}`);
  const warning = run.warnings?.find((w) => w.code === 'FILE_LIMIT');
  t.ok(warning, 'FILE_LIMIT raised');
  t.match(warning?.message ?? '', /ulimit -n 64/, 'names the limit in force');
});

/** A merged result as `diagnose` sees it. */
function resultWith(overrides: Partial<LoadResult>): LoadResult {
  const latency = { count: 1000, min: 0, mean: 0, stddev: 0, max: 0, p50: 0, p75: 0, p90: 0, p95: 0, p99: 0, p999: 0 };
  return {
    url: 'http://127.0.0.1:1/', transport: 'net', connections: 10, workers: 1,
    requests: { sent: 1000, completed: 1000, perSecond: 100, missed: 0, retried: 0, unfinished: 0 },
    latency, latencyUncorrected: latency, statusCodes: { 200: 1000 }, errors: { total: 0, byCode: {} }, failed: { total: 0, byStatus: {} },
    bytes: { sent: 100_000, received: 100_000 }, durationMs: 10_000, timeline: [], aborted: false,
    warnings: [], ok: true, histogram: '', histogramUncorrected: '', ...noPhases(), ...wholeRunMergeInfo(),
    generator: { cpuPercent: 10, eventLoopUtilization: 0.1, eventLoopDelayP99Ms: 1, saturated: false }, ...overrides,
  };
}

function phasesWith(ttfbP50: number, receiveP50: number): Pick<LoadResult, 'phases' | 'phaseHistograms'> {
  const { phases, phaseHistograms } = noPhases();
  const stats = (p50: number) => ({ count: 1000, min: p50 / 2, mean: p50, p50, p90: p50 * 1.1, p99: p50 * 1.2, max: p50 * 1.5 });
  return { phases: { ...phases, ttfb: stats(ttfbP50), receive: stats(receiveP50) }, phaseHistograms };
}

const plan = { keepAlive: false } as Plan;

t.test('SERVER_NAGLE_DELAY only for a delayed-ACK receive behind a fast first byte, on small responses', async (t) => {
  const codes = (result: LoadResult) => (diagnose(result, plan), result.warnings.map((w) => w.code));
  t.same(codes(resultWith(phasesWith(0.3, 43.8))), ['SERVER_NAGLE_DELAY'], 'Linux: 40 ms');
  t.same(codes(resultWith(phasesWith(0.3, 201))), ['SERVER_NAGLE_DELAY'], 'Windows: 200 ms');
  t.same(codes(resultWith(phasesWith(0.3, 30))), [], 'a body streamed 30 ms after the head');
  t.same(codes(resultWith(phasesWith(0.3, 75))), [], 'between the delayed-ACK intervals');
  t.same(codes(resultWith(phasesWith(40, 43))), [], 'a slow first byte: the server is slow, not Nagle');
  t.same(codes(resultWith({ ...phasesWith(0.3, 43.8), bytes: { sent: 1000, received: 1000 * 1_000_000 } })), [], '1 MB responses: bandwidth');
});

t.test('PORTS_EXHAUSTED: EADDRNOTAVAIL is explained, with what to do', async (t) => {
  const result = resultWith({ errors: { total: 12, byCode: { EADDRNOTAVAIL: 12 } } });
  diagnose(result, plan);
  t.equal(result.warnings.length, 1);
  t.equal(result.warnings[0]!.code, 'PORTS_EXHAUSTED');
  t.match(result.warnings[0]!.message, /^12 connections failed with EADDRNOTAVAIL/);
  t.match(result.warnings[0]!.message, /keepAlive: false.*TIME_WAIT/);
  t.match(result.warnings[0]!.message, /ip_local_port_range/);
});

t.test('RATE_NOT_MET: a rate run that left its slots unsent says so, and what it needed', async (t) => {
  // 20 ms per request on one connection carries 50/s at most: 400/s leaves most slots unsent.
  const server = await testServer(t, { delayMs: 20 });
  const starved = await runLoad({ url: server.url, connections: 1, rate: 400, duration: 1000 });
  t.ok(starved.requests.missed! > 300, `missed ${starved.requests.missed}`);
  const warning = starved.warnings.find((w) => w.code === 'RATE_NOT_MET');
  t.ok(warning !== undefined, 'RATE_NOT_MET raised');
  t.match(warning?.message, new RegExp(`^${starved.requests.missed} of ${starved.requests.sent + starved.requests.missed!} slots`));
  t.match(warning?.message, /400 requests\/s need about \d+ in flight and this run allowed 1/);
  // A stalled host reaches some slots only after the end (missed) and saturates the generator: repeat.
  await inSomeRun(t, 3, async (timing) => {
    const enough = await runLoad({ url: server.url, connections: 20, rate: 200, duration: 1000 });
    timing.ok(enough.requests.missed === 0, `enough connections: missed ${enough.requests.missed}`);
    timing.ok(diagnoses(enough.warnings).length === 0, `enough connections: no warning (${diagnoses(enough.warnings).map((w) => w.code).join(', ')})`);
  });
});
