import { once } from 'node:events';
import http2 from 'node:http2';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import t, { type Test } from 'tap';
import { runLoad } from '../../src/index.js';
import { frame } from '../fixtures/raw-h2-server.js';
import { localhostCert, localhostKey } from '../fixtures/raw-http-server.js';
import { inSomeRun } from '../fixtures/timing.js';
import { diagnoses } from '../fixtures/warnings.js';

/** A node:http2 (nghttp2) server: the frames a spec-following peer sends, in forms nginx never uses. */
async function nodeH2Server(t: Test, options: http2.ServerOptions, handler: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void): Promise<{ url: string; server: http2.Http2Server }> {
  const server = http2.createServer(options);
  server.on('stream', handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(async () => {
    for (const session of sessions) session.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const BIG_BODY = Buffer.alloc(1024 * 1024, 'abcdefgh');
const LONG_VALUE = 'v'.repeat(40_000);

t.test('padding, CONTINUATION, 1xx, trailers and a 1 MiB body arrive whole and are counted once', async (t) => {
  const { url } = await nodeH2Server(t, { paddingStrategy: http2.constants.PADDING_STRATEGY_MAX }, (stream, headers) => {
    const path = headers[':path'];
    if (path === '/big') {
      stream.respond({ ':status': 200, 'x-long': LONG_VALUE });
      stream.end(BIG_BODY);
    } else if (path === '/early') {
      stream.additionalHeaders({ ':status': 103, link: '</style.css>; rel=preload' });
      stream.respond({ ':status': 200 });
      stream.end('after hints');
    } else {
      stream.respond({ ':status': 201 }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'x-checksum': 'abc' }));
      stream.end('with trailers');
    }
  });
  const big = await runLoad({ url: `${url}/big`, transport: 'h2', connections: 2, h2Streams: 3, amount: 12, expect: { status: 200, body: BIG_BODY.toString('latin1'), headers: { 'x-long': LONG_VALUE } } });
  t.equal(big.requests.completed, 12);
  t.same(big.errors.byCode, {});
  t.equal(big.checks?.failed, 0, 'every body (16 KiB frames, padded, over a window topped up as it went) and the 40 KB header (HEADERS + CONTINUATION) were whole');
  // Each body is at least 64 DATA frames (16 KiB at most, each padded up to 255 bytes), each with its 9-byte header.
  t.ok(big.bytes.received > 12 * (BIG_BODY.length + 64 * 9), `bytes received ${big.bytes.received} count the frames`);

  const early = await runLoad({ url: `${url}/early`, transport: 'h2', connections: 1, amount: 10, expect: { status: 200, body: 'after hints' } });
  t.same(early.statusCodes, { 200: 10 }, 'the 103 is not a response of its own');
  t.equal(early.checks?.failed, 0);

  const trailed = await runLoad({ url: `${url}/trailers`, transport: 'h2', connections: 1, h2Streams: 2, amount: 10, expect: { status: 201, body: 'with trailers' } });
  t.same(trailed.statusCodes, { 201: 10 }, 'the response ends with its trailers');
  t.equal(trailed.checks?.failed, 0);
});

t.test("a request body larger than the server's flow-control windows is sent whole", async (t) => {
  const received: number[] = [];
  const { url } = await nodeH2Server(t, { settings: { initialWindowSize: 16_384 } }, (stream) => {
    let length = 0;
    stream.on('data', (chunk: Buffer) => (length += chunk.length));
    stream.on('end', () => {
      received.push(length);
      stream.respond({ ':status': 200 });
      stream.end(String(length));
    });
  });
  const body = Buffer.alloc(200_000, 'b');
  const result = await runLoad({ url, transport: 'h2', method: 'POST', body, connections: 2, h2Streams: 4, amount: 24, expect: { status: 200, body: '200000' } });
  t.equal(result.requests.completed, 24);
  t.same(result.errors.byCode, {});
  t.same(received, new Array(24).fill(200_000), 'each body arrived whole: 13 stream windows of 16 KiB, 4 connection windows');
  t.ok(result.bytes.sent >= 24 * 200_000 && result.bytes.sent < 24 * 200_200, `bytes sent ${result.bytes.sent}: the bodies and their frame headers`);
});

t.test('a server that lowers SETTINGS_MAX_CONCURRENT_STREAMS mid-session is obeyed: streams beyond it wait their turn', async (t) => {
  let seen = 0;
  let open = 0;
  let mostAfterAck = 0;
  let acknowledged = false;
  const { url } = await nodeH2Server(t, { settings: { maxConcurrentStreams: 100 } }, (stream) => {
    open++;
    if (acknowledged) mostAfterAck = Math.max(mostAfterAck, open);
    // The callback runs once the client acknowledged the new limit.
    if (++seen === 10) stream.session!.settings({ maxConcurrentStreams: 1 }, () => (acknowledged = true));
    let answered = false;
    const close = () => {
      if (!answered) open--;
      answered = true;
    };
    stream.on('close', close);
    setTimeout(() => {
      if (stream.destroyed) return;
      close(); // before the response leaves, so the next stream the client opens finds this one gone
      stream.respond({ ':status': 200 });
      stream.end('ok');
    }, 5);
  });
  const result = await runLoad({ url, transport: 'h2', connections: 1, h2Streams: 8, amount: 60, timeout: 2000 });
  // Streams already open when the limit came down may be refused by the server; nothing else fails.
  // (It kept up to 8 open: 30 of 60 completed, the rest refused or lost to GOAWAY.)
  const refused = result.errors.byCode.H2_RST_REFUSED_STREAM ?? 0;
  t.same(Object.keys(result.errors.byCode).filter((code) => code !== 'H2_RST_REFUSED_STREAM'), [], JSON.stringify(result.errors.byCode));
  t.ok(refused <= 7, `${refused} refused: at most the 7 above the new limit that were open when it came`);
  t.equal(result.requests.completed + refused, 60);
  t.equal(mostAfterAck, 1, 'once the client acknowledged the limit, one stream at a time');
  t.ok(result.warnings.some((warning) => warning.code === 'H2_STREAMS_CAPPED'), 'said so');
});

t.test('bytes.sent counts the body that flow control let out, not the body that waited', async (t) => {
  // The server never grants a window: one connection window (65,535 bytes) of the bodies goes.
  const server = await rawH2Server(t, () => Buffer.alloc(0));
  const body = Buffer.alloc(200_000, 'b');
  const result = await runLoad({ url: server.url, transport: 'h2', method: 'POST', body, connections: 1, h2Streams: 2, duration: 1000, timeout: 300 });
  t.ok(result.errors.byCode.TIMEOUT! >= 2, JSON.stringify(result.errors.byCode));
  const dataFrames = server.received.filter((type) => type === 0x0).length;
  const headers = server.received.filter((type) => type === 0x1).length;
  t.ok(result.bytes.sent >= 65_535 + 9 * dataFrames, `bytes sent ${result.bytes.sent}: the 65,535 bytes of DATA and their ${dataFrames} frame headers`);
  t.ok(result.bytes.sent < 65_535 + 9 * dataFrames + 100 * headers, `and ${headers} HEADERS frames, not ${headers} whole bodies`);
});

t.test("the server's PING is answered", async (t) => {
  const pings: Array<Error | null> = [];
  const { url, server } = await nodeH2Server(t, {}, (stream) => {
    stream.respond({ ':status': 200 });
    stream.end('ok');
  });
  server.on('session', (session) => {
    session.once('remoteSettings', () => session.ping(Buffer.from('salvo-ok'), (error) => pings.push(error)));
  });
  const result = await runLoad({ url, transport: 'h2', connections: 2, amount: 200 });
  t.equal(result.requests.completed, 200);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.same(pings, [null, null], 'each session had its PING acknowledged');
});

/**
 * A raw HTTP/2 server that answers the preface with SETTINGS and every request with `answer`
 * (frames it builds by hand), and records the frame types the client sent.
 */
async function rawH2Server(t: Test, answer: (streamId: number) => Buffer): Promise<{ url: string; connections: () => number; received: number[] }> {
  let connections = 0;
  const received: number[] = [];
  const server = net.createServer((socket: Socket) => {
    connections++;
    let buffer = Buffer.alloc(0);
    let prefaceSeen = false;
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!prefaceSeen) {
        if (buffer.length < 24) return;
        buffer = buffer.subarray(24);
        prefaceSeen = true;
        socket.write(frame(0x4, 0, 0, Buffer.alloc(0)));
      }
      while (buffer.length >= 9) {
        const length = buffer.readUIntBE(0, 3);
        if (buffer.length < 9 + length) break;
        const type = buffer[3]!;
        const streamId = buffer.readUInt32BE(5) & 0x7fffffff;
        received.push(type);
        buffer = buffer.subarray(9 + length);
        if (type === 0x1 && !socket.destroyed) socket.write(answer(streamId));
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, connections: () => connections, received };
}

const GOAWAY = 0x7;
const RST_STREAM = 0x3;

/**
 * How many frames of `type` the server has read once it has `expected`, or after 1 s: the last
 * connection's GOAWAY can still be on its way to the server, which shares the test's event loop,
 * when the run resolves (CI saw 4 of 5).
 */
async function framesSeen(received: number[], type: number, expected: number): Promise<number> {
  const count = () => received.filter((seen) => seen === type).length;
  const deadline = performance.now() + 1000;
  while (count() < expected && performance.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
  return count();
}

t.test('a server that breaks HTTP/2 is counted by error code, never thrown, and the run goes on', async (t) => {
  const cases = [
    // HPACK index 0 does not exist: the connection's header table is lost with it.
    { name: 'COMPRESSION_ERROR', answer: (id: number) => frame(0x1, 0x5, id, Buffer.from([0x80])), code: 'H2_COMPRESSION_ERROR', connectionError: true },
    // Push was disabled in our SETTINGS.
    { name: 'PUSH_PROMISE', answer: (id: number) => frame(0x5, 0x4, id, Buffer.from([0, 0, 0, 2, 0x88])), code: 'H2_PROTOCOL_ERROR', connectionError: true },
    // 20,000 bytes is above the 16,384 we allow.
    { name: 'oversized frame', answer: (id: number) => frame(0x0, 0x1, id, Buffer.alloc(20_000)), code: 'H2_FRAME_SIZE_ERROR', connectionError: true },
    // A body before any response head: that stream alone is broken.
    { name: 'DATA before HEADERS', answer: (id: number) => frame(0x0, 0x1, id, Buffer.from('xx')), code: 'H2_PROTOCOL_ERROR', connectionError: false },
  ];
  for (const { name, answer, code, connectionError } of cases) {
    const server = await rawH2Server(t, answer);
    const result = await runLoad({ url: server.url, transport: 'h2', connections: 1, amount: 8, timeout: 2000 });
    t.same(result.errors.byCode, { [code]: 8 }, `${name}: each request counted once, under ${code}`);
    t.equal(result.requests.completed, 0);
    if (connectionError) {
      t.equal(server.connections(), 8, `${name}: a connection error ends the connection; the next request opens another`);
      t.equal(await framesSeen(server.received, GOAWAY, 8), 8, `${name}: each ended with our GOAWAY`);
    } else {
      t.equal(server.connections(), 1, `${name}: a stream error leaves the connection up`);
      t.equal(await framesSeen(server.received, RST_STREAM, 8), 8, `${name}: each stream reset by us`);
    }
  }
});

t.test('a server that accepts and never speaks HTTP/2 does not hold the run: it ends on time, its requests are H2_NOT_SUPPORTED', async (t) => {
  const sockets = new Set<Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  await inSomeRun(t, 3, async (timing) => {
    const startedAt = performance.now();
    const result = await runLoad({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, transport: 'h2', connections: 2, duration: 300, timeout: 200 });
    const tookMs = performance.now() - startedAt;
    timing.ok(tookMs < 2000, `ended after ${Math.round(tookMs)} ms: 200 ms waiting for SETTINGS, 300 ms of run`);
    t.equal(result.requests.completed, 0);
    t.same(Object.keys(result.errors.byCode), ['H2_NOT_SUPPORTED'], 'no SETTINGS within the request timeout: not HTTP/2');
    t.ok(result.errors.byCode.H2_NOT_SUPPORTED! >= 2, 'every connection, within the run');
    t.same(diagnoses(result.warnings).map((warning) => warning.code), ['H2_NOT_SUPPORTED', 'NO_SUCCESS'], 'said once, and no CONNECTIONS_NOT_OPEN: they did open');
  });
});

t.test('h2 over TLS resumes sessions on new connections, as the server counts them, unless told not to', async (t) => {
  for (const maxVersion of ['TLSv1.3', 'TLSv1.2'] as const) {
    const server = http2.createSecureServer({ key: localhostKey, cert: localhostCert, maxVersion });
    let connections = 0;
    let resumed = 0;
    server.on('secureConnection', (socket: TLSSocket) => {
      connections++;
      if (socket.isSessionReused()) resumed++;
    });
    server.on('stream', (stream) => {
      stream.respond({ ':status': 200 });
      stream.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `https://localhost:${(server.address() as AddressInfo).port}/`;
    // One connection at a time: the first handshake is full, every later one resumes.
    const reused = await runLoad({ url, transport: 'h2', connections: 1, amount: 20, keepAlive: false, tls: { ca: localhostCert } });
    t.equal(reused.requests.completed, 20, `${maxVersion}: responses`);
    t.equal(connections, 20, `${maxVersion}: connections`);
    t.equal(resumed, 19, `${maxVersion}: resumed handshakes`);
    connections = resumed = 0;
    const full = await runLoad({ url, transport: 'h2', connections: 1, amount: 10, keepAlive: false, tlsSessionReuse: false, tls: { ca: localhostCert } });
    t.equal(full.requests.completed, 10);
    t.equal(resumed, 0, `${maxVersion}, tlsSessionReuse false: every handshake full`);
    // A certificate for another name: every connection fails as Node fails it, and the sessions the
    // server issued during those handshakes (TLS 1.2) are never resumed around the check.
    connections = resumed = 0;
    const refused = await runLoad({ url, transport: 'h2', connections: 1, amount: 5, keepAlive: false, tls: { ca: localhostCert, servername: 'elsewhere.test' } });
    t.equal(refused.requests.completed, 0, `${maxVersion}, wrong name: rejected`);
    t.same(Object.keys(refused.errors.byCode), ['ERR_TLS_CERT_ALTNAME_INVALID'], `${maxVersion}, wrong name: ${JSON.stringify(refused.errors.byCode)}`);
    t.equal(resumed, 0, `${maxVersion}, wrong name: nothing resumed`);
    await new Promise((resolve) => server.close(resolve));
  }
});

t.test('a response whose DATA does not add up to its content-length is a stream error; HEAD, 204 and 304 carry one with no DATA', async (t) => {
  const HEADERS = 0x1;
  const DATA = 0x0;
  const END_STREAM = 0x1;
  const END_HEADERS = 0x4;
  const PADDED = 0x8;
  // content-length as HPACK spells it three ways: a literal without indexing on static index 28, a
  // literal with incremental indexing and a literal name, and a never-indexed literal name.
  const indexedName = (value: string) => Buffer.concat([Buffer.from([0x0f, 28 - 15, value.length]), Buffer.from(value)]);
  const newName = (prefix: number, value: string) => Buffer.concat([Buffer.from([prefix, 14]), Buffer.from('content-length'), Buffer.from([value.length]), Buffer.from(value)]);
  const head = (id: number, status: number, field: Buffer, end = false) =>
    frame(HEADERS, END_HEADERS | (end ? END_STREAM : 0), id, Buffer.concat([Buffer.from([status]), field]));
  const hello = (id: number) => frame(DATA, END_STREAM, id, Buffer.from('hello'));
  const cases = [
    { name: 'declares 10, sends 5', answer: (id: number) => Buffer.concat([head(id, 0x88, indexedName('10')), hello(id)]), ok: false },
    { name: 'declares 2, sends 5', answer: (id: number) => Buffer.concat([head(id, 0x88, indexedName('2')), hello(id)]), ok: false },
    { name: 'declares 9 under a never-indexed literal name', answer: (id: number) => Buffer.concat([head(id, 0x88, newName(0x10, '9')), hello(id)]), ok: false },
    { name: 'a content-length that is no number', answer: (id: number) => Buffer.concat([head(id, 0x88, indexedName('5x')), hello(id)]), ok: false },
    { name: 'declares 10, the headers end the stream', answer: (id: number) => head(id, 0x88, indexedName('10'), true), ok: false },
    {
      name: 'declares 5, sends 2 + 3 in a padded frame',
      answer: (id: number) =>
        Buffer.concat([head(id, 0x88, newName(0x40, '5')), frame(DATA, 0, id, Buffer.from('he')), frame(DATA, END_STREAM | PADDED, id, Buffer.from([4, 0x6c, 0x6c, 0x6f, 0, 0, 0, 0]))]),
      ok: true,
    },
    { name: 'a 304 with a content-length and no DATA', answer: (id: number) => head(id, 0x8b, indexedName('10'), true), ok: true },
    { name: 'a HEAD response with a content-length and no DATA', answer: (id: number) => head(id, 0x88, indexedName('10'), true), ok: true, method: 'HEAD' },
  ];
  for (const { name, answer, ok, method } of cases) {
    const server = await rawH2Server(t, answer);
    const result = await runLoad({ url: server.url, transport: 'h2', connections: 1, amount: 8, timeout: 2000, method: method ?? 'GET' });
    if (ok) {
      t.equal(result.requests.completed, 8, `${name}: every response counted`);
      t.same(result.errors.byCode, {}, name);
    } else {
      t.same(result.errors.byCode, { H2_PROTOCOL_ERROR: 8 }, `${name}: each response a protocol error, not a success`);
      t.equal(result.requests.completed, 0, name);
      t.equal(await framesSeen(server.received, RST_STREAM, 8), 8, `${name}: each stream reset by us`);
      t.equal(server.connections(), 1, `${name}: the connection stays up`);
    }
  }
});
