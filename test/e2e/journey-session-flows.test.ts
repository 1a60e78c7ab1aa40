// cookies and followRedirects with flows, feed and think (journey mode) against express +
// express-session, over 2 workers: each feed row logs in (or browses) exactly once, the server's
// session store and access log agree with byName exactly, and no journey on a lane inherits the
// session of the journey before it (the jar begins at each journey's first step).
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { runLoad, type TransportName } from '../../src/index.js';
import { startApp } from '../fixtures/session-app.js';

const ROWS = 90;

const flows = fileURLToPath(new URL('../fixtures/workers/session-flows.mjs', import.meta.url));
const users = Array.from({ length: ROWS }, (_, i) => ({ user: `u${i}` }));

// A closed loop on net (each lane walks its journeys one after another), and rate mode on undici
// (a journey takes whichever lane is free, so a lane's journeys are any flows' and any rows').
const runs: { transport: TransportName; rate?: number }[] = [{ transport: 'net' }, { transport: 'undici', rate: 150 }];

for (const { transport, rate } of runs) {
  t.test(`${transport}${rate === undefined ? '' : ', rate mode'}: flows of logins, logouts and guests, a feed of users and think time, with cookies and redirects`, async (t) => {
    const app = await startApp(t);
    const result = await runLoad({
      url: app.url,
      transport,
      ...(rate === undefined ? {} : { rate }),
      connections: 6,
      workers: 2,
      duration: '30s',
      cookies: true,
      followRedirects: 2,
      feed: { rows: users, reuse: false },
      flows,
    });
    const by = result.byName!;
    const completed = (name: string) => by[name]?.requests.completed ?? 0;
    const redirects = (name: string) => by[name]?.requests.redirects ?? 0;
    t.same(Object.keys(by).sort(), ['guest/browse', 'guest/home', 'member/home', 'member/login', 'member/logout', 'stay/home', 'stay/login']);
    t.equal(result.errors.total, 0);
    t.ok(result.durationMs < 30_000, 'the run ended with the feed');
    t.ok(result.warnings.some((warning) => warning.code === 'FEED_EXHAUSTED'));
    // One journey per row: each journey's first step is sent once.
    const journeys = completed('member/login') + completed('stay/login') + completed('guest/browse');
    t.equal(journeys, ROWS, 'one journey per row');
    t.ok(completed('member/login') > 0 && completed('stay/login') > 0 && completed('guest/browse') > 0, 'every flow ran');
    const seen = [...app.logins, ...app.browsed].sort();
    t.same(seen, users.map((row) => row.user).sort(), 'each row logged in or browsed exactly once');
    t.equal(app.logins.length, completed('member/login') + completed('stay/login'), "the server's logins are byName's");
    t.equal(app.browsed.length, completed('guest/browse'));
    t.equal(redirects('member/login'), completed('member/login'), 'each login followed its redirect');
    t.equal(redirects('stay/login'), completed('stay/login'));
    t.equal(redirects('member/logout'), completed('member/logout'));
    t.equal(completed('member/logout'), completed('member/login'), 'every member journey ran to its logout');
    t.equal(completed('stay/home'), completed('stay/login'));
    t.equal(completed('guest/home'), completed('guest/browse'));
    t.same(
      result.statusCodes,
      { 200: result.requests.completed - completed('guest/home'), 401: completed('guest/home') },
      "a guest's /home finds no session (no 409: no journey read another user's session)",
    );
    t.same(by['guest/home']!.statusCodes, { 401: completed('guest/home') });
    t.same(
      app.log,
      {
        'POST /login': app.logins.length,
        'GET /home': completed('member/home') + completed('stay/home') + completed('guest/home') + redirects('member/login') + redirects('stay/login'),
        'POST /logout': completed('member/logout'),
        'GET /': redirects('member/logout'),
        'GET /browse': completed('guest/browse'),
      },
      "the server's access log",
    );
    t.equal(app.inherited, 0, "no login arrived with an earlier journey's session");
    t.equal(app.created.size, app.logins.length, 'one new session per login');
    t.equal(app.destroyed, completed('member/logout'), 'each logout destroyed its session');
    t.equal(await app.left(), completed('stay/login'), "the sessions left are the stay flow's");
  });
}

t.test("a hook's failure in a flow is reported under the flow's step, as the options name it", async (t) => {
  const app = await startApp(t);
  const result = await runLoad({
    url: app.url,
    duration: '200ms',
    connections: 1,
    flows: [
      { name: 'a', requests: [{ path: '/' }] },
      {
        name: 'b',
        requests: [
          { path: '/' },
          {
            path: '/',
            setupRequest: () => {
              throw new Error('boom');
            },
          },
        ],
      },
      { name: 'c', requests: [{ path: '/', setupRequest: (request) => ({ ...request, body: 5 as never }) }] },
    ],
  });
  const where = new Set((result.errors.samples ?? []).map((sample) => sample.where));
  t.same([...where].sort(), ['flows[1].requests[1].setupRequest', 'flows[2].requests[0].setupRequest']);
  t.ok(
    (result.errors.samples ?? []).some((sample) => sample.message.startsWith('flows[2].requests[0].body must be')),
    "a bad body from a hook names the flow's step",
  );
});
