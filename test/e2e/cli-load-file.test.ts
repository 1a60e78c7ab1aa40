// `salvo run load.mjs`: a module whose default export is the options (or a function returning them),
// with flags beside it overriding them; exact counts at the server, per scenario and name.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { LoadResult } from '../../src/index.js';
import { runSalvo } from '../fixtures/cli.js';
import { testServer } from '../fixtures/test-server.js';

t.test('salvo run load.mjs runs the options a module exports; flags override them', async (t) => {
  const server = await testServer(t);
  const dir = await mkdtemp(join(tmpdir(), 'salvo-load-file-'));
  const file = join(dir, 'load.mjs');
  await writeFile(
    file,
    `export default () => ({
  url: ${JSON.stringify(server.url)},
  connections: 2,
  scenarios: {
    browse: { amount: 40, requests: [{ name: 'home', path: '/' }, { name: 'search', path: '/search?q=1' }] },
    checkout: { name: 'checkout', method: 'POST', body: { cart: 1 }, amount: 10 },
  },
  thresholds: { 'requests.completed{name:checkout}': '== 10', 'requests.completed{scenario:browse}': '== 40' },
});
`,
  );
  const run = await runSalvo(['run', file, '--json', '-q']);
  t.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout) as LoadResult;
  t.same(Object.keys(result.byScenario!), ['browse', 'checkout']);
  t.same(Object.fromEntries(Object.entries(result.byName!).map(([name, stats]) => [name, stats.requests.completed])), { home: 20, search: 20, checkout: 10 });
  t.equal(server.stats.requests, 50, 'the server saw every request of both scenarios');
  t.same(result.thresholds!.map((threshold) => threshold.passed), [true, true]);

  server.reset();
  const overridden = await runSalvo([file, '--json', '-q', '-c', '1', '--threshold', 'requests.completed{name:checkout}<5']);
  t.equal(overridden.code, 1, 'a flag\'s threshold replaces the file\'s on the same metric, and fails');
  const again = JSON.parse(overridden.stdout) as LoadResult;
  t.equal(again.byScenario!.checkout!.connections, 1, '-c overrides the file\'s connections');
  t.same(again.thresholds!.map((threshold) => `${threshold.metric} ${threshold.expression} ${threshold.passed}`), [
    'requests.completed{name:checkout} <5 false',
    'requests.completed{scenario:browse} == 40 true',
  ]);
});

t.test('a load file that exports no options is a usage error', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'salvo-load-file-'));
  const file = join(dir, 'empty.mjs');
  await writeFile(file, 'export const nothing = 1;\n');
  const run = await runSalvo(['run', file, '-q']);
  t.equal(run.code, 2);
  t.match(run.stderr, /empty\.mjs must export the options as its default export/);
  const missing = await runSalvo(['run', join(dir, 'missing.mjs'), '-q']);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /cannot load .*missing\.mjs/);
});
