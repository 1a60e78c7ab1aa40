// The live page in headless Chromium: opened mid-run, what it drew each second is what onProgress
// got; a tab opened late has every earlier second; when the run ends both tabs are renderReport(result).
import type { Page } from 'playwright-core';
import t from 'tap';
import { runLoad, type LoadResult, type ProgressEvent } from '../../src/index.js';
import { renderReport } from '../../src/report/index.js';
import { headlessChromium } from '../fixtures/browser.js';
import { testServer } from '../fixtures/test-server.js';

/** What the page holds: the seconds it was sent and each chart's drawn data. */
interface LiveState {
  state: string;
  seconds: ProgressEvent[];
  drawn: number;
  throughput?: Array<Array<number | null>>;
  latency?: Array<Array<number | null>>;
}

function read(page: Page): Promise<LiveState> {
  return page.evaluate(() => {
    const w = globalThis as unknown as {
      __salvoLive: { state: string; seconds: ProgressEvent[]; drawn?: number };
      salvoPlots: Record<string, { data: Array<Array<number | null>> } | undefined>;
    };
    return {
      state: w.__salvoLive.state,
      seconds: w.__salvoLive.seconds,
      drawn: w.__salvoLive.drawn ?? 0,
      throughput: w.salvoPlots['chart-throughput']?.data,
      latency: w.salvoPlots['chart-latency']?.data,
    };
  });
}

/** Console errors, page errors and requests to anywhere but the page's server. */
function watch(page: Page, origin: string, problems: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    if (!request.url().startsWith(origin)) problems.push(`request to ${request.url()}`);
  });
}

const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

t.test('the live page draws each second as onProgress has it, a late tab gets them all, and the end is the report', async (t) => {
  const browser = await headlessChromium(t);
  if (browser === undefined) return;
  const server = await testServer(t);
  const events: ProgressEvent[] = [];
  let liveUrl!: (url: string) => void;
  const address = new Promise<string>((resolve) => (liveUrl = resolve));
  const running = runLoad({
    url: server.url,
    rate: 400,
    connections: 4,
    duration: 6000,
    onProgress: (event) => void events.push(event),
    live: { port: 0, onLive: ({ url }) => liveUrl(url) },
  });
  const url = await address;
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/, 'on loopback, a free port');
  const problems: string[] = [];
  const first = await browser.newPage();
  watch(first, url, problems);
  await first.goto(url);
  let checked = 0;
  let late: Page | undefined;
  let result: LoadResult | undefined;
  void running.then((r) => (result = r));
  // Each second the page redraws: its seconds and its drawn data are onProgress's so far.
  for (let drawn = 1; result === undefined; drawn++) {
    const ready = await first
      .waitForFunction((n) => { const live = (globalThis as unknown as { __salvoLive: { drawn?: number; state: string } }).__salvoLive; return live.state !== 'live' || (live.drawn ?? 0) >= n; }, drawn, { timeout: 10_000 })
      .then(() => read(first))
      .catch(() => undefined);
    if (ready === undefined || ready.state !== 'live') break;
    // A second whose view is not drawn yet may be in: compare what was drawn.
    const { throughput, latency } = ready;
    const seconds = ready.seconds.slice(0, ready.drawn);
    t.same(seconds, json(events.slice(0, seconds.length)), `${seconds.length} s: the page's seconds are onProgress's`);
    if (seconds.length >= 2) {
      t.same(throughput![0], seconds.map((s) => s.second + 1), 'drawn at the end of each second');
      t.same(throughput![1], seconds.map((s) => s.completed), 'completed per second, drawn');
      t.same(throughput![2], seconds.map((s) => s.sent), 'sent per second, drawn');
      t.same(latency![2], seconds.map((s) => (s.completed > 0 ? s.p99 : null)), 'p99 per second, drawn');
    }
    checked++;
    if (seconds.length >= 3 && late === undefined) {
      late = await browser.newPage();
      watch(late, url, problems);
      await late.goto(url);
      await late.waitForFunction(() => ((globalThis as unknown as { __salvoLive: { drawn?: number } }).__salvoLive.drawn ?? 0) >= 3);
      const lateState = await read(late);
      t.same(lateState.seconds.slice(0, 3), json(events.slice(0, 3)), 'a tab opened late has every earlier second');
      t.same(lateState.throughput![1]!.slice(0, 3), events.slice(0, 3).map((s) => s.completed), 'and draws them');
    }
  }
  result ??= await running;
  t.ok(checked >= 3, `the page was read back in ${checked} seconds of the run`);
  t.ok(late !== undefined, 'a second tab was opened mid-run');
  const report = renderReport(result);
  for (const page of [first, late!]) {
    await page.waitForFunction(() => (globalThis as unknown as { __salvoLive: { state: string } }).__salvoLive.state === 'final', undefined, { timeout: 10_000 });
    await page.waitForSelector('body[data-charts]');
    t.equal(await page.locator('#live-body').count(), 0, 'the live page is gone');
    const final = await page.evaluate(() => (globalThis as unknown as { __salvoLive: { finalHtml: string } }).__salvoLive.finalHtml);
    t.equal(final, report, 'the page became renderReport(result)');
    t.equal(await page.locator('body').getAttribute('data-charts'), String(JSON.parse(/id="salvo-data">(.*?)<\/script>/s.exec(report)![1]!).charts.length), 'with every chart of the report drawn');
  }
  t.same(problems, [], 'no console error, nothing fetched from elsewhere');
});

t.test("with control: true the page's controls reach the run's handle: the rate is set, then stop ends it", async (t) => {
  const browser = await headlessChromium(t);
  if (browser === undefined) return;
  const server = await testServer(t);
  let liveUrl!: (url: string) => void;
  const address = new Promise<string>((resolve) => (liveUrl = resolve));
  const started = Date.now();
  const running = runLoad({ url: server.url, connections: 2, rate: 100, duration: 30_000, live: { control: true, onLive: ({ url }) => liveUrl(url) } });
  const url = await address;
  const problems: string[] = [];
  const page = await browser.newPage();
  watch(page, url, problems);
  await page.goto(url);
  await page.waitForFunction(() => ((globalThis as unknown as { __salvoLive: { drawn?: number } }).__salvoLive.drawn ?? 0) >= 1);
  await page.fill('#live-rate input', '300');
  await page.click('#live-rate button');
  await page.waitForFunction(() => /rate: done/.test((globalThis as unknown as { document: { getElementById(id: string): { textContent: string } } }).document.getElementById('live-control-status').textContent));
  await page.click('#live-stop');
  const result = await running;
  t.ok(result.aborted, 'the stop button ended the run');
  t.same(result.steps?.map((step) => step.rate), [300], "the page's rate is the run's one step");
  t.ok(Date.now() - started < 20_000, 'long before its 30 s');
  const { sent, completed, unfinished = 0 } = result.requests;
  t.equal(sent, completed + result.errors.total + unfinished, 'every request sent is in exactly one count');
  t.ok(server.stats.requests >= completed && server.stats.requests <= sent, `the server saw ${server.stats.requests}: every answered one (${completed}), at most those sent (${sent})`);
  await page.waitForFunction(() => (globalThis as unknown as { __salvoLive: { state: string } }).__salvoLive.state === 'final');
  t.same(problems, [], 'no console error');
});
