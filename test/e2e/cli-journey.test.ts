// The journey flags end to end: `salvo URL --flows FILE --feed FILE --feed-once --cookies
// --follow-redirects N` against express-session, each CSV row logged in or browsing exactly once and
// the JSON result's byName agreeing with the server; and what each flag becomes (parseRunFlags).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import { UsageError } from '../../src/cli/command.js';
import { parseRunFlags } from '../../src/cli/run-flags.js';
import type { LoadResult } from '../../src/index.js';
import { runSalvo } from '../fixtures/cli.js';
import { startApp } from '../fixtures/session-app.js';

const url = 'http://127.0.0.1:3000/';

t.test('each journey flag becomes its runLoad option', async (t) => {
  t.same(parseRunFlags([url, '--cookies', '--follow-redirects', '3', '--flows', 'f.mjs', '--feed', 'u.csv', '-d', '5s']).options, {
    url,
    cookies: true,
    followRedirects: 3,
    flows: resolve('f.mjs'),
    feed: resolve('u.csv'),
    duration: '5s',
  });
  t.same(parseRunFlags([url, '--feed', 'u.jsonl', '--feed-once']).options, { url, feed: { file: resolve('u.jsonl'), reuse: false }, duration: 10_000 });
  t.throws(() => parseRunFlags([url, '--feed-once']), UsageError, '--feed-once needs --feed');
  t.throws(() => parseRunFlags([url, '--follow-redirects', 'many']), { name: 'UsageError', message: /--follow-redirects must be an integer/ });
  t.throws(() => parseRunFlags([url, '--follow-redirects', '-1']), UsageError);
});

t.test('salvo URL --flows --feed --feed-once --cookies --follow-redirects: sessions as the server saw them', async (t) => {
  const app = await startApp(t);
  const dir = mkdtempSync(join(tmpdir(), 'salvo-cli-journey-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const rows = 40;
  writeFileSync(join(dir, 'users.csv'), `user\n${Array.from({ length: rows }, (_, i) => `u${i}`).join('\n')}\n`);
  const run = await runSalvo([
    app.url, '-c', '4', '-d', '30s', '--json', '--cookies', '--follow-redirects', '2',
    '--flows', 'test/fixtures/workers/session-flows.mjs', '--feed', join(dir, 'users.csv'), '--feed-once',
  ]);
  t.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout) as LoadResult;
  const completed = (name: string) => result.byName?.[name]?.requests.completed ?? 0;
  t.same([...app.logins, ...app.browsed].sort(), Array.from({ length: rows }, (_, i) => `u${i}`).sort(), 'each row once');
  t.equal(app.logins.length, completed('member/login') + completed('stay/login'));
  t.equal(result.requests.redirects, app.logins.length + completed('member/logout'), 'each login and logout followed its redirect');
  t.same(result.statusCodes, { 200: result.requests.completed - completed('guest/home'), 401: completed('guest/home') });
  t.equal(app.inherited, 0, "no login arrived with an earlier journey's session");
  t.equal(app.created.size, app.logins.length, 'one session per login');
  t.equal(app.destroyed, completed('member/logout'));
});
