// One short run of each transport and protocol, for the quick test command (`npm test`): exact
// counts at the server, so a transport that stopped working fails here in seconds. Each has its own
// file with the whole story (transports, h2-transport, websocket, socketio, rate, workers, cli, task,
// stream-e2e).
import t from 'tap';
import { runLoad, type TransportName } from '../../src/index.js';
import { runProgram, root } from '../fixtures/cli.js';
import { localhostCert, localhostKey } from '../fixtures/raw-http-server.js';
import { socketIoServer } from '../fixtures/socketio-server.js';
import { startStreamServer } from '../fixtures/stream-server.js';
import { testServer } from '../fixtures/test-server.js';

for (const transport of ['net', 'undici', 'http'] as const satisfies readonly TransportName[]) {
  t.test(`${transport}: exactly amount requests, pipelined where the transport pipelines`, async (t) => {
    const server = await testServer(t, { preciseDelay: false });
    const pipelining = transport === 'http' ? 1 : 2;
    const result = await runLoad({ url: server.url, transport, connections: 3, pipelining, amount: 301, method: 'POST', body: { a: 1 } });
    t.equal(server.stats.requests, 301, 'the server saw amount requests');
    t.same({ completed: result.requests.completed, errors: result.errors.total }, { completed: 301, errors: 0 });
    t.same(result.statusCodes, { '200': 301 });
  });
}

t.test('h2 over TLS (ALPN) and h2c: streams on one session each', async (t) => {
  for (const h2 of [true, { tls: { key: localhostKey, cert: localhostCert } }]) {
    const server = await testServer(t, { preciseDelay: false, h2 });
    const result = await runLoad({ url: server.url, transport: 'h2', connections: 1, h2Streams: 4, amount: 200, tls: { ca: localhostCert } });
    t.equal(server.stats.requests, 200, `${server.url}: the server saw amount requests`);
    t.equal(server.stats.h2?.sessions, 1, 'one session');
    t.equal(result.requests.completed, 200);
  }
});

t.test('WebSocket echo: exactly amount messages', async (t) => {
  const server = await testServer(t, { preciseDelay: false, websocket: true });
  const result = await runLoad({ url: server.url, connections: 2, amount: 101, websocket: { message: 'ping' } });
  t.equal(server.stats.requests, 101, 'the server received amount messages');
  t.same(result.messages && { sent: result.messages.sent, received: result.messages.received }, { sent: 101, received: 101 });
});

t.test('Socket.IO emits with acks: exactly amount at the handler', async (t) => {
  const server = await socketIoServer(t);
  const result = await runLoad({ url: server.url, connections: 2, amount: 51, socketio: { emit: { event: 'echo', data: { hello: 1 } }, ack: true } });
  t.equal(server.stats.echoes, 51);
  t.equal(result.messages?.received, 51);
});

t.test('rate mode on the pacing thread, and two worker threads', async (t) => {
  const server = await testServer(t, { preciseDelay: false });
  const paced = await runLoad({ url: server.url, connections: 4, rate: 200, duration: '500ms' });
  t.equal(paced.requests.sent + paced.requests.missed, 100, '200/s for 0.5 s is 100 slots');
  const before = server.stats.requests;
  const threaded = await runLoad({ url: server.url, connections: 4, workers: 2, amount: 250 });
  t.equal(server.stats.requests - before, 250, 'the threads share amount exactly');
  t.equal(threaded.requests.completed, 250);
});

t.test('the built salvo command runs a load test and prints the result as JSON', async (t) => {
  const server = await testServer(t, { preciseDelay: false });
  const run = await runProgram(process.execPath, [`${root}dist/cli.js`, server.url, '-c', '2', '-a', '40', '--json']);
  t.equal(run.code, 0, run.stderr);
  t.equal(JSON.parse(run.stdout).requests.completed, 40);
  t.equal(server.stats.requests, 40);
});

t.test('a task run: exactly amount calls over concurrency slots, each measured step counted', async (t) => {
  let calls = 0;
  const slots = new Set<number>();
  const result = await runLoad({
    task: async (ctx) => {
      calls++;
      slots.add(ctx.slot);
      await ctx.measure('step', () => new Promise((resolve) => setImmediate(resolve)));
    },
    concurrency: 3,
    amount: 77,
  });
  t.equal(calls, 77, 'the task was called amount times');
  t.same({ sent: result.requests.sent, completed: result.requests.completed, errors: result.errors.total }, { sent: 77, completed: 77, errors: 0 });
  t.same([...slots].sort(), [0, 1, 2], 'every slot of concurrency ran');
  t.equal(result.byName?.step?.requests.completed, 77, 'one measured step per call');
});

t.test('an SSE stream run: every event of every stream counted, the [DONE] marker not', async (t) => {
  const server = await startStreamServer({ format: 'sse', delayMs: 0, intervalMs: 1, events: 5 });
  t.teardown(() => server.close());
  const result = await runLoad({ url: server.url, connections: 2, amount: 9, stream: { format: 'sse', until: '[DONE]' } });
  const applied = server.applied();
  t.same({ completed: result.requests.completed, errors: result.errors.total }, { completed: 9, errors: 0 });
  t.same({ streams: result.stream?.streams, ended: result.stream?.ended, events: result.stream?.events }, { streams: 9, ended: 9, events: 45 });
  t.same({ requests: applied.requests, events: applied.events }, { requests: 9, events: 45 }, 'what the server wrote');
});
