// `requests`: each connection walks the sequence in order and repeats it; hooks carry values forward.
import http from 'node:http';
import type net from 'node:net';
import { once } from 'node:events';
import t, { type Test } from 'tap';
import { runLoad, type RequestSpec, type TransportName } from '../../src/index.js';
import type { TestRequest } from '../../src/testing/index.js';
import { testServer } from '../fixtures/test-server.js';

const TRANSPORTS: TransportName[] = ['net', 'undici', 'http'];

const SEQUENCE: RequestSpec[] = [
  { path: '/a' },
  { method: 'POST', path: '/b', body: { name: 'salvo' } },
  { method: 'PUT', path: '/c?x=1', headers: { 'x-step': 'c' }, body: 'plain' },
];
const STEPS = ['GET /a', 'POST /b', 'PUT /c?x=1'];

async function recordingServer(t: Test) {
  const seen: TestRequest[] = [];
  const server = await testServer(t, { onRequest: (request) => seen.push(request) });
  return { server, seen };
}

/** The requests each server-side connection saw, as `METHOD path`, in arrival order. */
function stepsByConnection(seen: TestRequest[]): Map<number, string[]> {
  const byConnection = new Map<number, string[]>();
  for (const { connection, method, path } of seen) {
    const steps = byConnection.get(connection) ?? [];
    steps.push(`${method} ${path}`);
    byConnection.set(connection, steps);
  }
  return byConnection;
}

for (const pipelining of [1, 4]) {
  t.test(`net, pipelining ${pipelining}: every connection sends the sequence in order`, async (t) => {
    const { server, seen } = await recordingServer(t);
    const result = await runLoad({ url: server.url, connections: 3, pipelining, amount: 601, requests: SEQUENCE });
    t.equal(result.requests.completed, 601);
    t.equal(seen.length, 601);
    const byConnection = stepsByConnection(seen);
    t.equal(byConnection.size, 3, 'three connections');
    for (const [connection, steps] of byConnection) {
      const expected = steps.map((_, i) => STEPS[i % STEPS.length]);
      t.same(steps, expected, `connection ${connection} walked ${steps.length} requests in order`);
    }
    const b = seen.find((r) => r.path === '/b')!;
    t.equal(b.body.toString(), '{"name":"salvo"}', 'object body sent as JSON');
    t.equal(b.headers['content-type'], 'application/json');
    t.equal(b.headers['content-length'], '16');
    const c = seen.find((r) => r.path === '/c?x=1')!;
    t.equal(c.body.toString(), 'plain');
    t.equal(c.headers['x-step'], 'c');
    t.equal(seen.find((r) => r.path === '/a')!.headers['x-step'], undefined, 'headers stay with their request');
  });
}

for (const transport of TRANSPORTS) {
  t.test(`${transport}: the sequence's requests are sent in its proportions`, async (t) => {
    const { server, seen } = await recordingServer(t);
    const connections = 4;
    await runLoad({ url: server.url, transport, connections, amount: 400, requests: SEQUENCE });
    const count = (step: string) => seen.filter((r) => `${r.method} ${r.path}` === step).length;
    const [a, b, c] = STEPS.map(count) as [number, number, number];
    // Each connection reserves whole walks of a, b, c: only the last walk is cut short.
    t.same([a, b, c], [134, 133, 133]);
  });
}

t.test('a closed-loop amount splits evenly over the steps when connections run at different speeds', async (t) => {
  // Each connection walked its own way to the amount, cut anywhere (1004 / 999 / 997 for 3,000 over
  // three steps). Here one connection's first answer takes 200 ms: it sent one /a while the other sent
  // the other 61 requests, 22 / 20 / 20.
  let accepted = 0;
  const seen: string[] = [];
  const server = http.createServer((request, response) => {
    seen.push(request.url!);
    const socket = request.socket as net.Socket & { slowFirst?: boolean };
    const delayMs = socket.slowFirst === true ? 200 : 0;
    socket.slowFirst = false;
    setTimeout(() => response.end('ok'), delayMs);
  });
  server.on('connection', (socket: net.Socket & { slowFirst?: boolean }) => (socket.slowFirst = accepted++ % 2 === 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const requests = [{ path: '/a' }, { path: '/b' }, { path: '/c' }];
  for (const transport of TRANSPORTS) {
    seen.length = 0;
    const result = await runLoad({ url, transport, connections: 2, amount: 62, requests });
    t.equal(result.requests.completed, 62, `${transport}: completed`);
    const counts = ['/a', '/b', '/c'].map((path) => seen.filter((seenPath) => seenPath === path).length);
    t.same(counts, [21, 21, 20], `${transport}: /a /b /c`);
  }
});

/**
 * A login/data server: `POST /login` answers `{"token":"..."}` with a fresh token for the client's
 * `x-conn`, and `GET /data` must carry the latest token issued to that `x-conn`.
 */
async function tokenServer(t: Test) {
  const state = { logins: 0, data: 0, rejected: 0 };
  const latest = new Map<string, string>();
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const conn = String(request.headers['x-conn']);
      if (request.url === '/login') {
        const token = `token-${conn}-${++state.logins}`;
        latest.set(conn, token);
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ token }));
        return;
      }
      state.data++;
      const ok = latest.has(conn) && request.headers.authorization === `Bearer ${latest.get(conn)}`;
      if (!ok) state.rejected++;
      response.statusCode = ok ? 200 : 401;
      response.end(ok ? 'data' : 'bad token');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, state };
}

for (const transport of TRANSPORTS) {
  t.test(`${transport}: onResponse carries a token into the next request's setupRequest`, async (t) => {
    const { url, state } = await tokenServer(t);
    let setups = 0;
    let dataResponses = 0;
    const requests: RequestSpec[] = [
      {
        method: 'POST',
        path: '/login',
        setupRequest: (request, context) => {
          request.headers = { ...request.headers, 'x-conn': String(context.connection) };
        },
        onResponse: (_status, body, context) => {
          context.values.token = (JSON.parse(body.toString()) as { token: string }).token;
        },
      },
      {
        path: '/data',
        setupRequest: (request, context) => {
          setups++;
          request.headers = {
            ...request.headers,
            'x-conn': String(context.connection),
            authorization: `Bearer ${String(context.values.token)}`,
          };
        },
        onResponse: (status) => {
          if (status === 200) dataResponses++;
        },
      },
    ];
    const result = await runLoad({ url, transport, connections: 5, amount: 500, requests });
    t.equal(result.errors.total, 0);
    t.equal(state.logins + state.data, 500);
    // Each connection walks login, data whole: 250 of each.
    t.same([state.logins, state.data], [250, 250]);
    t.equal(state.rejected, 0, 'every data request carried its connection\'s latest token');
    t.same(result.statusCodes, { 200: 500 });
    t.equal(setups, state.data, 'setupRequest ran once per send');
    t.equal(dataResponses, state.data, 'onResponse saw every response');
  });
}

t.test('context.iteration counts the walks of each connection', async (t) => {
  const { server, seen } = await recordingServer(t);
  const tagged = (path: string): RequestSpec => ({
    path,
    setupRequest: (request, context) => ({ ...request, headers: { 'x-iteration': String(context.iteration) } }),
  });
  await runLoad({ url: server.url, connections: 2, amount: 40, requests: [tagged('/first'), tagged('/second')] });
  for (const connection of [0, 1]) {
    const iterations = seen.filter((r) => r.connection === connection).map((r) => Number(r.headers['x-iteration']));
    t.same(iterations, iterations.map((_, i) => Math.floor(i / 2)), `connection ${connection}: 0, 0, 1, 1, ...`);
  }
});

t.test('a static request is sent as planned when another one is dynamic', async (t) => {
  const { server, seen } = await recordingServer(t);
  let n = 0;
  await runLoad({
    url: server.url,
    connections: 1,
    amount: 6,
    headers: { 'x-run': 'r' },
    requests: [{ path: '/static' }, { path: '/dynamic', setupRequest: (request) => ({ ...request, path: `/dynamic/${++n}` }) }],
  });
  t.same(seen.map((r) => r.path), ['/static', '/dynamic/1', '/static', '/dynamic/2', '/static', '/dynamic/3']);
  t.ok(seen.every((r) => r.headers['x-run'] === 'r'), 'the run\'s headers go with every request');
});

t.test('a hook that throws is counted, and the run goes on', async (t) => {
  const { server, seen } = await recordingServer(t);
  let calls = 0;
  const result = await runLoad({
    url: server.url,
    connections: 1,
    amount: 20,
    requests: [
      { path: '/ok', onResponse: () => { throw new Error('boom'); } },
      { path: '/setup', setupRequest: () => { if (++calls % 2 === 0) throw new Error('boom'); } },
    ],
  });
  t.equal(result.errors.byCode.ON_RESPONSE_FAILED, 10, 'every /ok response');
  t.equal(result.errors.byCode.SETUP_REQUEST_FAILED, 5, 'every second /setup');
  t.equal(seen.filter((r) => r.path === '/setup').length, 5, 'a failed setup sends nothing');
  t.equal(seen.filter((r) => r.path === '/ok').length, 10);
  // A response whose hook threw is an error, not also a completion; a failed setup wrote nothing,
  // yet it is a request sent that ended in an error, so every request sent ends in one count.
  t.same([result.requests.sent, result.bytes.sent > 0], [20, true]);
  t.equal(result.requests.completed, 5, 'the /setup responses');
  t.same(result.statusCodes, { 200: 5 });
  t.equal(result.requests.completed + result.errors.total + result.requests.unfinished, result.requests.sent);
});

t.test('an onResponse hook written against the wrong signature: its responses are errors, counted once', async (t) => {
  // `onResponse(res, ctx)` reading `res.status` on the status number threw on every response, which
  // was counted in both `completed` and `errors`: 2,000 completed and 1,002 errors of 2,000 sent.
  const { server } = await recordingServer(t);
  for (const transport of TRANSPORTS) {
    const result = await runLoad({
      url: server.url,
      transport,
      connections: 1,
      amount: 40,
      requests: [
        { path: '/a' },
        { path: '/b', onResponse: (res: unknown) => void (res as { status: { toFixed(): string } }).status.toFixed() },
      ],
    });
    t.equal(result.requests.sent, 40, `${transport}: sent`);
    t.equal(result.requests.completed, 20, `${transport}: the /a responses completed`);
    t.same(result.errors.byCode, { ON_RESPONSE_FAILED: 20 }, `${transport}: the /b responses are errors`);
    t.equal(result.requests.completed + result.errors.total, result.requests.sent, `${transport}: each request ends once`);
    t.ok(result.bytes.received > 0 && result.latency.max > 0, `${transport}: bytes and latency of the completed ones`);
  }
});

t.test('credentials in the url are sent as Basic authentication, unless the headers carry their own', async (t) => {
  const { server, seen } = await recordingServer(t);
  const withCredentials = server.url.replace('http://', 'http://us%65r:p%40ss@');
  for (const transport of TRANSPORTS) {
    seen.length = 0;
    await runLoad({ url: withCredentials, transport, connections: 1, amount: 2 });
    t.same(seen.map((request) => request.headers.authorization), Array(2).fill(`Basic ${Buffer.from('user:p@ss').toString('base64')}`), transport);
    seen.length = 0;
    await runLoad({ url: withCredentials, transport, connections: 1, amount: 1, headers: { Authorization: 'Bearer t' } });
    t.same(seen.map((request) => request.headers.authorization), ['Bearer t'], `${transport}: the header wins`);
  }
});
