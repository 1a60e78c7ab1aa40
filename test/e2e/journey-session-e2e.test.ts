// A journey against application servers nobody here wrote (express + express-session, fastify +
// @fastify/session + @fastify/cookie): log in with a form, follow its redirect, read a page that
// needs the session, log out. The server's session store and access log must agree with `byName`
// exactly, over 2 workers: express on each HTTP/1.1 transport, fastify on net.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import fastifyCookie from '@fastify/cookie';
import fastifySession from '@fastify/session';
import express from 'express';
import session from 'express-session';
import Fastify from 'fastify';
import t, { type Test } from 'tap';
import { runLoad, type LoadResult, type TransportName } from '../../src/index.js';

interface App {
  url: string;
  /** Requests by `METHOD /path`, counted before any handler ran. */
  log: Record<string, number>;
  /** Sessions the store saved for the first time, and those it destroyed. */
  created: Set<string>;
  destroyed: number;
  /** Sessions still in the store. */
  left(): Promise<number>;
}

async function startExpress(t: Test): Promise<App> {
  const store = new session.MemoryStore();
  const created = new Set<string>();
  const left = () => new Promise<number>((resolve) => store.length((_error, length) => resolve(length ?? -1)));
  const app: App = { url: '', log: {}, created, destroyed: 0, left };
  const set = store.set.bind(store);
  store.set = (sid, data, callback) => {
    created.add(sid);
    set(sid, data, callback);
  };
  const destroy = store.destroy.bind(store);
  store.destroy = (sid, callback) => {
    app.destroyed++;
    destroy(sid, callback);
  };
  const server = express()
    .use((req, _res, next) => {
      const key = `${req.method} ${req.path}`;
      app.log[key] = (app.log[key] ?? 0) + 1;
      next();
    })
    .use(session({ store, secret: 'journey', resave: false, saveUninitialized: false }))
    .use(express.urlencoded({ extended: false }))
    .post('/login', (req, res) => {
      const body = req.body as { user?: string; password?: string };
      if (body.user !== 'ada' || body.password !== 'secret') return void res.status(403).send('no');
      (req.session as unknown as { user: string }).user = body.user;
      res.redirect('/home'); // 302: the POST becomes a GET
    })
    .get('/home', (req, res) => {
      const user = (req.session as unknown as { user?: string }).user;
      if (user === undefined) return void res.status(401).send('log in first');
      res.send(`hello ${user}`);
    })
    .post('/logout', (req, res) => req.session.destroy(() => res.redirect(303, '/')))
    .get('/', (_req, res) => void res.send('welcome'))
    .listen(0, '127.0.0.1');
  await once(server, 'listening');
  server.keepAliveTimeout = 60_000;
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  app.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return app;
}

/** Log in, follow the redirect, the session's page, log out and follow that redirect: each journey. */
async function runJourneys(app: App, transport: TransportName): Promise<LoadResult> {
  return runLoad({
    url: app.url,
    transport,
    connections: 4,
    workers: 2,
    amount: JOURNEYS * 3,
    cookies: true,
    followRedirects: 2,
    expect: { status: 200 },
    requests: [
      { name: 'login', method: 'POST', path: '/login', form: { user: 'ada', password: 'secret' } },
      { name: 'home', method: 'GET', path: '/home' },
      { name: 'logout', method: 'POST', path: '/logout' },
    ],
  });
}

async function assertAgree(t: Test, app: App, result: LoadResult): Promise<void> {
  const { login, home, logout } = result.byName!;
  t.equal(result.workers, 2);
  t.same(result.statusCodes, { 200: JOURNEYS * 3 }, 'every step ends in a 200: the session held');
  t.same(result.errors.total, 0);
  t.equal(login!.requests.completed, JOURNEYS);
  t.equal(login!.requests.redirects, JOURNEYS, 'one hop per login');
  t.equal(home!.requests.completed, JOURNEYS);
  t.equal(home!.requests.redirects, undefined, 'no hop from the session page');
  t.equal(logout!.requests.redirects, JOURNEYS);
  t.equal(result.requests.redirects, JOURNEYS * 2);
  t.same(
    app.log,
    {
      'POST /login': login!.requests.completed,
      'GET /home': home!.requests.completed + login!.requests.redirects!,
      'POST /logout': logout!.requests.completed,
      'GET /': logout!.requests.redirects,
    },
    "the server's access log",
  );
  t.equal(app.created.size, login!.requests.completed, 'one session per journey, none on a later one');
  t.equal(app.destroyed, logout!.requests.completed, 'each logout destroyed its session');
  t.equal(await app.left(), 0, 'no session left in the store');
}

async function startFastify(t: Test): Promise<App> {
  const sessions = new Map<string, unknown>();
  const store = new fastifySession.MemoryStore(sessions as never);
  const created = new Set<string>();
  const app: App = { url: '', log: {}, created, destroyed: 0, left: async () => sessions.size };
  const set = store.set.bind(store);
  store.set = (sid, data, callback) => {
    created.add(sid);
    set(sid, data, callback);
  };
  const destroy = store.destroy.bind(store);
  store.destroy = (sid, callback) => {
    app.destroyed++;
    destroy(sid, callback);
  };
  const server = Fastify();
  server.addHook('onRequest', async (request) => {
    const key = `${request.method} ${request.url.split('?')[0]}`;
    app.log[key] = (app.log[key] ?? 0) + 1;
  });
  server.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  await server.register(fastifyCookie);
  await server.register(fastifySession, { secret: 'a secret of at least thirty-two characters', store, saveUninitialized: false, cookie: { secure: false } });
  server.post('/login', async (request, reply) => {
    const body = request.body as { user?: string; password?: string };
    if (body.user !== 'ada' || body.password !== 'secret') return reply.code(403).send('no');
    request.session.set('user' as never, body.user as never);
    return reply.redirect('/home', 302);
  });
  server.get('/home', async (request, reply) => {
    const user = request.session.get('user' as never) as string | undefined;
    if (user === undefined) return reply.code(401).send('log in first');
    return `hello ${user}`;
  });
  server.post('/logout', async (request, reply) => {
    await request.session.destroy();
    return reply.redirect('/', 303);
  });
  server.get('/', async () => 'welcome');
  app.url = await server.listen({ port: 0, host: '127.0.0.1' });
  app.url += '/';
  t.teardown(() => server.close());
  return app;
}

const JOURNEYS = 24;

for (const transport of ['net', 'undici', 'http'] as TransportName[]) {
  t.test(`express, ${transport}: login, redirect, session page, logout over 2 workers`, async (t) => {
    const app = await startExpress(t);
    await assertAgree(t, app, await runJourneys(app, transport));
  });
}

t.test('fastify, net: login, redirect, session page, logout over 2 workers', async (t) => {
  const app = await startFastify(t);
  await assertAgree(t, app, await runJourneys(app, 'net'));
});
