// Response headers in `onResponse`, the cookie jar's rules and redirects, on every transport (h2
// too) against a node:http / node:http2 server that logs what it was asked.
import { once } from 'node:events';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { formatResult, runLoad, type RequestSpec, type TransportName } from '../../src/index.js';

type Request = http.IncomingMessage | http2.Http2ServerRequest;
type Response = http.ServerResponse | http2.Http2ServerResponse;

function handler(log: Record<string, number>) {
  return (req: Request, res: Response): void => {
    const path = req.url!;
    log[`${req.method} ${path}`] = (log[`${req.method} ${path}`] ?? 0) + 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const redirect = (status: number, location: string): void => {
        res.writeHead(status, { location });
        res.end();
      };
      if (path === '/set') {
        res.setHeader('set-cookie', [
          'a=1; Path=/',
          'b=2; Path=/deep; HttpOnly; SameSite=Strict',
          'gone=1; Path=/; Max-Age=0',
          'old=1; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT',
          'elsewhere=1; Path=/; Domain=example.com',
        ]);
        res.setHeader('x-multi', ['1', '2']);
        res.end('set');
      } else if (path === '/echo' || path === '/deep/echo') res.end(req.headers.cookie ?? '');
      else if (path === '/deep/r307') redirect(307, '../echo-body');
      else if (path === '/echo-body') res.end(`${req.method} ${Buffer.concat(chunks).toString()}`);
      else if (path === '/loop') redirect(302, '/loop');
      else if (path === '/away') redirect(302, 'http://127.0.0.2:9/away');
      else if (path === '/hop-cookie') {
        res.writeHead(303, { location: '/echo', 'set-cookie': 'hop=1; Path=/' });
        res.end();
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  };
}

async function startServer(t: Test, transport: TransportName): Promise<{ url: string; log: Record<string, number> }> {
  const log: Record<string, number> = {};
  const server = transport === 'h2' ? http2.createServer(handler(log)) : http.createServer(handler(log));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    if (server instanceof http.Server) server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, log };
}

const JOURNEYS = 5;

/** The journey: each step's hook keeps what it was given, by step name. */
function journey(seen: Record<string, Array<{ status: number; body: string; headers: Record<string, string> }>>): RequestSpec[] {
  const keep = (name: string): RequestSpec['onResponse'] => (status, body, _context, headers) => {
    (seen[name] ??= []).push({ status, body: body.toString(), headers });
  };
  return [
    { name: 'first', path: '/echo', onResponse: keep('first') },
    { name: 'set', path: '/set', onResponse: keep('set') },
    { name: 'echo', path: '/echo', onResponse: keep('echo') },
    { name: 'deep', path: '/deep/echo', onResponse: keep('deep') },
    { name: 'post307', method: 'POST', path: '/deep/r307', body: 'hello', onResponse: keep('post307') },
    { name: 'loop', path: '/loop', onResponse: keep('loop') },
    { name: 'away', path: '/away', onResponse: keep('away') },
    { name: 'hop', path: '/hop-cookie', onResponse: keep('hop') },
  ];
}

for (const transport of ['net', 'undici', 'http', 'h2'] as TransportName[]) {
  t.test(`${transport}: headers in hooks, the jar's rules, redirects`, async (t) => {
    const server = await startServer(t, transport);
    const seen: Parameters<typeof journey>[0] = {};
    const result = await runLoad({ url: server.url, transport, connections: 1, amount: JOURNEYS * 8, cookies: true, followRedirects: 3, requests: journey(seen) });
    t.equal(result.errors.total, 0);
    const set = seen.set![0]!;
    t.same(set.headers['set-cookie']!.split('\n').length, 5, 'set-cookie lines joined with a line feed, Expires comma and all');
    t.equal(set.headers['x-multi'], '1, 2', 'other repeats joined with a comma');
    t.same(new Set(seen.first!.map((r) => r.body)), new Set(['']), 'a new jar at each journey');
    t.same(new Set(seen.echo!.map((r) => r.body)), new Set(['a=1']), 'no expired, deleted, foreign-domain or other-path cookie');
    t.same(new Set(seen.deep!.map((r) => r.body)), new Set(['b=2; a=1']), 'the longer path first, HttpOnly and SameSite sent');
    t.same(new Set(seen.post307!.map((r) => `${r.status} ${r.body}`)), new Set(['200 POST hello']), '307 keeps method and body');
    t.same(new Set(seen.loop!.map((r) => r.status)), new Set([302]), 'the last redirect past the limit is the answer');
    t.same(new Set(seen.away!.map((r) => r.status)), new Set([302]), 'another origin is not followed');
    t.same(new Set(seen.hop!.map((r) => r.body)), new Set(['a=1; hop=1']), "a redirect's cookie reaches its next hop");
    t.same(result.byName!.loop!.requests.redirects, JOURNEYS * 3);
    t.same(result.byName!.post307!.requests.redirects, JOURNEYS);
    t.same(result.byName!.away!.requests.redirects, undefined);
    t.same(result.requests.redirects, JOURNEYS * 5);
    t.match(formatResult(result), `${JOURNEYS * 5} redirects followed`, 'the summary says how many');
    t.same(result.statusCodes, { 200: JOURNEYS * 6, 302: JOURNEYS * 2 });
    t.same(
      server.log,
      {
        'GET /echo': JOURNEYS * 3,
        'GET /set': JOURNEYS,
        'GET /deep/echo': JOURNEYS,
        'POST /deep/r307': JOURNEYS,
        'POST /echo-body': JOURNEYS,
        'GET /loop': JOURNEYS * 4,
        'GET /away': JOURNEYS,
        'GET /hop-cookie': JOURNEYS,
      },
      "the server's log: each hop once",
    );
  });
}

t.test('cookies: { keep: true } keeps a connection\'s jar across its journeys', async (t) => {
  const server = await startServer(t, 'net');
  const seen: Parameters<typeof journey>[0] = {};
  await runLoad({ url: server.url, connections: 1, amount: JOURNEYS * 8, cookies: { keep: true }, followRedirects: 3, requests: journey(seen) });
  t.same(seen.first!.map((r) => r.body), ['', ...Array<string>(JOURNEYS - 1).fill('a=1; hop=1')]);
});

t.test('without cookies nor redirects, a hook still gets the headers', async (t) => {
  const server = await startServer(t, 'net');
  let headers: Record<string, string> = {};
  const result = await runLoad({ url: server.url, amount: 2, connections: 1, requests: [{ path: '/loop', onResponse: (_s, _b, _c, h) => void (headers = h) }] });
  t.equal(headers.location, '/loop');
  t.same(result.statusCodes, { 302: 2 });
  t.equal(result.requests.redirects, undefined);
});
