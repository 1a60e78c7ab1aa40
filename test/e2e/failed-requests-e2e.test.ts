// Every request sent ends in exactly one count (completed, errors, unfinished) on every transport,
// over workers and mergeResults; failed requests (statuses the run does not accept, and errors) are
// counted per status and judged by `failed.rate`. Server-side counts are the reference.
import { once } from 'node:events';
import http2 from 'node:http2';
import net from 'node:net';
import t, { type Test } from 'tap';
import { mergeResults, runLoad, type LoadResult, type TransportName } from '../../src/index.js';
import { formatResult } from '../../src/stats/format.js';
import { testServer } from '../fixtures/test-server.js';
import { refusedPort } from '../fixtures/raw-http-server.js';

const TRANSPORTS: TransportName[] = ['net', 'undici', 'http', 'h2'];

/** A server that reads requests and never answers: HTTP/1.1 (counting request heads) or h2c (counting streams). */
async function hangingServer(t: Test, h2: boolean): Promise<{ url: string; requests(): number; until(count: number): Promise<void> }> {
  let requests = 0;
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  const seen = (n: number) => {
    requests += n;
    for (const w of waiting.filter((w) => requests >= w.count)) w.resolve();
  };
  const server: net.Server | http2.Http2Server = h2
    ? http2.createServer().on('stream', () => seen(1))
    : net.createServer((socket) => socket.on('data', (data) => seen(data.toString('latin1').split('\r\n\r\n').length - 1)));
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests: () => requests,
    until: (count) => (requests >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve }))),
  };
}

function assertAddsUp(t: Test, result: LoadResult, what: string): void {
  const { sent, completed, unfinished } = result.requests;
  t.equal(sent, completed + result.errors.total + unfinished, `${what}: sent ${sent} = completed ${completed} + errors ${result.errors.total} + unfinished ${unfinished}`);
}

for (const transport of TRANSPORTS) {
  t.test(`${transport}: requests in flight at the end of a run against a server that hangs are unfinished`, async (t) => {
    const server = await hangingServer(t, transport === 'h2');
    const result = await runLoad({ url: server.url, transport, connections: 3, duration: 400, timeout: '10s' });
    await server.until(3);
    t.equal(server.requests(), 3, 'the server saw one request per connection');
    t.same([result.requests.sent, result.requests.completed, result.errors.total, result.requests.unfinished], [3, 0, 0, 3]);
    t.equal(result.failed.total, 0, 'an unfinished request is not a failed one');
    t.match(formatResult(result), /3 sent, 0 completed, .*3 unfinished/);
  });
}

t.test('unfinished requests over workers, in rate mode, and through mergeResults', async (t) => {
  const server = await hangingServer(t, false);
  const workers = await runLoad({ url: server.url, connections: 4, workers: 2, duration: 400, timeout: '10s' });
  t.same([workers.requests.sent, workers.requests.unfinished], [4, 4], 'two workers, two connections each');
  const rate = await runLoad({ url: server.url, connections: 5, rate: 100, duration: 400, timeout: '10s' });
  t.same([rate.requests.sent, rate.requests.unfinished, rate.errors.total], [5, 5, 0], 'one per connection, the other slots missed');
  t.ok(rate.requests.missed >= 30, `missed ${rate.requests.missed}`);
  await server.until(9);
  t.equal(server.requests(), 9);
  const merged = mergeResults([workers, rate], { force: true });
  t.equal(merged.requests.unfinished, 9);
  assertAddsUp(t, merged, 'merged');
});

t.test('a refused port: every request sent is an error and a failed request', async (t) => {
  const port = await refusedPort();
  for (const transport of TRANSPORTS) {
    const result = await runLoad({ url: `http://127.0.0.1:${port}/`, transport, connections: 2, duration: 300 });
    t.ok(result.errors.total >= 2, `${transport}: ${JSON.stringify(result.errors.byCode)}`);
    t.equal(result.bytes.sent, 0, `${transport}: no byte left`);
    t.equal(result.failed.total, result.errors.total, `${transport}: failed`);
    assertAddsUp(t, result, transport);
  }
});

t.test('responses of 400 and above are failed requests by default, per status, and fail failed.rate', async (t) => {
  const server = await testServer(t, { errorRate: 0.2 });
  for (const transport of TRANSPORTS.filter((name) => name !== 'h2')) {
    const before = server.stats.statusCodes['500'] ?? 0;
    const result = await runLoad({
      url: server.url, transport, connections: 4, amount: 500,
      thresholds: { 'errors.rate': '< 0.01', 'failed.rate': '< 0.01', 'failed.total': '< 1' },
    });
    const fiveHundreds = (server.stats.statusCodes['500'] ?? 0) - before;
    t.ok(fiveHundreds > 40, `${transport}: the server answered ${fiveHundreds} with 500`);
    t.same(result.failed, { total: fiveHundreds, byStatus: { 500: fiveHundreds } }, transport);
    t.same(result.thresholds?.map((threshold) => [threshold.metric, threshold.passed, threshold.actual]), [
      ['errors.rate', true, 0],
      ['failed.rate', false, fiveHundreds / 500],
      ['failed.total', false, fiveHundreds],
    ]);
    t.equal(result.ok, false, `${transport}: not ok`);
    t.match(formatResult(result), new RegExp(`Failed +${fiveHundreds} of 500 \\([0-9.]+%: status 500 ${fiveHundreds}\\)`));
  }
});

t.test('expect.status sets what is accepted; h2 counts its statuses alike', async (t) => {
  const notFound = await testServer(t, { status: 404 });
  const accepted = await runLoad({ url: notFound.url, amount: 50, expect: { status: 404 } });
  t.same(accepted.failed, { total: 0, byStatus: {} }, '404 expected: nothing failed');
  const h2 = await testServer(t, { status: 503, h2: true });
  const shed = await runLoad({ url: h2.url, transport: 'h2', amount: 60, workers: 2 });
  t.same(shed.failed, { total: 60, byStatus: { 503: 60 } }, 'h2, over two workers');
  const okOnly = await runLoad({ url: notFound.url, amount: 30, expect: { status: '2xx' } });
  t.same(okOnly.failed, { total: 30, byStatus: { 404: 30 } });
});
