// The trend report over a history, read back from headless Chromium: each chart's drawn data and
// the table of builds.
import t from 'tap';
import { renderTrendReport, type HistoryEntry, type StoredRun } from '../../src/gate/index.js';
import { headlessChromium } from '../fixtures/browser.js';
import { drawnPlots, openReport, seriesOf, tableCells } from '../fixtures/report-page.js';

/** A stored run with what the trend reads: a p50 of `p50` ms. */
const run = (p50: number) => ({ latency: { p50, p90: p50 * 2, p99: p50 * 3 }, requests: { perSecond: 1000 / p50, completed: 100 }, errors: { total: 0 } }) as unknown as StoredRun;

function entry(build: number, p50s: number[], extra: Partial<HistoryEntry> = {}): HistoryEntry {
  const addedAt = new Date(Date.UTC(2030, 0, build)).toISOString();
  return { format: 'salvo-history/1', testId: 'api', id: `${addedAt}-c${build}`, addedAt, commit: `c${build}`.padEnd(8, '0'), branch: 'main', baseline: true, runs: p50s.map(run), ...extra };
}

// Six builds at 10 ms, a seventh at 12 ms (stored as failed), the eighth at 12 ms accepted, a ninth at 12.1 ms.
const entries = [
  ...[1, 2, 3, 4, 5, 6].map((build) => entry(build, [10, 10.1, 10.2])),
  entry(7, [12, 12.1, 12.2], { baseline: false }),
  entry(8, [12, 12.2, 12.4], { acceptedAt: '2030-02-01T00:00:00.000Z' }),
  entry(9, [12.1, 12.1, 12.1]),
];

t.test('per metric: each build\'s mean and the range of its runs, the baseline marked, regressions flagged', async (t) => {
  const browser = await headlessChromium(t);
  if (browser === undefined) return;
  const { page, problems } = await openReport(browser, renderTrendReport('api', entries, { margins: { 'latency.p50': '5%', 'latency.p99': '10%' } }), 'trend');
  t.same(problems, [], 'no console error, nothing loaded from elsewhere');
  const plots = await drawnPlots(page);
  t.same(Object.keys(plots), ['chart-trend-latency-p50', 'chart-trend-latency-p99']);
  const p50 = plots['chart-trend-latency-p50']!;
  t.same(p50.labels, ['mean', 'lowest run', 'highest run', 'baseline', 'regressed']);
  t.same(p50.data[0], [1, 2, 3, 4, 5, 6, 7, 8, 9], 'x: the builds, oldest first');
  const means = [10.1, 10.1, 10.1, 10.1, 10.1, 10.1, 12.1, 12.2, 12.1];
  t.same(seriesOf(p50, 'mean')!.map((v) => Math.round(v! * 1000) / 1000), means);
  t.same(seriesOf(p50, 'lowest run'), [10, 10, 10, 10, 10, 10, 12, 12, 12.1]);
  t.same(seriesOf(p50, 'highest run'), [10.2, 10.2, 10.2, 10.2, 10.2, 10.2, 12.2, 12.4, 12.1]);
  const baseline = seriesOf(p50, 'baseline')!;
  t.same(baseline.slice(0, 7), [null, null, null, null, null, null, null], 'the baseline starts at the accepted build');
  t.ok(Math.abs(baseline[7]! - 12.15) < 1e-9 && Math.abs(baseline[8]! - 12.15) < 1e-9, `the baseline: the mean of builds 8 and 9 (${baseline[7]})`);
  t.same(seriesOf(p50, 'regressed')!.map((v) => (v === null ? null : Math.round(v * 1000) / 1000)), [null, null, null, null, null, null, 12.1, 12.2, null], 'builds 7 and 8 regressed when they came; 9 passed against 8');
  const rows = await tableCells(page, '#trend-builds');
  t.equal(rows.length, 9);
  t.same(rows[0]!.slice(0, 5), ['1', '2030-01-01 00:00:00', 'c1000000', 'main', '3']);
  t.same(rows.map((row) => row.at(-1)), [
    'not compared', 'passed', 'passed', 'passed', 'passed', 'passed',
    'regressed: latency.p50, latency.p99', 'accepted · regressed: latency.p50, latency.p99 · baseline', 'passed · baseline',
  ]);
  t.match(await page.textContent('header'), /salvo trend api\s*latest build passed/);
});

t.test('an empty history renders a page without charts', async (t) => {
  const browser = await headlessChromium(t);
  if (browser === undefined) return;
  const { page, problems } = await openReport(browser, renderTrendReport('none', []), 'trend-empty');
  t.same(problems, []);
  t.same(await drawnPlots(page), {});
  t.same(await tableCells(page, '#trend-builds'), []);
});
