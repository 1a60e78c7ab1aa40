// WebSocket network trouble is counted, never thrown, and the run still ends on time: servers that
// close connections, send garbage frames, stop answering, never finish the handshake, or are not there.
import t, { type Test } from 'tap';
import https from 'node:https';
import net from 'node:net';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { WebSocketServer } from 'ws';
import { runLoad } from '../../src/index.js';
import { createTestServer, type CreateTestServerOptions } from '../../src/testing/index.js';
import { localhostCert, localhostKey, refusedPort } from '../fixtures/raw-http-server.js';

/** Grace after the duration: closing handshakes (1 s at most) and the stop itself. */
const ON_TIME_MS = 1500;

async function wsServer(t: Test, options: CreateTestServerOptions) {
  const server = await createTestServer(options);
  t.teardown(() => server.close());
  return server;
}

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; elapsedMs: number }> {
  const started = performance.now();
  const result = await run();
  return { result, elapsedMs: performance.now() - started };
}

t.test('a server that closes connections: close codes counted, connections reopened', async (t) => {
  const server = await wsServer(t, { websocket: { closeAfter: 5, closeCode: 4001 } });
  const result = await runLoad({ url: server.url, connections: 3, duration: 500, websocket: { message: 'x' } });
  const closes = server.stats.websocket!.closed;
  t.ok(closes >= 6, `the server closed ${closes} connections`);
  // Closes still in their closing handshake when the run ended are not seen by the client in time.
  const counted = result.websocket!.closeCodes['4001'] ?? 0;
  t.ok(counted >= closes - 3 && counted <= closes, `client counted ${counted} closes with code 4001 of ${closes}`);
  // A reconnection the server accepted as the run ended may not have finished its handshake at the client.
  const timed = result.phases.connect.count;
  t.ok(timed <= server.stats.connections && timed >= server.stats.connections - 3, `every reconnection is a timed connect: ${timed} of ${server.stats.connections}`);
  t.ok(server.stats.connections > 3, 'connections were reopened');
  // The server closes on the 5th message without answering it: the close is not an error, the message
  // left without its reply is, one per close (it was dropped uncounted: sent, never received nor failed).
  t.same(result.errors.byCode, counted > 0 ? { ECONNCLOSED: counted } : {}, `one ECONNCLOSED for each of the ${counted} closes`);
});

t.test('garbage frames are counted by code, the connection reopened', async (t) => {
  const server = await wsServer(t, { websocket: { garbageAfter: 3 } });
  const result = await runLoad({ url: server.url, connections: 2, duration: 500, websocket: { message: 'x' } });
  const garbage = server.stats.websocket!.garbage;
  t.ok(garbage >= 4, `the server wrote ${garbage} garbage frames`);
  const invalid = result.errors.byCode.WS_ERR_INVALID_OPCODE ?? 0;
  t.ok(invalid >= garbage - 2 && invalid <= garbage, `counted ${invalid} invalid-opcode errors of ${garbage}`);
  t.ok(Object.keys(result.websocket!.closeCodes).length > 0, `the failed connections' closes: ${JSON.stringify(result.websocket!.closeCodes)}`);
  t.ok(result.messages!.received > 0);
});

t.test('a plain ws server that stops answering: replies time out, the run ends on time', async (t) => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(wss, 'listening');
  t.teardown(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  let answered = 0;
  const received: number[] = [];
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      received.push(1);
      // Answers the first three messages, then never again.
      if (answered < 3) {
        answered++;
        ws.send(data);
      }
    });
  });
  const url = `ws://127.0.0.1:${(wss.address() as net.AddressInfo).port}/`;
  const { result, elapsedMs } = await timed(() => runLoad({ url, connections: 1, duration: 1000, timeout: 200, websocket: { message: 'x' } }));
  t.ok(elapsedMs < 1000 + ON_TIME_MS, `ended on time (${Math.round(elapsedMs)} ms)`);
  t.equal(result.messages!.received, 3, 'the three replies');
  const timeouts = result.errors.byCode.TIMEOUT ?? 0;
  t.ok(timeouts >= 3 && timeouts <= 5, `a reply timed out every 200 ms: ${timeouts}`);
  t.equal(received.length, result.messages!.sent, 'the server got every message sent');
});

t.test('a server that never finishes the handshake: HANDSHAKE_TIMEOUT, ends on time', async (t) => {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => sockets.add(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  const url = `ws://127.0.0.1:${(server.address() as net.AddressInfo).port}/`;
  const { result, elapsedMs } = await timed(() => runLoad({ url, connections: 2, duration: 600, timeout: 200, websocket: { message: 'x' } }));
  t.ok(elapsedMs < 200 + 600 + ON_TIME_MS, `ended on time (${Math.round(elapsedMs)} ms)`);
  t.ok((result.errors.byCode.HANDSHAKE_TIMEOUT ?? 0) >= 2, `handshake timeouts counted: ${JSON.stringify(result.errors.byCode)}`);
  t.equal(result.messages!.sent, 0);
});

t.test('a rejected upgrade and a refused port are counted', async (t) => {
  const http = await createTestServer({ status: 403 });
  t.teardown(() => http.close());
  const rejected = await runLoad({ url: http.url.replace('http:', 'ws:'), connections: 2, duration: 300, websocket: { message: 'x' } });
  t.ok((rejected.errors.byCode.HANDSHAKE_REJECTED ?? 0) >= 2, `rejections counted: ${JSON.stringify(rejected.errors.byCode)}`);
  t.ok((rejected.statusCodes['403'] ?? 0) >= 2, 'with their status');
  const port = await refusedPort();
  const { result, elapsedMs } = await timed(() => runLoad({ url: `ws://127.0.0.1:${port}/`, connections: 2, duration: 300, websocket: { message: 'x' } }));
  t.ok((result.errors.byCode.ECONNREFUSED ?? 0) >= 2, `refusals counted: ${JSON.stringify(result.errors.byCode)}`);
  t.ok(elapsedMs < 300 + ON_TIME_MS, `ended on time (${Math.round(elapsedMs)} ms)`);
});

t.test('amount: each failed connection attempt is one message of it, so a run nobody can connect to ends', async (t) => {
  // It reconnected with backoff forever: runLoad never resolved.
  const http = await createTestServer({ status: 403 });
  t.teardown(() => http.close());
  const rejected = await runLoad({ url: http.url.replace('http:', 'ws:'), connections: 2, amount: 10, websocket: { message: 'x' } });
  t.same(rejected.errors.byCode, { HANDSHAKE_REJECTED: 10 });
  t.same(rejected.statusCodes, { 403: 10 });
  t.equal(http.stats.requests, 10, 'the server saw exactly 10 upgrade requests');
  t.equal(rejected.messages!.sent, 0);
  const port = await refusedPort();
  const refused = await runLoad({ url: `ws://127.0.0.1:${port}/`, connections: 3, amount: 7, websocket: { message: 'x' } });
  t.same(refused.errors.byCode, { ECONNREFUSED: 7 });
});

t.test('abort ends a WebSocket run promptly with what it measured', async (t) => {
  const server = await wsServer(t, { websocket: true });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 300);
  const { result, elapsedMs } = await timed(() => runLoad({ url: server.url, connections: 2, duration: 10_000, signal: controller.signal, websocket: { message: 'x' } }));
  t.ok(result.aborted);
  t.ok(elapsedMs < 300 + ON_TIME_MS, `ended at the abort (${Math.round(elapsedMs)} ms)`);
  t.ok(result.messages!.received > 0);
});

t.test('abort while the handshakes hang ends the run, aborted, with nothing measured', async (t) => {
  // A server that accepts TCP and never answers the upgrade: the run used to wait for the first
  // connections for ever once aborted (their handshake timeout no longer settled them).
  const server = net.createServer(() => {});
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const { port } = server.address() as net.AddressInfo;
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const result = await runLoad({ url: `ws://127.0.0.1:${port}/`, connections: 2, duration: 10_000, timeout: 3000, signal: controller.signal, websocket: { message: 'x' } });
  t.equal(result.aborted, true);
  t.equal(result.messages!.sent, 0);
  t.equal(result.durationMs, 0);
});

t.test('wss: certificates are verified, TLS and the handshake are timed, headers reach the upgrade', async (t) => {
  const server = https.createServer({ key: localhostKey, cert: localhostCert });
  const wss = new WebSocketServer({ server });
  const upgradeHeaders: string[] = [];
  wss.on('connection', (ws, request) => {
    upgradeHeaders.push(String(request.headers['x-load']));
    ws.on('message', (data) => ws.send(data));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    wss.close();
    server.closeAllConnections();
    server.close();
  });
  const url = `wss://localhost:${(server.address() as net.AddressInfo).port}/`;
  const refused = await runLoad({ url, connections: 1, duration: 300, websocket: { message: 'x' } });
  t.equal(refused.messages!.received, 0, 'self-signed certificate rejected');
  t.ok(Object.keys(refused.errors.byCode).some((code) => /SELF_SIGNED|CERT/.test(code)), `certificate error code: ${JSON.stringify(refused.errors.byCode)}`);
  const trusted = await runLoad({ url, connections: 2, amount: 40, tls: { ca: localhostCert }, headers: { 'x-load': 'salvo' }, websocket: { message: 'x' } });
  t.equal(trusted.messages!.received, 40, 'works with the CA given');
  t.equal(trusted.phases.tls.count, 2, 'one TLS handshake per connection');
  t.ok(trusted.phases.tls.p50 > 0 && trusted.phases.handshake!.p50 > 0, 'TLS and the opening handshake timed apart');
  t.same(upgradeHeaders, ['salvo', 'salvo'], 'headers on the upgrade request');
});

t.test('a server that accepts and at once closes every connection: the reconnect backoff grows', async (t) => {
  // The backoff started over at each successful handshake: one connection made about 150 a second.
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(wss, 'listening');
  t.teardown(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  let handshakes = 0;
  wss.on('connection', (ws) => {
    handshakes++;
    ws.close(4002);
  });
  const url = `ws://127.0.0.1:${(wss.address() as net.AddressInfo).port}/`;
  const result = await runLoad({ url, connections: 1, duration: 1500, websocket: { message: 'x' } });
  // Backoff 5, 10, 20, ... 640 ms: at most 9 reconnects fit in 1.5 s after the first connection.
  t.ok(handshakes >= 2 && handshakes <= 10, `${handshakes} handshakes in 1.5 s from one connection`);
  // The last close may still be in its closing handshake as the run ends.
  const closes = result.websocket!.closeCodes['4002'] ?? 0;
  t.ok(closes >= handshakes - 1 && closes <= handshakes, `${closes} closes counted`);
});
