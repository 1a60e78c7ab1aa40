// result.phases on every transport: timings against a server with known delays, counts against
// what the server saw, merging over workers, and the JSON round trip.
import t from 'tap';
import { runLoad, type TransportName } from '../../src/index.js';
import { decodeHistogram } from '../../src/stats/histogram.js';
import { localhostCert, localhostKey, rawServer } from '../fixtures/raw-http-server.js';
import { separateServer } from '../fixtures/separate-server.js';
import { inSomeRun } from '../fixtures/timing.js';

const TRANSPORTS: TransportName[] = ['net', 'undici', 'http'];
const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

for (const transport of TRANSPORTS) {
  t.test(`${transport}: ttfb and receive against a server that waits 20 ms, then 30 ms before the body`, async (t) => {
    const server = await separateServer(t, 20, 30);
    // As in the latency test: net's own parser is held to 1 ms, undici's and node:http's receive paths to 2.
    const tolerance = transport === 'net' ? 1 : 2;
    // net writes on an open connection at once, so its phases add up to the latency exactly (to the
    // histograms' 3 digits); undici and node:http take a moment between send and write.
    const sumTolerance = transport === 'net' ? 0.2 : tolerance;
    await inSomeRun(t, 6, async (timing) => {
      const result = await runLoad({ url: server.url, transport, connections: 4, duration: 1000, warmup: 200 });
      const applied = await server.appliedDelayMs();
      timing.hostKept(applied < 25, `the host let the server keep its delay (${applied.toFixed(3)} ms)`);
      const { ttfb, receive, connect, tls } = result.phases;
      t.ok(result.requests.completed > 0, 'responses completed');
      t.equal(ttfb.count, result.requests.completed, 'one ttfb per measured response');
      t.equal(receive.count, result.requests.completed, 'one receive per measured response');
      t.equal(tls.count, 0, 'no TLS on http:');
      t.ok(connect.count >= 1 && connect.count <= 4, `connections opened: ${connect.count}`);
      t.notOk(result.warnings.some((w) => w.code === 'SERVER_NAGLE_DELAY'), 'a body sent 30 ms late is not taken for Nagle');
      timing.ok(ttfb.p50 >= 20 && ttfb.p50 - applied < tolerance, `ttfb p50 ${ttfb.p50} within ${tolerance} ms of the applied ${applied.toFixed(3)}`);
      timing.ok(receive.p50 >= 29.5 && receive.p50 < 30 + tolerance, `receive p50 ${receive.p50} within ${tolerance} ms of 30`);
      // Every measured response is written, waited for and received: the phases add up to its latency.
      timing.ok(Math.abs(ttfb.mean + receive.mean - result.latency.mean) < sumTolerance, `ttfb ${ttfb.mean} + receive ${receive.mean} = latency ${result.latency.mean}`);
    });
  });

  for (const secure of [false, true]) {
    for (const keepAlive of [true, false]) {
      t.test(`${transport}: connect.count is the connections the server saw (${secure ? 'https' : 'http'}, keepAlive ${keepAlive})`, async (t) => {
        const server = await rawServer(t, (socket) => void socket.write(OK), secure ? { tls: { key: localhostKey, cert: localhostCert } } : {});
        const url = `${secure ? 'https' : 'http'}://127.0.0.1:${server.port}/`;
        const result = await runLoad({ url, transport, connections: 3, amount: 60, keepAlive, ...(secure ? { tls: { ca: localhostCert } } : {}) });
        t.equal(result.requests.completed, 60);
        t.equal(server.connections, keepAlive ? Math.min(3, server.connections) : 60, `server saw ${server.connections} connections`);
        t.equal(result.phases.connect.count, server.connections, 'one connect per connection the server accepted');
        t.equal(result.phases.tls.count, secure ? server.connections : 0, 'one TLS handshake per https connection');
        t.equal(result.phases.ttfb.count, 60);
        t.ok(result.phases.connect.max < 1000 && result.phases.connect.min >= 0, `connect ${result.phases.connect.min}..${result.phases.connect.max} ms`);
        if (secure) t.ok(result.phases.tls.min > 0, `a handshake takes time: ${result.phases.tls.min} ms`);
      });
    }
  }
}

t.test('phases merge over workers: every connection and response of every worker', async (t) => {
  const server = await rawServer(t, (socket) => void socket.write(OK));
  const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, connections: 4, workers: 2, amount: 100, keepAlive: false });
  t.equal(server.connections, 100);
  t.equal(result.phases.connect.count, 100, 'connects of both workers');
  t.equal(result.phases.ttfb.count, 100);
  t.equal(result.phases.receive.count, 100);
});

t.test('phases survive the JSON round trip, with histograms that hold their counts', async (t) => {
  const server = await rawServer(t, (socket) => void socket.write(OK));
  const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, connections: 2, amount: 50 });
  const copy = JSON.parse(JSON.stringify(result)) as typeof result;
  t.same(copy.phases, result.phases);
  for (const phase of ['connect', 'tls', 'ttfb', 'receive'] as const) {
    const histogram = decodeHistogram(copy.phaseHistograms[phase]);
    t.equal(histogram.totalCount, result.phases[phase].count, `${phase}: histogram count`);
    t.equal(histogram.maxValue / 1000, result.phases[phase].max, `${phase}: histogram max`);
    histogram.destroy();
  }
});
