// Request names end to end, against a real nginx that logs each request's URI: every name's counts
// are what nginx processed on its paths, over worker threads, over merged segments, on net and
// undici; and the names add up to the run.
import t, { type Test } from 'tap';
import { compareResults, mergeResults, runLoad, type LoadResult, type ProgressEvent } from '../../src/index.js';
import type { RequestSpec } from '../../src/shared/load-options.js';
import { startNginx } from '../fixtures/nginx.js';

const AMOUNT = 900;

/** Access-log lines per path (the URI without its query; the log's fourth field). */
function linesByPath(lines: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of lines) {
    const path = line.split(' ')[3]!.split('?')[0]!;
    counts[path] = (counts[path] ?? 0) + 1;
  }
  return counts;
}

function namedCounts(result: LoadResult, field: 'sent' | 'completed'): Record<string, number> {
  return Object.fromEntries(Object.entries(result.byName ?? {}).map(([name, stats]) => [name, stats.requests[field]]));
}

/** The names add up to the run: counts, statuses, bytes and latency samples. */
function addsUp(t: Test, result: LoadResult): void {
  const names = Object.values(result.byName ?? {});
  const sum = (read: (stats: (typeof names)[number]) => number) => names.reduce((total, stats) => total + read(stats), 0);
  t.equal(sum((s) => s.requests.sent), result.requests.sent, 'names add up to requests.sent');
  t.equal(sum((s) => s.requests.completed), result.requests.completed, 'and to requests.completed');
  t.equal(sum((s) => s.errors.total), result.errors.total, 'and to errors.total');
  t.equal(sum((s) => s.bytes.sent), result.bytes.sent, 'and to bytes.sent');
  t.equal(sum((s) => s.bytes.received), result.bytes.received, 'and to bytes.received');
  t.equal(sum((s) => s.phases.ttfb.count), result.phases.ttfb.count, 'and to the ttfb samples');
  for (const entry of result.timeline) {
    const seconds = Object.values(entry.byName ?? {});
    t.equal(seconds.reduce((total, s) => total + s.completed, 0), entry.completed, `second ${entry.second}: names add up to its completed`);
  }
}

// Three names: one with a query (its default name drops it), one named, one whose setupRequest moves
// it to per-id paths under the step's name.
let id = 0;
const REQUESTS: RequestSpec[] = [
  { path: '/catalogue?page=2' },
  { name: 'checkout', method: 'POST', path: '/checkout', body: '{"cart":1}' },
  { name: 'user', path: '/users/0', setupRequest: (request) => ({ ...request, path: `/users/${id++ % 7}` }) },
];
const userPaths = (byPath: Record<string, number>) => Object.entries(byPath).filter(([path]) => path.startsWith('/users/')).reduce((total, [, n]) => total + n, 0);

t.test('per-name counts equal what nginx processed per path', async (t) => {
  const nginx = await startNginx(t, { keepaliveRequests: 100_000 });

  for (const transport of ['net', 'undici'] as const) {
    t.test(`${transport}, in process`, async (t) => {
      nginx.clearLog();
      const result = await runLoad({ url: nginx.http1Url, transport, connections: 6, amount: AMOUNT, requests: REQUESTS, expect: { status: 200 } });
      const byPath = linesByPath((await nginx.processed()).lines);
      t.same(Object.keys(result.byName!), ['GET /catalogue', 'checkout', 'user'], 'default name without the query; a setupRequest keeps the step name');
      t.same(namedCounts(result, 'completed'), { 'GET /catalogue': byPath['/catalogue'], checkout: byPath['/checkout'], user: userPaths(byPath) });
      t.same(namedCounts(result, 'completed'), { 'GET /catalogue': 300, checkout: 300, user: 300 }, 'the amount split evenly over the steps');
      t.same(result.byName!.checkout!.statusCodes, { 200: 300 });
      t.equal(result.byName!.checkout!.checks?.passed, 300, 'checks per name');

      addsUp(t, result);
    });
  }

  t.test('net, workers: 2', async (t) => {
    nginx.clearLog();
    const requests = REQUESTS.filter((request) => request.setupRequest === undefined);
    const result = await runLoad({ url: nginx.http1Url, connections: 6, workers: 2, amount: AMOUNT, requests });
    const byPath = linesByPath((await nginx.processed()).lines);
    t.equal(result.workers, 2);
    t.same(namedCounts(result, 'completed'), { 'GET /catalogue': byPath['/catalogue'], checkout: byPath['/checkout'] });
    t.equal(result.requests.completed, AMOUNT);
    addsUp(t, result);
  });

  t.test('undici, two segments merged (as JSON)', async (t) => {
    nginx.clearLog();
    const requests = REQUESTS.filter((request) => request.setupRequest === undefined);
    const options = { url: nginx.http1Url, transport: 'undici' as const, connections: 4, amount: AMOUNT, requests };
    const segments = await Promise.all([0, 1].map((index) => runLoad({ ...options, segment: { index, count: 2 } })));
    const merged = mergeResults(segments.map((result) => JSON.parse(JSON.stringify(result)) as LoadResult));
    const byPath = linesByPath((await nginx.processed()).lines);
    t.same(namedCounts(merged, 'completed'), { 'GET /catalogue': byPath['/catalogue'], checkout: byPath['/checkout'] });
    t.equal(merged.requests.completed, AMOUNT);
    for (const name of ['GET /catalogue', 'checkout']) {
      t.equal(merged.byName![name]!.requests.completed, segments[0]!.byName![name]!.requests.completed + segments[1]!.byName![name]!.requests.completed, `${name}: the segments' sum`);
    }
    addsUp(t, merged);
  });
});

t.test('a single request is its own name, with the run\'s numbers', async (t) => {
  const nginx = await startNginx(t, { keepaliveRequests: 100_000 });
  const result = await runLoad({ url: `${nginx.http1Url}search?q=1`, connections: 2, amount: 200 });
  const byName = result.byName!['GET /search']!;
  t.same(Object.keys(result.byName!), ['GET /search']);
  t.same(byName.requests, result.requests);
  t.same(byName.latency, result.latency);
  t.same(byName.phases, result.phases, 'phases with the connections: the run has one name');
  t.equal(byName.histogram, result.histogram);
  t.equal((await nginx.processed()).lines.length, 200);

  const named = await runLoad({ url: nginx.http1Url, name: 'home', connections: 1, amount: 10 });
  t.same(Object.keys(named.byName!), ['home'], 'name names the single request');
});

t.test('a bad name is an error naming the option', async (t) => {
  const url = 'http://127.0.0.1:9/';
  await t.rejects(runLoad({ url, name: '' }), { code: 'SALVO_INVALID_OPTION', option: 'name' });
  await t.rejects(runLoad({ url, requests: [{ name: 5 as unknown as string }] }), { option: 'requests[0].name', message: /requests\[0\]\.name must be a non-empty string; got 5/ });
  await t.rejects(runLoad({ url, name: 'x', requests: [{}] }), { option: 'name', message: /name cannot be combined with requests/ });
});

t.test('onProgress carries each name\'s second, in process and over workers', async (t) => {
  const nginx = await startNginx(t, { keepaliveRequests: 100_000 });
  for (const workers of [1, 2]) {
    const events: ProgressEvent[] = [];
    const result = await runLoad({
      url: nginx.http1Url,
      connections: 4,
      workers,
      duration: 1500,
      requests: [{ name: 'a', path: '/a' }, { name: 'b', path: '/b' }],
      onProgress: (event) => void events.push(event),
    });
    for (const name of ['a', 'b']) {
      const completed = events.reduce((sum, event) => sum + (event.byName?.[name]?.completed ?? 0), 0);
      t.equal(completed, result.byName![name]!.requests.completed, `workers ${workers}: ${name}'s seconds add up to its completed`);
    }
    const busy = events.find((event) => (event.byName?.a?.completed ?? 0) > 0)!;
    t.ok(busy.byName!.a!.p99 >= busy.byName!.a!.p50 && busy.byName!.a!.p50 > 0, `workers ${workers}: a second's percentiles per name`);
  }
});

t.test('compareResults compares the names both sides have', async (t) => {
  const nginx = await startNginx(t, { keepaliveRequests: 100_000 });
  const run = () => runLoad({ url: nginx.http1Url, connections: 2, amount: 100, requests: [{ name: 'a', path: '/a' }, { name: 'b', path: '/b' }] });
  const baseline = [await run(), await run()];
  const candidate = [await run(), await run()];
  const { rows } = compareResults(baseline, candidate);
  const metrics = rows.map((row) => row.metric);
  t.ok(metrics.includes('latency.p99'), 'the run\'s rows');
  for (const name of ['a', 'b']) t.ok(metrics.includes(`latency.p99{name:${name}}`) && metrics.includes(`requests.perSecond{name:${name}}`), `and ${name}'s`);
  const row = rows.find((r) => r.metric === 'latency.p50{name:a}')!;
  t.equal(row.baseline, (baseline[0]!.byName!.a!.latency.p50 + baseline[1]!.byName!.a!.latency.p50) / 2, 'a name\'s row reads that name');
  t.equal(row.higherIsBetter, false);
  t.equal(rows.find((r) => r.metric === 'requests.perSecond{name:b}')!.higherIsBetter, true);
});
