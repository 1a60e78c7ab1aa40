// The HTML report in a real browser (headless Chromium): every chart drew its lines, nothing failed
// in the console, nothing was loaded from elsewhere, the optional sections appear only when present.
// Saves a screenshot and prints its path.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import t from 'tap';
import { runLoad, type LoadResult } from '../../src/index.js';
import { renderReport } from '../../src/report/index.js';
import { root } from '../fixtures/cli.js';
import { headlessChromium } from '../fixtures/browser.js';
import { showOffline } from '../fixtures/report-page.js';
import { testServer } from '../fixtures/test-server.js';

const outDir = join(root, '.tap', 'report');

/** The little of the DOM the check reads (the project compiles without the DOM library). */
interface PageDocument {
  getElementById(id: string): { textContent: string | null } | null;
  querySelector(selector: string): {
    width: number;
    height: number;
    getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
  } | null;
  querySelectorAll(selector: string): Iterable<{ id: string }>;
  body: { dataset: Record<string, string | undefined> };
}

interface PageCheck {
  charts: number;
  /** Per chart, per series: pixels of the series' own colour on the chart's canvas. */
  seriesPixels: Array<{ id: string; series: Array<{ label: string; pixels: number }> }>;
  sections: string[];
}

/** Opens `html` from a file, refusing every request that is not that file; returns what the page showed. */
async function open(page: Page, html: string, name: string, problems: string[]): Promise<PageCheck> {
  const path = join(outDir, `${name}.html`);
  await writeFile(path, html);
  await showOffline(page, path, problems);
  return page.evaluate(() => {
    const { document } = globalThis as unknown as { document: PageDocument };
    const specs = JSON.parse(document.getElementById('salvo-data')!.textContent!).charts as Array<{
      id: string;
      series: Array<{ label: string; color: string }>;
    }>;
    const seriesPixels = specs.map((spec) => {
      const canvas = document.querySelector(`#${spec.id} canvas`);
      if (canvas === null) return { id: spec.id, series: spec.series.map((s) => ({ label: s.label, pixels: -1 })) };
      const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
      return {
        id: spec.id,
        series: spec.series.map((s) => {
          const [r, g, b] = [1, 3, 5].map((i) => parseInt(s.color.slice(i, i + 2), 16));
          let pixels = 0;
          for (let i = 0; i < data.length; i += 4) {
            if (data[i + 3]! > 200 && Math.abs(data[i]! - r!) < 12 && Math.abs(data[i + 1]! - g!) < 12 && Math.abs(data[i + 2]! - b!) < 12) pixels++;
          }
          return { label: s.label, pixels };
        }),
      };
    });
    return {
      charts: Number(document.body.dataset.charts),
      seriesPixels,
      sections: [...document.querySelectorAll('section[id]')].map((s) => s.id),
    };
  });
}

/** What issues 12 and 13 add to a result, so the report's optional sections are drawn too. */
function withOptionalSections(result: LoadResult): LoadResult {
  return {
    ...result,
    phases: {
      connect: { count: 20, min: 0.05, mean: 0.08, p50: 0.07, p90: 0.1, p99: 0.2, max: 0.3 },
      tls: { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 },
      ttfb: { count: result.requests.completed, min: 1, mean: 5, p50: 4.8, p90: 8, p99: 12, max: 15 },
      receive: { count: result.requests.completed, min: 0.01, mean: 0.02, p50: 0.02, p90: 0.03, p99: 0.05, max: 0.1 },
    },
    generator: { cpuPercent: 14.2, eventLoopUtilization: 0.13, eventLoopDelayP99Ms: 1.1, sendLag: { p50: 0.04, p99: 0.6, max: 1.3 }, saturated: false },
    warnings: [{ code: 'SERVER_NAGLE_DELAY', message: 'A <made-up> warning for the report test: what it means and what to do.' }],
    timeline: result.timeline.map((entry, i) => ({ ...entry, cpuPercent: 12 + i, eventLoopUtilization: 0.1 + i / 100 })),
  } as LoadResult;
}

t.test('a report opens offline in Chromium and draws every chart', async (t) => {
  const browser = await headlessChromium(t);
  if (browser === undefined) return;
  await mkdir(outDir, { recursive: true });
  const server = await testServer(t, { randomDelayMs: { min: 1, max: 6 }, errorRate: 0.05 });
  const result = await runLoad({
    url: server.url,
    rate: 200,
    connections: 10,
    duration: '3s',
    expect: { status: 200 },
    thresholds: { 'latency.p99': '< 1000', 'statusCodes.5xx': '== 0' },
  });

  const full = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  const shown = await open(full, renderReport(withOptionalSections(result)), 'full', problems);
  t.same(problems, [], 'no console errors or warnings, no requests beyond the file');
  t.same(
    shown.seriesPixels.map((chart) => chart.id),
    ['chart-throughput', 'chart-latency', 'chart-spectrum', 'chart-errors', 'chart-generator'],
  );
  t.equal(shown.charts, 5, 'uPlot made every chart');
  for (const chart of shown.seriesPixels) {
    for (const series of chart.series) t.ok(series.pixels >= 20, `${chart.id}: ${series.label} drew ${series.pixels} pixels in its colour`);
  }
  // The 500s failed the status check: failed checks are a verdict, shown beside the thresholds.
  t.same(shown.sections, ['warnings', 'thresholds', 'checks', 'responses', 'latency', 'phases', 'generator']);
  t.match(await full.textContent('#responses'), /500/, 'the 500s are listed');
  t.same(await full.$$eval('#phases tbody tr th:first-child', (cells) => cells.map((cell) => cell.textContent)), ['connect', 'ttfb', 'receive'], 'tls, measured 0 times, left out');
  // Hovering runs the legend's value formatters: a percentile on the spectrum, a second over time.
  await full.hover('#chart-spectrum .u-over');
  t.match(await full.textContent('#chart-spectrum .u-legend'), /percentile\s*\d+(\.\d+)?%.*corrected\s*[\d.,]+ ms/s);
  await full.hover('#chart-latency .u-over');
  t.match(await full.textContent('#chart-latency .u-legend'), /elapsed\s*[123] s.*p50\s*[\d.,]+ ms/s);
  t.same(problems, [], 'nothing failed while hovering');
  const screenshot = join(outDir, 'report.png');
  await full.screenshot({ path: screenshot, fullPage: true });
  t.comment(`screenshot: ${screenshot}`);

  const plain = await browser.newPage({ viewport: { width: 900, height: 700 } });
  const plainProblems: string[] = [];
  const closedLoop = await runLoad({ url: server.url, duration: '2s', connections: 2 });
  const shownPlain = await open(plain, renderReport(JSON.parse(JSON.stringify(closedLoop)) as LoadResult), 'plain', plainProblems);
  t.same(plainProblems, []);
  // Other parts of salvo may add phases, generator numbers and warnings to every result: the plain
  // report shows their sections exactly when the result has them.
  const has = closedLoop as LoadResult & { phases?: Record<string, { count: number }>; generator?: object };
  const cpuPerSecond = closedLoop.timeline.every((entry) => 'cpuPercent' in entry);
  t.equal(shownPlain.charts, cpuPerSecond ? 5 : 4, 'a generator chart only with the generator numbers');
  for (const chart of shownPlain.seriesPixels) {
    for (const series of chart.series) t.ok(series.pixels >= 20, `closed loop, ${chart.id}: ${series.label} drew ${series.pixels} pixels`);
  }
  t.same(
    shownPlain.sections,
    [
      ...(closedLoop.warnings.length > 0 ? ['warnings'] : []),
      'responses',
      'latency',
      ...(Object.values(has.phases ?? {}).some((phase) => phase.count > 0) ? ['phases'] : []),
      ...(has.generator !== undefined ? ['generator'] : []),
    ],
    'no thresholds or checks sections; the others as the result has them',
  );

  const short = await browser.newPage({ viewport: { width: 900, height: 700 } });
  const shortProblems: string[] = [];
  const shownShort = await open(short, renderReport(await runLoad({ url: server.url, amount: 50, connections: 2 })), 'short', shortProblems);
  t.same(shortProblems, []);
  t.same(shownShort.seriesPixels.map((chart) => chart.id), ['chart-spectrum'], 'under two seconds: the spectrum only');
  t.ok(shownShort.seriesPixels[0]!.series[0]!.pixels >= 20, 'the spectrum drew');
  t.match(await short.textContent('#no-timeline'), 'shorter than two seconds');
});
