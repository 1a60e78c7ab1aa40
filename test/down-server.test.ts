// Fail fast (issue 38): an `amount` run against a server that is down (refused, a certificate not
// trusted, nothing answering) ends at once (or after one `timeout`) with every request counted,
// instead of each lane waiting out a backoff of up to 1 s per request; a server that fails some
// requests still gets every one of them.
import { once } from 'node:events';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { runLoad, type TransportName } from '../src/index.js';
import { localhostCert, localhostKey, rawServer } from './fixtures/raw-http-server.js';
import { inSomeRun } from './fixtures/timing.js';

const TRANSPORTS: TransportName[] = ['net', 'undici', 'http'];

async function listening(t: Test, server: net.Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on: one a server had, closed again. */
async function refusedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await run();
  return [result, performance.now() - start];
}

for (const transport of TRANSPORTS) {
  t.test(`${transport}: a refused port, 1,000 requests on 10 connections`, async (t) => {
    const port = await refusedPort();
    await inSomeRun(t, 3, async (timing) => {
      const [result, ms] = await timed(() => runLoad({ url: `http://127.0.0.1:${port}/`, transport, connections: 10, amount: 1000 }));
      t.same(result.errors, { total: 1000, byCode: { ECONNREFUSED: 1000 } }, 'every request counted');
      t.equal(result.requests.sent, 1000, 'each in sent with its error');
      t.equal(result.bytes.sent, 0, 'no byte written');
      timing.ok(ms < 3000, `ended in ${Math.round(ms)} ms (93 s before)`);
    });
  });

  t.test(`${transport}: a certificate not trusted`, async (t) => {
    let seen = 0;
    const server = https.createServer({ key: localhostKey, cert: localhostCert }, (_request, response) => {
      seen++;
      response.end('ok');
    });
    const port = await listening(t, server);
    await inSomeRun(t, 3, async (timing) => {
      const [result, ms] = await timed(() => runLoad({ url: `https://127.0.0.1:${port}/`, transport, connections: 10, amount: 1000 }));
      t.same(result.errors, { total: 1000, byCode: { DEPTH_ZERO_SELF_SIGNED_CERT: 1000 } }, 'every request counted');
      t.equal(result.requests.sent, 1000, 'each in sent with its error');
      t.equal(result.bytes.sent, 0, 'no byte written');
      t.equal(seen, 0);
      timing.ok(ms < 3000, `ended in ${Math.round(ms)} ms (43.5 s before)`);
    });
  });

  t.test(`${transport}: a server that answers 100 Continue and then nothing: one timeout`, async (t) => {
    let requests = 0;
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.on('data', () => {
        requests++;
        socket.write('HTTP/1.1 100 Continue\r\n\r\n');
      });
    });
    t.teardown(() => server.close());
    const port = await listening(t, server);
    await inSomeRun(t, 3, async (timing) => {
      requests = 0;
      const [result, ms] = await timed(() => runLoad({ url: `http://127.0.0.1:${port}/`, transport, connections: 10, amount: 300, timeout: 1000 }));
      t.equal(result.errors.total, 300, `every request counted: ${JSON.stringify(result.errors.byCode)}`);
      t.equal(result.requests.completed, 0);
      t.equal(result.requests.sent, 300, 'each in sent with its error');
      t.ok(requests <= 30, `${requests} requests reached the server: a few per connection`);
      timing.ok(ms < 4000, `ended in ${Math.round(ms)} ms, about one timeout`);
    });
  });

  t.test(`${transport}: a server that resets every other request is not down: every request goes out`, async (t) => {
    let answered = 0;
    const server = await rawServer(t, (socket) => {
      if (answered++ % 2 === 1) socket.resetAndDestroy();
      else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    // POSTs: none is sent again, so the server sees each request once.
    const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, transport, method: 'POST', body: 'x', connections: 4, amount: 200, timeout: 5000 });
    t.comment(`completed ${result.requests.completed}, errors ${JSON.stringify(result.errors.byCode)}`);
    t.equal(result.requests.completed + result.errors.total, 200);
    t.ok(result.errors.total > 0);
    t.equal(server.requests.length, 200, 'every request reached the server');
    t.equal(result.requests.sent, 200);
  });
}
