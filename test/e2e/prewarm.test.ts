// The pre-warm: each thread runs the HTTP path against a loopback server of its own before the
// clock, so the server under test sees exactly the requests the run counts.
import { once } from 'node:events';
import { connect as connectHttp2 } from 'node:http2';
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import { formatResult, mergeResults, runLoad, type LoadResult } from '../../src/index.js';
import { planLoad } from '../../src/options.js';
import { shouldPrewarm } from '../../src/engine/prewarm.js';
import { startPrewarmServer } from '../../src/engine/prewarm-server.js';
import { decodeHistogram } from '../../src/stats/histogram.js';
import type { TransportName } from '../../src/shared/terms.js';
import { serverCount } from '../fixtures/server-count.js';
import { testServer } from '../fixtures/test-server.js';

const plan = (options: object) => planLoad({ url: 'http://127.0.0.1:1/', ...options }).plan;

// First in the file: a transport pre-warmed in this thread is warm for its later runs.
t.test('which runs pre-warm by default', async (t) => {
  t.equal(shouldPrewarm(plan({ rate: 1000, transport: 'undici' })), true, '1,000/s');
  t.equal(shouldPrewarm(plan({ rate: 999 })), false, 'below 1,000/s');
  t.equal(shouldPrewarm(plan({ rate: 100, stages: [{ duration: '1s', rate: 3000 }] })), true, 'rate stages reaching 1,000/s');
  t.equal(shouldPrewarm(plan({ connections: 50 })), false, 'closed loop');
  t.equal(shouldPrewarm(plan({ connections: 50, prewarm: true })), true, 'prewarm: true, closed loop');
  t.equal(shouldPrewarm(plan({ rate: 5000, prewarm: false })), false, 'prewarm: false');
  t.equal(plan({ rate: 5000 }).warmupMs, 0, 'no warm-up by default: nothing is sent that the run does not count');
});

/** Asserts that `result` holds the measured run alone: `amount` requests, its own connections, no warm-up. */
function onlyMeasured(t: Test, result: LoadResult, amount: number, connections: number): void {
  const { sent, completed, missed, warmup } = result.requests;
  t.equal(sent + missed, amount, 'amount is exact');
  t.equal(warmup, undefined, 'no warm-up sent');
  t.equal(decodeHistogram(result.histogram).totalCount, completed, 'the histogram holds the measured responses only');
  t.equal(result.timeline.reduce((sum, second) => sum + second.sent, 0), sent, 'so does the timeline');
  t.equal(result.phases!.connect.count, connections, 'phases: the run\'s own connections only');
  t.ok(result.phases!.ttfb.count <= completed, `phases: no pre-warm exchange (ttfb ${result.phases!.ttfb.count})`);
}

for (const transport of ['net', 'undici', 'http', 'h2'] as TransportName[]) {
  t.test(`${transport}: amount 10,000 at 5,000/s, default options: the server counts exactly 10,000`, async (t) => {
    const server = await testServer(t, transport === 'h2' ? { h2: true } : {});
    const result = await runLoad({ url: server.url, transport, rate: 5000, amount: 10_000 });
    t.equal(result.requests.sent, 10_000);
    t.equal(await serverCount(server, 10_000), 10_000, 'the server saw the 10,000');
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.equal(server.stats.requests, 10_000, 'and nothing more');
    onlyMeasured(t, result, 10_000, 10);
    const prewarm = result.generator.prewarm;
    t.ok(prewarm !== undefined && prewarm.requests > 0 && prewarm.durationMs > 0 && prewarm.cpuMs > 0, `the thread pre-warmed: ${JSON.stringify(prewarm)}`);
    t.match(formatResult(result), /Generator .*, pre-warmed in [\d,]+ ms \(CPU [\d,]+ ms, [\d,]+ requests to a loopback server\)/);
    const merged = mergeResults([result, result]);
    t.same(merged.generator.prewarm, { ...prewarm, requests: 2 * prewarm!.requests }, 'mergeResults: the slowest start-up, the requests added');
  });
}

t.test('a thread pre-warms a transport once; prewarm: false never; prewarm: true always', async (t) => {
  const server = await testServer(t);
  const again = await runLoad({ url: server.url, rate: 2000, amount: 400 });
  t.equal(again.generator.prewarm, undefined, 'net was pre-warmed in this thread already');
  const off = await runLoad({ url: server.url, rate: 2000, amount: 400, prewarm: false });
  t.equal(off.generator.prewarm, undefined);
  const before = server.stats.requests;
  const forced = await runLoad({ url: server.url, connections: 4, amount: 400, method: 'POST', body: 'hello', pipelining: 4, prewarm: true });
  t.ok(forced.generator.prewarm !== undefined && forced.generator.prewarm.requests > 0, 'a closed-loop run with pipelined POSTs pre-warms when asked');
  t.equal(await serverCount(server, before + 400), before + 400, 'the server saw its 400 only');
  onlyMeasured(t, forced, 400, 4);
});

t.test('an abort during the pre-warm ends the run at once, nothing sent', async (t) => {
  const server = await testServer(t);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 100);
  t.teardown(() => clearTimeout(timer));
  const startedAt = performance.now();
  const result = await runLoad({ url: server.url, rate: 5000, duration: '5s', prewarm: true, signal: controller.signal });
  const tookMs = performance.now() - startedAt;
  t.ok(tookMs < 2000, `resolved ${tookMs.toFixed(0)} ms after the start (the abort came at 100 ms)`);
  t.equal(result.aborted, true);
  t.equal(result.requests.sent, 0);
  t.equal(server.stats.requests, 0, 'the server saw nothing');
});

t.test('workers: each thread pre-warms, and the server counts the amount', async (t) => {
  const server = await testServer(t);
  const result = await runLoad({ url: server.url, rate: 4000, amount: 4000, workers: 2, connections: 4 });
  t.equal(await serverCount(server, 4000), 4000);
  onlyMeasured(t, result, 4000, 4);
  t.ok(result.generator.prewarm !== undefined && result.generator.prewarm.requests > 0, `merged over the threads: ${JSON.stringify(result.generator.prewarm)}`);
});

t.test('prewarm: bad values and runs without an HTTP engine are rejected', async (t) => {
  t.throws(() => plan({ rate: 5000, prewarm: 'yes' }), /^prewarm must be true or false; got "yes"$/);
  t.throws(() => planLoad({ url: 'ws://127.0.0.1:1/', connections: 1, websocket: { message: 'x' }, prewarm: true }), /prewarm runs the HTTP engine .* a WebSocket run has nothing to pre-warm/);
  t.throws(() => planLoad({ task: async () => {}, prewarm: true }), /a task run has nothing to pre-warm/);
});

t.test('the loopback server answers pipelined requests with bodies, and closes on connection: close', async (t) => {
  const server = await startPrewarmServer(false);
  t.teardown(() => server.close());
  const socket = connect(Number(new URL(server.origin).port), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  socket.write('GET / HTTP/1.1\r\nhost: a\r\n\r\nPOST /x HTTP/1.1\r\nhost: a\r\nContent-Length: 5\r\n\r\nhe');
  socket.write('lloGET / HTTP/1.1\r\nhost: a\r\nconnection: close\r\n\r\n');
  await once(socket, 'close');
  t.equal(received.match(/HTTP\/1\.1 200 OK/g)?.length, 3, 'three answers');
  t.match(received, /connection: close\r\n[^]*$/, 'the last one closing');

  const h2 = await startPrewarmServer(true);
  t.teardown(() => h2.close());
  const session = connectHttp2(h2.origin);
  const stream = session.request({ ':path': '/' });
  const [headers] = (await once(stream, 'response')) as [Record<string, unknown>];
  stream.resume();
  await once(stream, 'end');
  session.close();
  t.equal(headers[':status'], 200, 'h2c answers');
});
