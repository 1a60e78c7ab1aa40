// A journey against an application server nobody here wrote (express + express-session): log in with
// a form, follow its redirect, read a page that needs the session, log out. The server's session
// store and access log must agree with `byName` exactly, on each HTTP/1.1 transport, over 2 workers.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import session from 'express-session';
import t, { type Test } from 'tap';
import { runLoad, type TransportName } from '../../src/index.js';

interface App {
  url: string;
  /** Requests by `METHOD /path`, counted before any handler ran. */
  log: Record<string, number>;
  /** Sessions the store saved for the first time, and those it destroyed. */
  created: Set<string>;
  destroyed: number;
  store: session.MemoryStore;
}

async function startApp(t: Test): Promise<App> {
  const store = new session.MemoryStore();
  const created = new Set<string>();
  const app: App = { url: '', log: {}, created, destroyed: 0, store };
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

const JOURNEYS = 24;
const TRANSPORTS: TransportName[] = ['net', 'undici', 'http'];

for (const transport of TRANSPORTS) {
  t.test(`${transport}: login, redirect, session page, logout over 2 workers`, async (t) => {
    const app = await startApp(t);
    const result = await runLoad({
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
    const { login, home, logout } = result.byName!;
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
    const left = await new Promise<number>((resolve) => app.store.length((_error, length) => resolve(length ?? -1)));
    t.equal(left, 0, 'no session left in the store');
  });
}
