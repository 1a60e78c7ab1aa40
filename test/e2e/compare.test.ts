import { AssertionError } from 'node:assert';
import t from 'tap';
import { assertNoRegression } from '../../src/compare/assert-no-regression.js';
import { formatComparison } from '../../src/compare/format-comparison.js';
import { runComparison, type ComparisonProgress } from '../../src/compare/run-comparison.js';
import { separateServer } from '../fixtures/separate-server.js';
import { inSomeRun } from '../fixtures/timing.js';

t.test('10 ms against 11 ms: three stars on latency, about -10%, and assertNoRegression throws', async (t) => {
  const fast = await separateServer(t, 10);
  const slow = await separateServer(t, 11);
  await inSomeRun(t, 3, async (timing) => {
    const progress: ComparisonProgress[] = [];
    const { baseline, candidate, comparison } = await runComparison({
      baseline: { url: fast.url, connections: 4, duration: 1000 },
      candidate: { url: slow.url, connections: 4, duration: 1000 },
      runs: 6,
      onProgress: (event) => progress.push(event),
    });
    t.equal(baseline.length, 6);
    t.equal(candidate.length, 6);
    t.same(progress.map((event) => `${event.side[0]}${event.run}`).join(' '), 'b1 c1 c2 b2 b3 c3 c4 b4 b5 c5 c6 b6', 'ABBA order, one event per run');
    t.ok(progress.every((event, index) => event.index === index + 1 && event.total === 12));
    t.ok(baseline.every((result) => result.url.startsWith(fast.url)) && candidate.every((result) => result.url.startsWith(slow.url)));
    const p50 = comparison.rows.find((row) => row.metric === 'latency.p50')!;
    t.equal(comparison.rows.length, 5, 'the default metrics');
    timing.ok(p50.confidence === '***', `latency.p50 ${p50.confidence || 'no star'} (p = ${p50.pValue})`);
    timing.ok(Math.abs(p50.improvement + 0.1) < 0.02, `latency.p50 improvement ${(p50.improvement * 100).toFixed(2)}%, about -10%`);
    const [low, high] = p50.intervals!['99'];
    timing.ok(low > 0.5 && high < 1.5, `99% interval of the difference [${low.toFixed(3)}, ${high.toFixed(3)}] ms holds about 1 ms`);
    if (p50.confidence === '***') {
      t.throws(() => assertNoRegression(comparison, { 'latency.p50': '5%' }), AssertionError);
      t.throws(() => assertNoRegression(comparison, { 'latency.p50': '5%' }), /latency\.p50: \d+\.\d+% slower .*allowed 5\.00% slower/);
      t.doesNotThrow(() => assertNoRegression(comparison, { 'latency.p50': '15%' }), 'a 15% margin allows a 10% slowdown');
    }
    const table = formatComparison(comparison);
    t.match(table, /^latency\.p50 .* \d+\.\d\d % slower +\*{0,3} +±\d+\.\d\d %/m);
    t.match(table, /risk of a false-positive result increases/);
  });
});

t.test('identical servers: no star in at least 90% of 40 comparisons, and no regression asserted', async (t) => {
  const server = await separateServer(t, 2);
  const comparisons = 40;
  let starred = 0;
  let asserted = 0;
  const pValues: number[] = [];
  for (let index = 0; index < comparisons; index++) {
    const { comparison } = await runComparison({
      // The same server under two names: the null hypothesis holds by construction.
      baseline: { url: `${server.url}a`, connections: 4, amount: 120 },
      candidate: { url: `${server.url}b`, connections: 4, amount: 120 },
      runs: 6,
      metrics: ['latency.p50'],
    });
    const [row] = comparison.rows;
    pValues.push(row!.pValue);
    if (row!.confidence !== '') starred++;
    try {
      assertNoRegression(comparison, { 'latency.p50': '10%' });
    } catch {
      asserted++;
    }
  }
  pValues.sort((a, b) => a - b);
  t.comment(`${starred} of ${comparisons} comparisons of a server with itself had a star; p-values: min ${pValues[0]!.toFixed(3)}, median ${pValues[comparisons / 2]!.toFixed(3)}`);
  t.ok(starred <= comparisons * 0.1, `${starred} false positives of ${comparisons} at p < 0.05`);
  t.equal(asserted, 0, 'assertNoRegression never failed a server compared with itself');
});

t.test('bad options name themselves', async (t) => {
  const load = { url: 'http://127.0.0.1:9/' };
  await t.rejects(runComparison({ baseline: load, candidate: load, runs: 1 }), /runs must be an integer of at least 2/);
  await t.rejects(runComparison({ baseline: load, candidate: load, runs: 2, alternate: 'AABB' as 'ABAB' }), /alternate must be 'ABAB' or 'ABBA'/);
  await t.rejects(runComparison({ baseline: load, candidate: load, runs: 2, metrics: ['latency.p5'] }), /metrics: "latency.p5" names no metric/);
  await t.rejects(runComparison({ baseline: undefined as never, candidate: load, runs: 2 }), /baseline must be the options of a load test/);
  t.throws(() => assertNoRegression({ runs: { baseline: 2, candidate: 2 }, rows: [] }, { 'latency.p99': '5%' }), /did not compare/);
});

t.test('an aborted comparison rejects at once with the reason', async (t) => {
  const server = await separateServer(t, 1);
  await inSomeRun(t, 3, async (timing) => {
    const controller = new AbortController();
    const started = performance.now();
    const comparison = runComparison({
      baseline: { url: server.url, duration: '10s' },
      candidate: { url: server.url, duration: '10s' },
      runs: 3,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('stop')), 300);
    await t.rejects(comparison, /stop/);
    const tookMs = performance.now() - started;
    timing.ok(tookMs < 3000, `ended after ${Math.round(tookMs)} ms, well before the first 10 s run would have`);
  });
});
