// The net transport's bare TCP handles (raw-tcp.ts): what net-transport.test.ts cannot see from the
// outside. That file covers the wire behaviour on them; net-socket-path.test.ts runs it on sockets.
import net from 'node:net';
import t, { type Test } from 'tap';
import { runLoad } from '../../src/index.js';
import { PhaseRecorder } from '../../src/stats/phases.js';
import { rawTcpSupported } from '../../src/transports/raw-tcp.js';
import { Lane, type Transport, type TransportConfig } from '../../src/transports/transport.js';
import type { ResolvedRequest } from '../../src/shared/exchange.js';
import { netTransport, rawServer, RecordingSink, refusedPort } from '../fixtures/raw-http-server.js';

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
const GET: ResolvedRequest = { method: 'GET', path: '/', headers: {}, body: undefined };

class CountingPhases extends PhaseRecorder {
  connects: number[] = [];
  override recordConnection(connectMs: number, tlsMs: number | undefined): void {
    this.connects.push(connectMs);
    super.recordConnection(connectMs, tlsMs);
  }
}

function transport(t: Test, url: string, sink: RecordingSink, overrides: Partial<TransportConfig> = {}): Transport<Buffer> {
  return netTransport(t, url, sink, { keepAlive: false, ...overrides });
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('this Node has the bindings (Node 20, 22 and 24 do)', async (t) => {
  t.ok(rawTcpSupported());
});

t.test('one connect time per connection, none for a refused one', async (t) => {
  const server = await rawServer(t, (socket) => socket.write(OK));
  const sink = new RecordingSink();
  const phases = new CountingPhases();
  const client = transport(t, `http://127.0.0.1:${server.port}/`, sink, { phases });
  const request = client.prepare(GET);
  let sent = 0;
  sink.afterEach = (lane) => {
    if (++sent < 4) client.send(lane, request);
  };
  client.send(new Lane(0, 0), request);
  await sink.until(4);
  t.equal(sink.responses.length, 4);
  t.equal(phases.connects.length, 4);
  t.ok(phases.connects.every((ms) => ms >= 0 && ms < 1000), `${phases.connects}`);
  t.equal(client.openConnections(), 0);

  const refusedSink = new RecordingSink();
  const refusedPhases = new CountingPhases();
  const refused = transport(t, `http://127.0.0.1:${await refusedPort()}/`, refusedSink, { phases: refusedPhases });
  refused.send(new Lane(0, 0), refused.prepare(GET));
  await refusedSink.until(1);
  t.same(refusedSink.events, [{ lane: 0, code: 'ECONNREFUSED' }]);
  t.equal(refusedPhases.connects.length, 0);
});

t.test('cancelled while connecting: one error; the connect that completes later is dropped', async (t) => {
  const server = await rawServer(t, (socket) => socket.write(OK));
  const sink = new RecordingSink();
  const client = transport(t, `http://127.0.0.1:${server.port}/`, sink);
  const lane = new Lane(0, 0);
  client.send(lane, client.prepare(GET));
  client.cancel(lane, 'TIMEOUT');
  t.same(sink.events, [{ lane: 0, code: 'TIMEOUT' }], 'reported before cancel returns');
  await delay(100);
  t.same(sink.events, [{ lane: 0, code: 'TIMEOUT' }], 'nothing after it');
  t.equal(server.requests.length, 0, 'the request never went out');
  t.equal(client.openConnections(), 0);
  // The slot opens a new connection for the next request.
  client.send(lane, client.prepare(GET));
  await sink.until(2);
  t.same(sink.events[1], { lane: 0, status: 200, bytes: OK.length });
});

t.test('close while connecting and while waiting for a response resolves, reporting nothing', async (t) => {
  const server = await rawServer(t, () => {});
  const sink = new RecordingSink();
  const client = transport(t, `http://127.0.0.1:${server.port}/`, sink, { connections: 2 });
  client.send(new Lane(0, 0), client.prepare(GET));
  client.send(new Lane(1, 1), client.prepare(GET));
  await client.close();
  await delay(50);
  t.same(sink.events, []);
  t.equal(client.openConnections(), 0);
});

t.test('keep-alive without pipelining: connect ahead, then requests on the same connection', async (t) => {
  const server = await rawServer(t, (socket) => socket.write(OK));
  const sink = new RecordingSink();
  const phases = new CountingPhases();
  const client = transport(t, `http://127.0.0.1:${server.port}/`, sink, { keepAlive: true, connections: 3, phases });
  await client.connect(3);
  t.equal(client.openConnections(), 3);
  t.equal(phases.connects.length, 3);
  const request = client.prepare(GET);
  let sent = 0;
  sink.afterEach = (lane) => {
    if (++sent < 10) client.send(lane, request);
  };
  client.send(new Lane(0, 0), request);
  await sink.until(10);
  t.equal(sink.responses.length, 10);
  t.equal(server.connections, 3, 'no connection but the three opened ahead');
});

t.test('an IPv6 literal connects (connect6)', async (t) => {
  const probe = net.createServer();
  const listening = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => resolve(true));
  });
  if (!listening) {
    t.pass('no IPv6 loopback here: nothing to check');
    return;
  }
  probe.on('connection', (socket) => socket.once('data', () => socket.end(OK)));
  t.teardown(() => probe.close());
  const { port } = probe.address() as net.AddressInfo;
  const result = await runLoad({ url: `http://[::1]:${port}/`, transport: 'net', connections: 2, amount: 10, keepAlive: false });
  t.equal(result.requests.completed, 10);
  t.equal(result.errors.total, 0);
});

t.test('a host name with one address (localhost here) and an unresolvable one', async (t) => {
  const server = await rawServer(t, (socket) => socket.write(OK));
  const result = await runLoad({ url: `http://localhost:${server.port}/`, transport: 'net', connections: 2, amount: 10, keepAlive: false });
  t.equal(result.requests.completed, 10);
  t.equal(result.errors.total, 0);
  const missing = await runLoad({ url: 'http://salvo-no-such-host.invalid/', transport: 'net', connections: 1, amount: 2, keepAlive: false });
  t.equal(missing.errors.total, 2);
  t.ok(Object.keys(missing.errors.byCode).every((code) => /^E/.test(code)), JSON.stringify(missing.errors));
});
