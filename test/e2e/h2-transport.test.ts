import https from 'node:https';
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import t from 'tap';
import { SalvoOptionError } from '../../src/shared/errors.js';
import { runLoad } from '../../src/index.js';
import { localhostCert, localhostKey } from '../fixtures/raw-http-server.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun } from '../fixtures/timing.js';
import { diagnoses } from '../fixtures/warnings.js';

t.test('exact amount over 4 sessions x 10 streams, never more than 10 in flight on a session', async (t) => {
  const server = await testServer(t, { h2: true, delayMs: 5 });
  const result = await runLoad({ url: server.url, transport: 'h2', connections: 4, h2Streams: 10, amount: 1000 });
  t.equal(result.requests.sent, 1000);
  t.equal(result.requests.completed, 1000);
  t.equal(result.errors.total, 0);
  t.equal(server.stats.requests, 1000, 'the server answered exactly 1000');
  t.equal(server.stats.h2!.streams, 1000);
  t.equal(server.stats.h2!.sessions, 4, 'one session per connection');
  t.equal(server.stats.h2!.maxStreamsInFlight, 10, 'each session carried its 10 streams at once, never more');
  t.same(diagnoses(result.warnings), []);
});

t.test('phases: one connect (and TLS handshake) per session, ttfb as the server delays the head', async (t) => {
  for (const secure of [false, true]) {
    const server = await testServer(t, { h2: secure ? { tls: { key: localhostKey, cert: localhostCert } } : true, delayMs: 20 });
    await inSomeRun(t, 4, async (timing) => {
      server.reset();
      const result = await runLoad({ url: server.url, transport: 'h2', connections: 3, h2Streams: 2, amount: 60, ...(secure ? { tls: { ca: localhostCert } } : {}) });
      const { connect, tls, ttfb, receive } = result.phases;
      t.equal(result.requests.completed, 60);
      t.equal(connect.count, server.stats.h2!.sessions, `${secure ? 'h2' : 'h2c'}: one connect per session the server saw (${server.stats.h2!.sessions})`);
      t.equal(tls.count, secure ? server.stats.h2!.sessions : 0, 'one TLS handshake per h2 session, none on h2c');
      t.equal(ttfb.count, 60, 'one ttfb per response');
      t.equal(receive.count, 60, 'one receive per response');
      const applied = server.stats.appliedDelayMs;
      timing.hostKept(applied < 25, `the host let the server keep its delay (${applied.toFixed(3)} ms)`);
      // ttfb runs from the engine's send to the response's HEADERS, so it holds the server's delay
      // and whatever node:http2 (and, on h2, TLS) took to put the stream on the wire in this thread,
      // which the server shares: the bound below is the delay, above it the latency.
      timing.ok(ttfb.p50 >= 20 && ttfb.p50 <= result.latency.p50, `ttfb p50 ${ttfb.p50} ms: at least the server's 20 ms, within the latency p50 ${result.latency.p50} ms`);
      timing.ok(Math.abs(ttfb.mean + receive.mean - result.latency.mean) < 1, `ttfb ${ttfb.mean} + receive ${receive.mean} = latency ${result.latency.mean}`);
      timing.ok(receive.p50 < 2, `receive p50 ${receive.p50} ms: the body follows the head at once`);
    });
  }
});

t.test("streams are capped by the server's SETTINGS_MAX_CONCURRENT_STREAMS, and the cap is reported", async (t) => {
  const server = await testServer(t, { h2: { maxConcurrentStreams: 3 }, delayMs: 5 });
  const result = await runLoad({ url: server.url, transport: 'h2', connections: 2, h2Streams: 10, amount: 120 });
  t.equal(result.requests.completed, 120);
  t.equal(server.stats.requests, 120);
  t.equal(server.stats.h2!.maxStreamsInFlight, 3, 'at most 3 in flight on a session, as the server allows');
  t.equal(result.errors.total, 0, 'nothing refused: the idle lanes sent nothing');
  const capped = result.warnings.find((warning) => warning.code === 'H2_STREAMS_CAPPED');
  t.match(capped?.message, /allows 3 concurrent streams per session .* h2Streams was 10/);
});

t.test('RST_STREAM is counted once per stream, by its error code; REFUSED_STREAM is sent again once', async (t) => {
  const refused = await testServer(t, { h2: { resetEvery: 3, resetCode: 7 } });
  const retried = await runLoad({ url: refused.url, transport: 'h2', connections: 1, h2Streams: 1, amount: 30 });
  // Every third stream is refused and goes again as the next one: 30 requests in 44 streams.
  t.equal(refused.stats.h2!.streams, 44, 'REFUSED_STREAM: 44 streams reached the server');
  t.equal(refused.stats.h2!.resets, 14);
  t.same(retried.errors.byCode, {}, 'REFUSED_STREAM: each refused request answered when sent again');
  t.equal(retried.requests.sent, 30);
  t.equal(retried.requests.retried, 14);
  t.equal(retried.requests.completed, 30);
  t.equal(refused.stats.requests, 30, 'the server processed each request once');
  t.equal(refused.stats.h2!.sessions, 1, 'a refusal ends the stream, not the session: sent again on the same one');
  for (const [resetCode, name, retry] of [[7, 'H2_RST_REFUSED_STREAM', false], [11, 'H2_RST_ENHANCE_YOUR_CALM', true]] as const) {
    const server = await testServer(t, { h2: { resetEvery: 3, resetCode } });
    const result = await runLoad({ url: server.url, transport: 'h2', connections: 1, h2Streams: 1, amount: 30, retry });
    t.equal(server.stats.h2!.streams, 30, `${name}, retry ${retry}: exactly 30 streams reached the server`);
    t.equal(server.stats.h2!.resets, 10);
    t.same(result.errors.byCode, { [name]: 10 }, `${name}: each reset counted once`);
    t.equal(result.requests.retried, 0);
    t.equal(result.requests.completed, 20);
    t.equal(server.stats.requests, 20);
    t.equal(server.stats.h2!.sessions, 1, 'a reset ends the stream, not the session');
  }
});

t.test('GOAWAY: requests above its last stream id go again on a new session, or with retry: false are counted once', async (t) => {
  const server = await testServer(t, { h2: { goawayAfter: 5 } });
  const result = await runLoad({ url: server.url, transport: 'h2', connections: 1, h2Streams: 10, amount: 10 });
  t.equal(result.requests.sent, 10);
  t.equal(result.requests.retried, 5, 'the 5 above the last id went again');
  t.equal(result.requests.completed, 10);
  t.same(result.errors.byCode, {});
  t.equal(server.stats.statusCodes['200'], 10, 'the server answered each request once');
  t.equal(server.stats.h2!.streams, 15, '10 streams, then the 5 unanswered on a new session');
  t.equal(server.stats.h2!.sessions, 2);

  const noRetry = await testServer(t, { h2: { goawayAfter: 5 } });
  const counted = await runLoad({ url: noRetry.url, transport: 'h2', connections: 1, h2Streams: 10, amount: 10, retry: false });
  t.equal(noRetry.stats.h2!.goaways, 1);
  t.equal(counted.requests.sent, 10);
  t.equal(noRetry.stats.h2!.streams, 10, 'no request was sent twice');
  t.equal(counted.requests.completed, 5, 'the 5 streams up to the last id were answered');
  t.equal(counted.requests.retried, 0);
  t.equal(noRetry.stats.statusCodes['200'], 5);
  t.same(counted.errors.byCode, { H2_GOAWAY: 5 }, 'the 5 above it counted once each');
});

t.test('a timeout resets its stream alone; the session carries on', async (t) => {
  const server = await testServer(t, { h2: true, delayMs: 400 });
  const result = await runLoad({ url: server.url, transport: 'h2', connections: 1, h2Streams: 2, duration: 300, timeout: 100 });
  t.ok(result.errors.byCode.TIMEOUT! >= 2, `timeouts: ${result.errors.byCode.TIMEOUT}`);
  t.same(Object.keys(result.errors.byCode), ['TIMEOUT']);
  t.equal(result.requests.completed, 0);
  t.equal(server.stats.h2!.sessions, 1, 'cancelled streams did not cost the session');
});

t.test('keepAlive: false opens one session per request', async (t) => {
  const server = await testServer(t, { h2: true });
  const result = await runLoad({ url: server.url, transport: 'h2', connections: 2, amount: 20, keepAlive: false });
  t.equal(result.requests.completed, 20);
  t.equal(server.stats.h2!.sessions, 20);
  t.equal(server.stats.requests, 20);
});

t.test('rate, checks, thresholds and workers work over h2', async (t) => {
  const server = await testServer(t, { h2: true });
  const paced = await runLoad({ url: server.url, transport: 'h2', connections: 2, h2Streams: 5, rate: 200, duration: 1000, expect: { status: 200, body: 'ok' }, thresholds: { 'errors.rate': '< 0.01' } });
  t.equal(paced.requests.sent, server.stats.requests, 'every request sent reached the server');
  t.ok(paced.requests.sent >= 190 && paced.requests.sent <= 200, `rate 200 for 1 s sent ${paced.requests.sent}`);
  t.equal(paced.checks?.failed, 0);
  t.equal(paced.checks?.passed, 2 * paced.requests.completed, 'status and body checked on every response');
  t.equal(paced.ok, true);

  const failing = await runLoad({ url: server.url, transport: 'h2', amount: 10, connections: 1, expect: { status: 201 } });
  t.equal(failing.checks?.failed, 10);

  server.reset();
  const sharded = await runLoad({ url: server.url, transport: 'h2', connections: 4, h2Streams: 5, workers: 2, amount: 200 });
  t.equal(sharded.requests.completed, 200);
  t.equal(server.stats.requests, 200);
  t.equal(server.stats.h2!.sessions, 4);
});

t.test('TLS certificates are verified by default', async (t) => {
  const server = await testServer(t, { h2: { tls: { key: localhostKey, cert: localhostCert } } });
  t.match(server.url, /^https:/);
  const rejected = await runLoad({ url: server.url, transport: 'h2', connections: 1, duration: 300 });
  t.equal(rejected.requests.completed, 0);
  t.ok(rejected.errors.byCode.DEPTH_ZERO_SELF_SIGNED_CERT! > 0, `a self-signed certificate is refused: ${JSON.stringify(rejected.errors.byCode)}`);
  t.equal(server.stats.requests, 0);

  const trusted = await runLoad({ url: server.url, transport: 'h2', connections: 2, h2Streams: 2, amount: 40, tls: { ca: localhostCert } });
  t.equal(trusted.requests.completed, 40, 'accepted with its ca given');
  const insecure = await runLoad({ url: server.url, transport: 'h2', connections: 2, amount: 40, tls: { rejectUnauthorized: false } });
  t.equal(insecure.requests.completed, 40, 'accepted with rejectUnauthorized: false');
  t.equal(server.stats.requests, 80);
});

t.test('an HTTP/1.1-only server is a clear error, and the run ends on time', async (t) => {
  const plain = await testServer(t);
  await inSomeRun(t, 3, async (timing) => {
    const startedAt = performance.now();
    const result = await runLoad({ url: plain.url, transport: 'h2', connections: 2, duration: 500 });
    const tookMs = performance.now() - startedAt;
    timing.ok(tookMs < 2500, `ended on time: ${Math.round(tookMs)} ms for a 500 ms run`);
    t.equal(result.requests.completed, 0);
    t.same(Object.keys(result.errors.byCode), ['H2_NOT_SUPPORTED']);
    t.ok(result.errors.byCode.H2_NOT_SUPPORTED! >= 2, 'from the first connections on');
    t.ok(result.warnings.some((warning) => warning.code === 'H2_NOT_SUPPORTED'));
  });

  const tlsServer = https.createServer({ key: localhostKey, cert: localhostCert }, (_request, response) => response.end('ok'));
  tlsServer.listen(0, '127.0.0.1');
  await once(tlsServer, 'listening');
  t.teardown(() => {
    tlsServer.closeAllConnections();
    tlsServer.close();
  });
  const { port } = tlsServer.address() as AddressInfo;
  const overTls = await runLoad({ url: `https://127.0.0.1:${port}/`, transport: 'h2', connections: 1, duration: 300, tls: { ca: localhostCert } });
  t.equal(overTls.requests.completed, 0);
  t.same(Object.keys(overTls.errors.byCode), ['H2_NOT_SUPPORTED'], 'ALPN did not pick h2');
});

t.test('a server that resets the connection before SETTINGS is counted as a reset, not as HTTP/1.1', async (t) => {
  const server = net.createServer((socket) => setTimeout(() => socket.resetAndDestroy(), 20));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;
  const result = await runLoad({ url: `http://127.0.0.1:${port}/`, transport: 'h2', connections: 1, duration: 200 });
  t.same(Object.keys(result.errors.byCode), ['ECONNRESET']);
  t.same(diagnoses(result.warnings).map((warning) => warning.code), ['NO_SUCCESS'], 'a run that failed, not H2_NOT_SUPPORTED');
});

t.test('streams belongs to h2, pipelining to HTTP/1.1', async (t) => {
  const url = 'http://127.0.0.1:1/';
  await t.rejects(runLoad({ url, transport: 'net', h2Streams: 4 }), SalvoOptionError);
  await t.rejects(runLoad({ url, transport: 'h2', pipelining: 4 }), /give h2Streams/);
  await t.rejects(runLoad({ url, transport: 'h2', h2Streams: 0 }), RangeError);
  await t.rejects(runLoad({ url, transport: 'h2', h2Streams: 4, keepAlive: false }), /h2Streams 4 needs keepAlive/);
});
