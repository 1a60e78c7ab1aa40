// Fail fast (issue 38): an `amount` run against a server that is down (refused, a certificate not
// trusted, nothing answering) ends at once (or after one `timeout`) with every request counted,
// instead of each lane waiting out a backoff of up to 1 s per request; a server that fails some
// requests still gets every one of them.
import { once } from 'node:events';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { runLoad, type TransportName, type Warning } from '../../src/index.js';
import { localhostCert, localhostKey, rawServer } from '../fixtures/raw-http-server.js';
import { inSomeRun } from '../fixtures/timing.js';

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

/** The count of requests failed unsent that the SERVER_DOWN warning gives. */
function failedUnsent(warnings: Warning[]): number | undefined {
  const message = warnings.find((warning) => warning.code === 'SERVER_DOWN')?.message;
  return message === undefined ? undefined : Number(/^(\d+) requests/.exec(message)?.[1]);
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
      const unsent = failedUnsent(result.warnings);
      t.ok(unsent !== undefined && unsent >= 900 && unsent < 1000, `${unsent} failed unsent, the rest tried (a few per connection)`);
      t.match(result.warnings.find((w) => w.code === 'SERVER_DOWN')?.message, /under ECONNREFUSED/);
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

  // undici takes a 100 Continue to a request that did not ask for one as a bad response at once
  // (UND_ERR_SOCKET): to it the server answers every request, broken (below).
  if (transport !== 'undici') t.test(`${transport}: a server that answers 100 Continue and then nothing: one timeout`, async (t) => {
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
      // The rest never left: the warning says how many, and under which code.
      t.equal(failedUnsent(result.warnings), 300 - requests, 'the warning counts every request not sent');
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

// A server that answers every request, if with a broken response, is not down: every request goes
// out and is counted under its own code, however many fail in a row.
const BROKEN: Array<{ name: string; answer: string }> = [
  { name: 'a response that is not HTTP', answer: 'garbage\r\n\r\n' },
  { name: '100 Continue, then a broken head', answer: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 2x0 OK\r\n\r\n' },
];

t.test('undici: a server that answers 100 Continue and then nothing answers each request, broken', async (t) => {
  const server = await rawServer(t, (socket) => socket.write('HTTP/1.1 100 Continue\r\n\r\n'));
  const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, transport: 'undici', connections: 4, amount: 16, timeout: 5000 });
  t.same(result.errors, { total: 16, byCode: { UND_ERR_SOCKET: 16 } }, "undici's bad response, at once");
  t.equal(server.requests.length, 16, 'every request reached the server');
  t.notOk(result.warnings.some((w) => w.code === 'SERVER_DOWN'));
});
for (const transport of TRANSPORTS) {
  for (const { name, answer } of BROKEN) {
    t.test(`${transport}: ${name} on every request is an answer, not a server down`, async (t) => {
      const server = await rawServer(t, (socket) => socket.end(answer));
      const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, transport, connections: 4, amount: 16, timeout: 5000 });
      t.comment(JSON.stringify(result.errors.byCode));
      t.equal(result.errors.total, 16, 'each request an error');
      t.equal(result.requests.sent, 16);
      t.equal(server.requests.length, 16, 'every request reached the server');
      t.notOk(result.warnings.some((w) => w.code === 'SERVER_DOWN'), 'no request failed unsent');
    });
  }
}

// ... but a server that answers nothing else, 50 requests in a row on every connection, is not worth
// waiting for either: the rest of the amount fails at once under the code of its last error.
const UNDICI_100 = { transport: 'undici' as const, name: 'only 100 Continue', answer: 'HTTP/1.1 100 Continue\r\n\r\n', code: 'UND_ERR_SOCKET' };
for (const { transport, name, answer, code } of [UNDICI_100, ...TRANSPORTS.map((transport) => ({ transport, name: 'not HTTP', answer: 'garbage\r\n\r\n', code: undefined }))]) {
  t.test(`${transport}: a server answering ${name} to all of 1,000 requests on 10 connections ends in seconds`, async (t) => {
    const server = await rawServer(t, (socket) => (code === undefined ? socket.end(answer) : socket.write(answer)));
    const [result, ms] = await timed(() => runLoad({ url: `http://127.0.0.1:${server.port}/`, transport, connections: 10, amount: 1000, timeout: 5000 }));
    t.equal(result.errors.total, 1000, `every request counted: ${JSON.stringify(result.errors.byCode)}`);
    t.equal(Object.keys(result.errors.byCode).length, 1, 'under one code');
    if (code !== undefined) t.same(Object.keys(result.errors.byCode), [code]);
    t.equal(result.requests.sent, 1000);
    const unsent = failedUnsent(result.warnings);
    t.equal(server.requests.length, 1000 - unsent!, `the server saw the ${1000 - unsent!} sent, at least 50: ${server.requests.length}`);
    t.ok(server.requests.length >= 50, 'at least 50 answered with an error before');
    t.match(result.warnings.find((w) => w.code === 'SERVER_DOWN')!.message, /with an error and nothing else/);
    t.ok(ms < 15_000, `ended in ${(ms / 1000).toFixed(1)} s, not about 94 s of backoff`);
  });
}

t.test('net: a connection lost in the middle of every response is an answer, not a server down', async (t) => {
  const server = await rawServer(t, (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart', () => socket.resetAndDestroy());
  });
  const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, transport: 'net', connections: 4, amount: 16, timeout: 5000 });
  t.comment(JSON.stringify(result.errors.byCode));
  t.equal(result.errors.total, 16);
  t.equal(server.requests.length, 16, 'every request reached the server');
  t.notOk(result.warnings.some((w) => w.code === 'SERVER_DOWN'));
});
