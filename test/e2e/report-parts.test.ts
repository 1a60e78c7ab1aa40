// The report of a run with two scenarios and three request names, in headless Chromium: the tables of
// scenarios and names hold the result's numbers, and the per-name latency and per-scenario throughput
// charts drew each name's and scenario's own data (read back from the page's uPlot instances).
import { join } from 'node:path';
import t from 'tap';
import { runLoad } from '../../src/index.js';
import { renderReport } from '../../src/report/index.js';
import { headlessChromium } from '../fixtures/browser.js';
import { drawnPlots, openReport, reportDir, seriesOf, tableCells } from '../fixtures/report-page.js';
import { testServer } from '../fixtures/test-server.js';

t.test('a report with scenarios and names, read back in Chromium', async (t) => {
  const browser = await headlessChromium(t);
  if (browser === undefined) return;
  const server = await testServer(t, { delayMs: 2 });
  const result = await runLoad({
    url: server.url,
    duration: 2500,
    connections: 2,
    scenarios: {
      browse: { requests: [{ name: 'home', path: '/' }, { name: 'search', path: '/search?q=1' }] },
      checkout: { name: 'checkout', rate: 40, connections: 2 },
    },
  });
  const { page, problems } = await openReport(browser, renderReport(result), 'parts');
  t.same(problems, [], 'nothing failed or was fetched');

  const scenarios = await tableCells(page, '#scenarios-table');
  t.same(scenarios.map((row) => row[0]), ['browse', 'checkout']);
  t.same(scenarios.map((row) => row[5]), ['browse', 'checkout'].map((name) => result.byScenario![name]!.requests.completed.toLocaleString('en-US')), 'each scenario\'s completed');
  const names = await tableCells(page, '#names-table');
  t.same(names.map((row) => row[0]), ['home', 'search', 'checkout']);
  t.same(names.map((row) => row[5]), ['home', 'search', 'checkout'].map((name) => result.byName![name]!.requests.completed.toLocaleString('en-US')), 'each name\'s completed');

  const plots = await drawnPlots(page);
  const latency = plots['chart-names-latency'];
  t.same(latency?.labels, ['home', 'search', 'checkout'], 'a latency line per name');
  for (const name of ['home', 'search', 'checkout']) {
    t.same(seriesOf(latency, name), result.timeline.map((entry) => entry.byName?.[name]?.p99 ?? null), `${name}: its p99 of each second`);
  }
  const throughput = plots['chart-scenarios-throughput'];
  t.same(throughput?.labels, ['browse', 'checkout'], 'a throughput line per scenario');
  const checkout = seriesOf(throughput, 'checkout')!.filter((value): value is number => value !== null);
  t.equal(checkout.length >= 2, true, 'the checkout scenario drew its seconds');
  t.equal(checkout[0], result.byScenario!.checkout!.timeline[0]!.completed, 'checkout\'s first second as it counted it');

  const screenshot = join(reportDir, 'parts.png');
  await page.screenshot({ path: screenshot, fullPage: true });
  t.comment(`screenshot: ${screenshot}`);
});
