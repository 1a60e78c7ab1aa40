// A journey's cookie jar (RFC 6265 matching through tough-cookie), redirect method rules (RFC 9110
// 15.4) and the `cookies` / `followRedirects` options, over plain data: no server.
import t from 'tap';
import { SessionState, loadSessionLibraries, redirectRequest } from '../../src/engine/session-state.js';
import { planSession } from '../../src/engine/session-options.js';
import type { ResolvedRequest } from '../../src/shared/exchange.js';
import type { Plan } from '../../src/shared/plan.js';

const post: ResolvedRequest = {
  method: 'POST',
  path: '/login',
  headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
  body: Buffer.from('a=1'),
};

t.test('redirect method rules', async (t) => {
  for (const status of [301, 302, 303]) {
    t.same(redirectRequest(status, post, '/home'), { method: 'GET', path: '/home', headers: { accept: 'text/html' }, body: undefined }, `${status}: a POST becomes a GET without its body`);
  }
  for (const status of [307, 308]) t.same(redirectRequest(status, post, '/again'), { ...post, path: '/again' }, `${status} keeps method and body`);
  const put = { ...post, method: 'PUT' };
  t.same(redirectRequest(302, put, '/x'), { ...put, path: '/x' }, '302 keeps a PUT (only a POST turns into a GET)');
  t.equal(redirectRequest(303, put, '/x').method, 'GET', '303 turns a PUT into a GET');
  const head = { method: 'HEAD', path: '/', headers: {}, body: undefined };
  t.equal(redirectRequest(303, head, '/x').method, 'HEAD', '303 keeps a HEAD');
});

const plan = (url: string, cookies: Plan['cookies'], followRedirects?: number): Plan => ({ url, cookies, followRedirects }) as Plan;
const get = (path: string): ResolvedRequest => ({ method: 'GET', path, headers: {}, body: undefined });
const answer = (setCookie: string[], location?: string) => ({
  headers: { 'set-cookie': setCookie.join('\n'), ...(location !== undefined ? { location } : {}) },
  body: Buffer.alloc(0),
});

t.test('cookie matching', async (t) => {
  await loadSessionLibraries({ cookies: 'journey' } as Plan);
  const session = new SessionState(plan('http://127.0.0.1:8080/', 'journey'));
  const cookieOn = (path: string, user = 0) => session.sending(0, user, get(path)).headers.cookie;
  session.begin(0);
  t.equal(cookieOn('/'), undefined, 'a new jar is empty');
  session.follow(0, 0, 200, answer([
    'root=1; Path=/',
    'app=2; Path=/app',
    'short=3; Max-Age=3600',
    'gone=4; Max-Age=0',
    'old=5; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    'foreign=6; Domain=example.com',
    'secure=7; Secure; HttpOnly; SameSite=Strict',
  ]));
  t.equal(cookieOn('/'), 'root=1; short=3; secure=7', 'expired, deleted and foreign ones dropped; Secure on loopback, HttpOnly and SameSite sent');
  t.equal(cookieOn('/app/page'), 'app=2; root=1; short=3; secure=7', 'the longer path first');
  t.equal(cookieOn('/application'), 'root=1; short=3; secure=7', '/app does not match /application');
  t.equal(cookieOn('/', 1), undefined, 'each connection has its own jar');
  session.follow(0, 0, 200, answer(['root=; Path=/; Max-Age=0']));
  t.equal(cookieOn('/'), 'short=3; secure=7', 'a cookie set again with Max-Age=0 is deleted');
  session.begin(0);
  t.equal(cookieOn('/'), undefined, 'a new journey has a new jar');
  const own = session.sending(0, 0, { ...get('/'), headers: { cookie: 'mine=1' } });
  t.equal(own.headers.cookie, 'mine=1', "a request's own cookie header is kept");

  const remote = new SessionState(plan('http://shop.example.test/', 'connection'));
  remote.begin(0);
  remote.sending(0, 0, get('/'));
  remote.follow(0, 0, 200, answer(['s=1; Secure', 'plain=1', 'wide=1; Domain=example.test']));
  remote.begin(0);
  t.equal(remote.sending(0, 0, get('/')).headers.cookie, 'plain=1; wide=1', 'no Secure cookie over plain http off loopback; kept across journeys with keep');
});

t.test('redirects: same origin only, relative Location, the limit, cookies on the hop', async (t) => {
  await loadSessionLibraries({ cookies: 'journey' } as Plan);
  const session = new SessionState(plan('http://127.0.0.1:8080/', 'journey', 2));
  session.sending(3, 0, post);
  const hop = session.follow(3, 0, 302, answer(['sid=abc; Path=/'], 'next?x=1'));
  t.same(hop, { method: 'GET', path: '/next?x=1', headers: { accept: 'text/html', cookie: 'sid=abc' }, body: undefined });
  t.equal(session.follow(3, 0, 200, answer([])), undefined, 'a 200 ends the chain');
  session.sending(3, 0, get('/a/b'));
  t.equal(session.follow(3, 0, 307, answer([], '../c'))?.path, '/c');
  t.equal(session.follow(3, 0, 308, answer([], 'http://127.0.0.1:8080/d'))?.path, '/d', 'an absolute Location on the same origin');
  t.equal(session.follow(3, 0, 301, answer([], '/e')), undefined, 'the third redirect is past followRedirects: 2');
  session.sending(3, 0, get('/'));
  t.equal(session.follow(3, 0, 302, answer([], 'http://127.0.0.1:8081/')), undefined, 'another port is another origin');
  t.equal(session.follow(3, 0, 302, answer([], 'https://127.0.0.1:8080/')), undefined, 'another scheme too');
  t.equal(session.follow(3, 0, 304, answer([], '/x')), undefined, 'a 304 is no redirect');
  t.equal(session.follow(3, 0, 302, { headers: {}, body: Buffer.alloc(0) }), undefined, 'nor one without a Location');
});

t.test('options', async (t) => {
  t.same(planSession({}), {});
  t.same(planSession({ cookies: true, followRedirects: 5 }), { cookies: 'journey', followRedirects: 5 });
  t.same(planSession({ cookies: { keep: true } }), { cookies: 'connection' });
  t.same(planSession({ cookies: {}, followRedirects: 0 }), { cookies: 'journey' });
  t.same(planSession({ cookies: false }), {});
  t.throws(() => planSession({ cookies: 'yes' as never }), { code: 'SALVO_INVALID_OPTION', option: 'cookies' });
  t.throws(() => planSession({ cookies: { keep: 1 } as never }), { code: 'SALVO_INVALID_OPTION', option: 'cookies.keep' });
  t.throws(() => planSession({ cookies: { kept: true } as never }), { message: /kept/ });
  t.throws(() => planSession({ followRedirects: -1 }), { code: 'SALVO_OUT_OF_RANGE', option: 'followRedirects' });
  t.throws(() => planSession({ followRedirects: 2.5 }), { code: 'SALVO_OUT_OF_RANGE', option: 'followRedirects' });
  t.throws(() => planSession({ followRedirects: 51 }), { message: /from 0 to 50/ });
  t.throws(() => planSession({ followRedirects: '3' as never }), { code: 'SALVO_INVALID_OPTION' });
  t.throws(() => planSession({ followRedirects: 1, stream: { format: 'sse' } }), { code: 'SALVO_INVALID_OPTION', option: 'followRedirects', mentions: ['stream'] });
  t.doesNotThrow(() => planSession({ followRedirects: 0, stream: { format: 'sse' } }), 'followRedirects: 0 is the default');
});
