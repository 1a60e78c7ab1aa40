// Capacity and comparison reports in headless Chromium, read back: the search's steps are the
// table's rows and the charts' points, with the SLO as a line; the comparison's intervals and stars
// are compareResults', and both sides' spectra are drawn from their runs' histograms.
import * as hdr from 'hdr-histogram-js';
import t from 'tap';
import { compareResults, findCapacity, runLoad, type CapacityResult, type Comparison } from '../../src/index.js';
import { renderCapacityReport, renderComparisonReport } from '../../src/report/index.js';
import { percentileSpectrum } from '../../src/report/spectrum.js';
import { headlessChromium } from '../fixtures/browser.js';
import { drawnPlots, openReport, seriesOf, tableCells, tableHead } from '../fixtures/report-page.js';
import { testServer } from '../fixtures/test-server.js';

t.test('capacity and comparison reports show the numbers they were given', async (t) => {
  const browser = await headlessChromium(t);
  if (browser === undefined) return;

  t.test("a capacity report's steps are the search's", async (t) => {
    const server = await testServer(t, { capacity: 200 });
    // Whatever the busy host makes of it, the report must show the steps the search took.
    const search = await findCapacity({
      url: server.url, connections: 50, slo: { 'latency.p99': '< 40' }, start: 80, max: 400,
      stepDuration: '1s', warmup: 0, pause: '50ms', confirmDuration: '1s', precision: 0.25, monitor: { processes: [process.pid] },
    });
    const result = JSON.parse(JSON.stringify(search)) as CapacityResult;
    const { page, problems } = await openReport(browser, renderCapacityReport(result), 'capacity');
    t.same(problems, [], 'no console errors, no requests beyond the file');
    const plots = await drawnPlots(page);
    const steps = result.steps;
    const rate = plots['chart-capacity-rate'];
    t.same(rate?.data[0], steps.map((_, i) => i + 1), 'x: the steps in the order run');
    t.same(seriesOf(rate, 'offered'), steps.map((s) => s.rate), 'offered rate per step');
    t.same(seriesOf(rate, 'achieved'), steps.map((s) => s.achievedRate), 'achieved rate per step');
    const latency = plots['chart-capacity-latency'];
    t.same(seriesOf(latency, 'p99'), steps.map((s) => s.p99), 'p99 per step');
    t.same(seriesOf(latency, 'SLO latency.p99 < 40'), steps.map(() => 40), 'the SLO as a line');
    if (steps.some((s) => !s.passed)) {
      t.same(seriesOf(latency, 'failed step (p99)'), steps.map((s) => (s.passed ? null : s.p99)), 'the failed steps marked');
    }
    const rows = await tableCells(page, '#capacity-steps');
    t.same(rows.map((row) => [row[0], row[1], row[2]]), steps.map((s, i) => [String(i + 1), s.phase, s.rate.toLocaleString('en-US')]), 'one row per step: number, phase, rate');
    t.same(rows.map((row) => row.at(-1)!.startsWith('pass')), steps.map((s) => s.passed), 'each verdict');
    for (const [i, step] of steps.entries()) {
      if (step.limitedBy !== undefined) t.match(rows[i]!.at(-1), `(${step.limitedBy})`, `step ${i + 1} says what limited it`);
    }
    const head = await tableHead(page, '#capacity-steps');
    const cpuColumn = head.indexOf('server CPU');
    t.ok(cpuColumn > 0, 'the monitor\'s figures per step');
    t.same(rows.map((row) => parseFloat(row[cpuColumn]!.replace(/,/g, ''))), steps.map((s) => Number(s.result.server!.cpuPercent!.toFixed(s.result.server!.cpuPercent! < 10 ? 3 : 2))), "each step's server CPU, as its result has it");
    t.same(rows.map((row) => parseFloat(row[head.indexOf('CPU per request')]!)), steps.map((s) => Number(s.result.server!.cpuPerRequestMs!.toFixed(3))), 'and CPU per request, ms');
    const capacityText = result.capacity === undefined ? 'none' : `${result.capacity.toLocaleString('en-US')} req/s`;
    t.match(await page.textContent('.cards'), new RegExp(`capacity\\s*${capacityText}.*limited by\\s*${result.limitedBy}`, 'is'));
    t.equal(await page.textContent('#capacity-message'), result.message);
    t.equal((await tableCells(page, '#confirm table')).length, steps.filter((s) => s.phase === 'confirm').length, 'the confirming runs');
  });

  t.test('a failure far above the SLO does not flatten the SLO line: the latency axis goes log', async (t) => {
    const step = (rate: number, p99: number, passed: boolean) => ({ phase: 'grow', rate, passed, failures: passed ? [] : ['latency.p99 443 ms'], achievedRate: rate, sentRate: rate, missed: 0, p50: p99 / 2, p99, p99Uncorrected: p99, errorRate: 0, result: undefined });
    const result = {
      url: 'http://127.0.0.1:1/', slo: { 'latency.p99': '< 20' }, capacity: 200, confirmed: false, limitedBy: 'server', highestPassed: 200, lowestFailed: 400, precision: 0.1, durationMs: 3000, aborted: false,
      message: 'a capacity of 200 req/s', steps: [step(100, 8, true), step(200, 15, true), step(400, 443, false)],
    } as unknown as CapacityResult;
    const { page, problems } = await openReport(browser, renderCapacityReport(result), 'capacity-log');
    t.same(problems, []);
    const view = await page.evaluate(() => {
      const plot = (globalThis as unknown as { salvoPlots: Record<string, { scales: { y: { distr: number } }; valToPos(value: number, scale: string): number; bbox: { height: number } }> }).salvoPlots['chart-capacity-latency']!;
      return { distr: plot.scales.y.distr, height: plot.bbox.height / (globalThis as unknown as { devicePixelRatio: number }).devicePixelRatio, slo: plot.valToPos(20, 'y'), failure: plot.valToPos(443, 'y') };
    });
    t.equal(view.distr, 3, 'a log-scaled y axis');
    const up = (pos: number) => (view.height - pos) / view.height;
    t.ok(up(view.slo) > 0.2 && up(view.failure) <= 1, `(a linear axis: 4%) the 20 ms line ${Math.round(up(view.slo) * 100)}% up the chart, the 443 ms failure at ${Math.round(up(view.failure) * 100)}%`);
    t.match(await page.textContent('#chart-capacity-latency-title'), 'log scale');
  });

  t.test("a comparison's intervals are compareResults'", async (t) => {
    const fast = await testServer(t, { delayMs: 1 });
    const slow = await testServer(t, { delayMs: 6 });
    const runs = async (url: string) => [await runLoad({ url, amount: 150, connections: 2 }), await runLoad({ url, amount: 150, connections: 2 })];
    const baseline = await runs(fast.url);
    const candidate = await runs(slow.url);
    const comparison: Comparison = compareResults(baseline, candidate);
    const html = renderComparisonReport(JSON.parse(JSON.stringify({ baseline, candidate, comparison })), { margins: { 'latency.p50': '5%' }, confidence: '*' });
    const { page, problems } = await openReport(browser, html, 'comparison');
    t.same(problems, []);
    const intervals = await page.$$eval('#comparison-rows tbody tr', (rows) =>
      rows.map((row) => [...row.querySelectorAll('.interval')].map((cell) => [cell.getAttribute('data-level'), Number(cell.getAttribute('data-low')), Number(cell.getAttribute('data-high'))])),
    );
    t.same(
      intervals,
      comparison.rows.map((row) => (['95', '99', '99.9'] as const).map((level) => [level, row.intervals![level][0], row.intervals![level][1]])),
      'every interval, exactly',
    );
    const rows = await tableCells(page, '#comparison-rows');
    t.same(rows.map((row) => row[0]), comparison.rows.map((row) => row.metric), 'one row per metric');
    t.same(rows.map((row) => (row[5] === '–' ? '' : row[5])), comparison.rows.map((row) => row.confidence), 'the stars');
    // At *, with a 5% margin on p50: what each row must say, from compareResults' own numbers.
    const expected = comparison.rows.map((row) => {
      if (!(row.pValue < 0.05) || row.improvement === 0) return 'no significant change';
      if (row.improvement > 0) return 'better';
      return row.metric === 'latency.p50' && row.improvement < -0.05 ? 'regressed' : 'worse';
    });
    t.same(rows.map((row) => row[7]), expected, 'each verdict');
    // 1 ms against 6 ms of server delay: p50 regressed in all but the noisiest of runs.
    const regressed = expected[comparison.rows.findIndex((row) => row.metric === 'latency.p50')] === 'regressed';
    t.match(await page.textContent('#verdict'), regressed ? /latency\.p50: \d+\.\d+% slower .*allowed 5\.00% slower/ : /No metric regressed/, "assertNoRegression's verdict");
    t.equal(await page.textContent('header .badge'), regressed ? 'regression' : 'no regression');

    const spectra = (await drawnPlots(page))['chart-comparison-spectrum'];
    t.same(spectra?.labels, ['baseline', 'candidate'], 'both sides overlaid');
    for (const [label, results] of [['baseline', baseline], ['candidate', candidate]] as const) {
      // The side's runs added into one histogram, then read at the spectrum's percentiles.
      const sum = hdr.build({ bitBucketSize: 32, autoResize: false, lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3, useWebAssembly: false });
      for (const run of results) sum.add(hdr.decodeFromCompressedBase64(run.histogram, 32, false, 3_600_000_000));
      const expected = percentileSpectrum(hdr.encodeIntoCompressedBase64(sum));
      sum.destroy();
      const drawn = seriesOf(spectra, label)!.flatMap((v, i) => (v === null ? [] : [[spectra!.data[0]![i], v]]));
      t.same(drawn, expected.map((p) => [1 / (1 - p.percentile / 100), p.valueMs]), `${label}: the spectrum of its ${results.length} runs together`);
    }
  });
});
