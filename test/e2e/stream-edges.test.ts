// `stream.until` on HTTP/1.1: the body is read to its end after the marker so the connection carries
// the next stream; a body that goes on (or stays open) past the bound has its connection closed, and
// the stream still completes at the marker.
import http from 'node:http';
import http2 from 'node:http2';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { runLoad } from '../../src/index.js';
import type { TransportName } from '../../src/shared/terms.js';

/** SSE with two events and [DONE], then `after`: end the body, keep it open, or write on. */
async function server(t: Test, after: 'end' | 'hold' | 'more') {
  let connections = 0;
  const s = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('data: a\n\ndata: b\n\ndata: [DONE]\n\n');
    if (after === 'end') response.end();
    else if (after === 'more') {
      const timer = setInterval(() => response.write('data: late\n\n'), 20);
      response.on('close', () => clearInterval(timer));
    }
  });
  s.on('connection', () => connections++);
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  t.teardown(() => {
    s.closeAllConnections();
    s.close();
  });
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/`, connections: () => connections };
}

for (const transport of ['net', 'undici', 'http'] as TransportName[]) {
  t.test(`${transport}: a body that ends after [DONE] keeps its connection; one that does not is closed, the stream complete`, async (t) => {
    const ending = await server(t, 'end');
    const reused = await runLoad({ url: ending.url, transport, connections: 2, amount: 20, stream: { format: 'sse', until: '[DONE]' } });
    t.equal(reused.requests.completed, 20);
    t.equal(reused.stream!.events, 40, 'two events a stream; the marker is none');
    t.equal(ending.connections(), 2, 'two connections for twenty streams');

    for (const after of ['hold', 'more'] as const) {
      const open = await server(t, after);
      const closed = await runLoad({ url: open.url, transport, connections: 1, amount: 3, stream: { format: 'sse', until: '[DONE]' } });
      t.equal(closed.requests.completed, 3, `${after}: every stream completed`);
      t.equal(closed.errors.total, 0, `${after}: no errors`);
      t.same(closed.statusCodes, { '200': 3 });
      t.equal(closed.stream!.events, 6, `${after}: events after the marker are not counted`);
      t.equal(closed.stream!.ended, 3);
      t.equal(open.connections(), 3, `${after}: each connection closed after the bound`);
      t.ok(closed.latency.max < 5000, `${after}: closed after the bound, not at the 10 s timeout (${closed.latency.max} ms)`);
    }
  });
}

/** Tokens `gapMs` apart, `events` of them, then [DONE] and the body's end; `stallMs` before the last one. */
async function slowServer(t: Test, { events, gapMs, stallMs = 0, h2 = false }: { events: number; gapMs: number; stallMs?: number; h2?: boolean }) {
  const handler = (_request: unknown, response: http.ServerResponse | http2.Http2ServerResponse): void => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const next = (): void => {
      if (response.destroyed || (response as { stream?: { destroyed: boolean } }).stream?.destroyed) return;
      if (sent === events) {
        response.end('data: [DONE]\n\n');
        return;
      }
      (response as http.ServerResponse).write(`data: ${sent++}\n\n`);
      setTimeout(next, sent === events - 1 ? gapMs + stallMs : gapMs);
    };
    next();
  };
  const s = h2 ? http2.createServer(handler) : http.createServer(handler);
  const sockets = new Set<import('node:net').Socket>();
  s.on('connection', (socket: import('node:net').Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    s.close();
  });
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/`;
}

for (const transport of ['net', 'undici', 'http', 'h2'] as TransportName[]) {
  t.test(`${transport}: timeout bounds the wait for each event, not a long answer that keeps coming`, async (t) => {
    // 16 tokens 60 ms apart: an answer of about 1 s, under a 400 ms timeout.
    const long = await slowServer(t, { events: 16, gapMs: 60, h2: transport === 'h2' });
    const answered = await runLoad({ url: long, transport, connections: 2, amount: 4, timeout: 400, stream: { format: 'sse', until: '[DONE]' } });
    t.equal(answered.errors.total, 0, 'no TIMEOUT for an answer that kept coming');
    t.equal(answered.requests.completed, 4);
    t.equal(answered.stream!.events, 4 * 16);
    t.notOk(answered.warnings?.some((w) => /did not answer/.test(w.message)), 'no warning that the server did not answer');
    // The same answer stalls 1.5 s before its last token: that gap is past the timeout.
    const stalled = await slowServer(t, { events: 4, gapMs: 20, stallMs: 1500, h2: transport === 'h2' });
    const cut = await runLoad({ url: stalled, transport, connections: 1, amount: 1, timeout: 400, stream: { format: 'sse', until: '[DONE]' } });
    t.same(cut.errors.byCode, { TIMEOUT: 1 }, 'a gap past the timeout is a TIMEOUT');
    t.equal(cut.stream!.events, 3, 'the events before the stall were counted');
  });
}

/** `/json`: a plain JSON answer; `/sse`: five events of `{ text, t }` (t `aheadMs` in the future) and the body's end. */
async function mixedServer(t: Test, aheadMs = 0, h2 = false) {
  const handler = (request: http.IncomingMessage | http2.Http2ServerRequest, response: http.ServerResponse | http2.Http2ServerResponse): void => {
    if (request.url === '/json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"id":1,"choices":[{"message":{"content":"hi"}}]}');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    let body = '';
    for (let i = 0; i < 5; i++) body += `data: ${JSON.stringify({ text: `t${i}`, t: Date.now() + aheadMs })}\n\n`;
    response.end(body);
  };
  const s = h2 ? http2.createServer(handler) : http.createServer(handler);
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  t.teardown(() => void s.close());
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

for (const transport of ['net', 'undici', 'http', 'h2'] as TransportName[]) {
  t.test(`${transport}: quiet wrong numbers are gone: per-stream means, zero gaps, a clock ahead, runs that measured nothing`, async (t) => {
    const base = await mixedServer(t, 0, transport === 'h2');
    // A sequence of a JSON step and a streamed step: the JSON answers are no 0-event streams.
    const mixed = await runLoad({ url: base, transport, connections: 1, amount: 10, requests: [{ path: '/json' }, { path: '/sse' }], stream: { format: 'sse' } });
    t.equal(mixed.stream!.streams, 5, 'the five streamed answers are the streams');
    t.equal(mixed.stream!.eventsPerStream, 5, 'five events each (not 2.5 over ten responses)');
    // Five events written in one go arrive in one read: their gaps are 0, and so is the minimum.
    t.equal(mixed.stream!.gap.p50, 0);
    t.equal(mixed.stream!.gap.min, 0, 'gap.min is 0, not 9,007,199,254,740.99');

    const json = await runLoad({ url: `${base}/json`, transport, connections: 1, amount: 3, stream: { format: 'sse' }, thresholds: { 'stream.ttft.p99': '< 100' } });
    t.equal(json.stream!.events, 0);
    t.match(json.warnings.find((w) => w.code === 'STREAM_NO_EVENTS')?.message ?? '', /3 responses had no event with format 'sse'.*JSON endpoint/, 'SSE against a JSON endpoint is named');
    t.match(json.thresholds![0]!.message ?? '', /needs stream\.tokens/, 'a TTFT threshold without tokens says why it has no value');
    t.equal(json.thresholds![0]!.passed, false);

    const untouched = await runLoad({ url: `${base}/sse`, transport, connections: 1, amount: 3, stream: { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' } });
    t.equal(untouched.stream!.events, 15);
    t.match(untouched.warnings.find((w) => w.code === 'STREAM_NO_TOKENS')?.message ?? '', /'choices\.0\.delta\.content' found no token in 15 events/);
    t.match(untouched.warnings.find((w) => w.code === 'STREAM_UNTIL_NEVER')?.message ?? '', /'\[DONE\]' matched no event of 3 streams/);

    const ahead = await mixedServer(t, 500, transport === 'h2');
    const skewed = await runLoad({ url: `${ahead}/sse`, transport, connections: 1, amount: 2, stream: { format: 'sse', timestamp: { field: 't' } }, thresholds: { 'stream.delivery.p99': '< 100' } });
    t.equal(skewed.stream!.delivery!.max, 0, 'deliveries from a clock 500 ms ahead are counted as 0');
    t.match(skewed.warnings.find((w) => w.code === 'CLOCK_SKEW')?.message ?? '', /10 events arrived up to \d+\.\d ms before the time they carry/, 'and said so');
  });
}
