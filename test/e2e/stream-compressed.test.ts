// Compressed streams (`compressed`, content-encoding): decoded as they arrive on every transport,
// before framing, so events are counted exactly and timed when their coded bytes came; the bytes on
// the wire stay what `bytes.received` counts. A coding salvo cannot decode is an error, not 0 events.
import t from 'tap';
import zlib from 'node:zlib';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { runLoad } from '../../src/index.js';
import type { TransportName } from '../../src/shared/terms.js';
import { startCodedStreamServer, type Coding } from '../fixtures/coded-stream-server.js';
import { inSomeRun } from '../fixtures/timing.js';

const EVENTS = 6;
const AMOUNT = 4;

for (const transport of ['net', 'undici', 'http', 'h2'] as TransportName[]) {
  for (const [coding, format] of [['gzip', 'sse'], ['deflate', 'ndjson'], ['br', 'sse'], ['gzip', 'ndjson']] as Array<[Coding, 'sse' | 'ndjson']>) {
    t.test(`${transport}: ${format} in ${coding}: every event counted, the coded bytes on the wire`, async (t) => {
      const server = await startCodedStreamServer({ format, coding, events: EVENTS, intervalMs: 1, h2: transport === 'h2' });
      t.teardown(() => server.close());
      const result = await runLoad({ url: server.url, transport, connections: 2, amount: AMOUNT, compressed: true, stream: { format } });
      const counts = server.counts();
      t.equal(result.errors.total, 0, `no errors (${JSON.stringify(result.errors.byCode)})`);
      t.equal(result.requests.completed, AMOUNT);
      t.equal(result.stream!.events, AMOUNT * EVENTS, 'every event, framed from the decoded body');
      t.equal(result.stream!.eventsPerStream, EVENTS);
      t.same(counts.acceptEncodings, Array(AMOUNT).fill('gzip, deflate, br'), "compressed asks for gzip, deflate and br, as curl's --compressed");
      t.ok(counts.plainBytes > 4 * counts.codedBytes, `the bodies compress (${counts.codedBytes} coded bytes for ${counts.plainBytes})`);
      if (transport === 'net') t.equal(result.bytes.received, counts.socketBytes, 'bytes.received: exactly the bytes the server wrote');
      else t.ok(result.bytes.received >= counts.codedBytes && result.bytes.received < counts.codedBytes + AMOUNT * 400, `bytes.received ${result.bytes.received}: the ${counts.codedBytes} coded body bytes and the heads, not the ${counts.plainBytes} decoded ones`);
    });
  }
}

t.test('without compressed, a coding asked for by hand is decoded too; a coding salvo cannot decode and a corrupt body are errors', async (t) => {
  const gzip = await startCodedStreamServer({ format: 'sse', coding: 'gzip', events: EVENTS, intervalMs: 1 });
  t.teardown(() => gzip.close());
  const byHand = await runLoad({ url: gzip.url, connections: 1, amount: 3, headers: { 'accept-encoding': 'gzip' }, stream: { format: 'sse' } });
  t.equal(byHand.stream!.events, 3 * EVENTS, 'a gzip SSE body asked for by hand: every event');
  t.same(gzip.counts().acceptEncodings, ['gzip', 'gzip', 'gzip'], "the user's accept-encoding is sent as given");

  for (const transport of ['net', 'undici', 'http', 'h2'] as TransportName[]) {
    const zstd = await startCodedStreamServer({ format: 'sse', coding: 'zstd', events: EVENTS, intervalMs: 1, h2: transport === 'h2' });
    const unknown = await runLoad({ url: zstd.url, transport, connections: 1, amount: 3, compressed: true, stream: { format: 'sse' } });
    await zstd.close();
    t.same(unknown.errors.byCode, { UNSUPPORTED_ENCODING: 3 }, `${transport}: a coding salvo cannot decode is an error for each stream`);
    t.equal(unknown.requests.completed, 0);
    t.equal(unknown.stream!.events, 0);

    const corrupt = await startCodedStreamServer({ format: 'ndjson', coding: 'gzip', events: EVENTS, intervalMs: 1, corrupt: true, h2: transport === 'h2' });
    const bad = await runLoad({ url: corrupt.url, transport, connections: 1, amount: 3, compressed: true, stream: { format: 'ndjson' } });
    await corrupt.close();
    t.same(bad.errors.byCode, { BAD_ENCODING: 3 }, `${transport}: a body that is not valid gzip is an error`);
    t.ok(bad.stream!.events < 3 * EVENTS, `${transport}: the events before the corruption only (${bad.stream!.events})`);
  }
});

t.test('events are timed when their compressed bytes arrive, not at the body end', async (t) => {
  const INTERVAL_MS = 40;
  const server = await startCodedStreamServer({ format: 'sse', coding: 'gzip', events: 4, intervalMs: INTERVAL_MS });
  t.teardown(() => server.close());
  await inSomeRun(t, 4, async (timing) => {
    const result = await runLoad({ url: server.url, connections: 1, amount: 2, compressed: true, stream: { format: 'sse' } });
    t.equal(result.stream!.events, 8);
    timing.ok(result.stream!.gap.p50 > INTERVAL_MS - 5 && result.stream!.gap.p50 < INTERVAL_MS + 15, `gap p50 ${result.stream!.gap.p50} ms: the server's ${INTERVAL_MS} ms, each flushed event decoded at once`);
    timing.ok(result.stream!.firstEvent.p50 < INTERVAL_MS / 2, `first event ${result.stream!.firstEvent.p50} ms: the first flush, not the body's end`);
  });
});

t.test('expect body checks and onResponse hooks see the decoded body; bytes.received the coded one', async (t) => {
  const text = 'hello compressed world '.repeat(50);
  const server = http.createServer((request, response) => {
    const accept = String(request.headers['accept-encoding'] ?? '');
    if (accept.includes('br')) response.writeHead(200, { 'content-encoding': 'br' }).end(zlib.brotliCompressSync(text));
    else if (accept.includes('gzip')) response.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(text));
    else response.end(text);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  for (const transport of ['net', 'undici', 'http'] as TransportName[]) {
    const seen: string[] = [];
    const result = await runLoad({
      url, transport, connections: 1, amount: 3, compressed: true,
      expect: { body: 'compressed world' },
      requests: [{ onResponse: (_status, body) => void seen.push(body.toString()) }],
    });
    t.equal(result.checks!.failed, 0, `${transport}: the check reads the decoded body`);
    t.same(seen, [text, text, text], `${transport}: the hook gets the decoded body`);
    t.ok(result.bytes.received < 3 * text.length, `${transport}: bytes.received ${result.bytes.received} counts the coded bytes`);
  }
});

t.test('SSE subscriptions through gzip: the events of a stream that never ends, decoded as they come', async (t) => {
  let open = 0;
  const server = http.createServer((request, response) => {
    open++;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
    const gzip = zlib.createGzip();
    gzip.on('data', (chunk: Buffer) => response.write(chunk));
    let id = 0;
    const timer = setInterval(() => gzip.write(`id: ${id++}\ndata: {"n":${id}}\n\n`, () => gzip.flush()), 10);
    request.on('close', () => clearInterval(timer));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const result = await runLoad({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, connections: 2, duration: 600, compressed: true, stream: { format: 'sse', subscribe: true } });
  t.equal(open, 2, 'two subscriptions, none broken by the coding');
  t.equal(result.errors.total, 0);
  t.ok(result.stream!.events > 40, `events decoded from the gzip stream as they came (${result.stream!.events} in 0.6 s at 2 x 100/s)`);
});

t.test('an empty body with a content-encoding (HEAD, 204) is no error', async (t) => {
  const server = http.createServer((request, response) => {
    response.writeHead(request.method === 'HEAD' ? 200 : 204, { 'content-encoding': 'br', 'content-length': request.method === 'HEAD' ? '100' : '0' }).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  for (const method of ['HEAD', 'GET']) {
    const result = await runLoad({ url, method, connections: 1, amount: 3, compressed: true, expect: { body: /^$/ } });
    t.equal(result.errors.total, 0, `${method}: no decoding error for a body that is not there`);
    t.equal(result.checks!.failed, 0);
  }
});
