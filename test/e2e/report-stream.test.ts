// Reports of streamed runs in headless Chromium, read back: the streams' charts are the result's
// timeline seconds and the spectra of its first-event, gap, TTFT and ITL histograms; the cards and
// the table are result.stream; a capacity search over a streaming endpoint shows each step's output
// tokens per second and TTFT against the objective.
import * as hdr from 'hdr-histogram-js';
import t from 'tap';
import { findCapacity, runLoad, type CapacityResult, type LoadResult } from '../../src/index.js';
import { renderCapacityReport, renderReport } from '../../src/report/index.js';
import { partialLastSecond, timelineX } from '../../src/report/charts.js';
import { ms, number } from '../../src/report/html.js';
import { percentileSpectrum } from '../../src/report/spectrum.js';
import { headlessChromium } from '../fixtures/browser.js';
import { drawnPlots, openReport, seriesOf, tableCells, tableHead, type DrawnPlot } from '../fixtures/report-page.js';
import { separateStreamServer } from '../fixtures/separate-stream-server.js';
import { startSubscriptionServer } from '../fixtures/subscription-server.js';

const STREAM = { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' } as const;

/** A spectrum chart's line `label` as [x, ms] points, nulls (the other lines' x) left out. */
function drawnSpectrum(plot: DrawnPlot | undefined, label: string): number[][] {
  return (seriesOf(plot, label) ?? []).flatMap((v, i) => (v === null ? [] : [[plot!.data[0]![i]!, v]]));
}

const spectrumOf = (encoded: string | undefined) => percentileSpectrum(encoded).map((p) => [1 / (1 - p.percentile / 100), p.valueMs]);

t.test('stream reports show the streams the run measured', async (t) => {
  const browser = await headlessChromium(t);
  if (browser === undefined) return;
  const server = await separateStreamServer(t, { format: 'sse', delayMs: 20, intervalMs: 5, events: 6 });

  t.test('a run report: events and tokens per second, TTFT p99 per second, the first-event and gap spectra, cards and table', async (t) => {
    const run = await runLoad({ url: server.url, connections: 3, duration: 2500, stream: STREAM });
    const result = JSON.parse(JSON.stringify(run)) as LoadResult;
    const stream = result.stream!;
    const { page, problems } = await openReport(browser, renderReport(result), 'stream');
    t.same(problems, [], 'no console errors, no requests beyond the file');
    const plots = await drawnPlots(page);
    const chart = plots['chart-stream'];
    t.same(chart?.data[0], timelineX(result), 'x: the timeline seconds');
    const share = partialLastSecond(result) ?? 1;
    const perSecond = (read: (s: NonNullable<LoadResult['timeline'][number]['stream']>) => number) =>
      result.timeline.map((second, i) => read(second.stream!) / (i === result.timeline.length - 1 ? share : 1));
    t.same(seriesOf(chart, 'events'), perSecond((s) => s.events), "events per second: the timeline's");
    t.same(seriesOf(chart, 'output tokens'), perSecond((s) => s.outputTokens), 'output tokens per second');
    t.same(seriesOf(chart, 'TTFT p99'), result.timeline.map((second) => second.stream!.ttftP99), "TTFT p99 of each second: the timeline's");
    t.same(seriesOf(chart, 'first event p99'), result.timeline.map((second) => second.stream!.firstEventP99));
    t.ok(result.timeline.every((second) => second.stream!.ttftP99! >= 19), 'every second began streams, none before the server\'s 20 ms delay (less the ms its timer may fire early)');
    const histograms = result.merge.stream!.histograms;
    const first = plots['chart-stream-first-event'];
    t.same(drawnSpectrum(first, 'first event'), spectrumOf(histograms.firstEvent), "the first-event spectrum: result.merge.stream's histogram");
    t.same(drawnSpectrum(first, 'TTFT'), spectrumOf(histograms.ttft), 'TTFT beside it');
    const gap = plots['chart-stream-gap'];
    t.same(drawnSpectrum(gap, 'gap'), spectrumOf(histograms.gap), 'the gap spectrum');
    t.same(drawnSpectrum(gap, 'ITL'), spectrumOf(histograms.itl), 'ITL beside it');
    t.ok(spectrumOf(histograms.gap).length > 5, 'with points to draw');

    const cards = await page.$$eval('.card', (list) => list.map((card) => [...card.children].map((part) => (part.textContent ?? '').trim())));
    const card = (label: string) => cards.find(([name]) => name === label);
    t.same(card('TTFT p99')?.slice(0, 2), ['TTFT p99', ms(stream.ttft!.p99)], 'a TTFT card');
    t.same(card('ITL p50')?.slice(0, 2), ['ITL p50', ms(stream.itl!.p50)], 'an ITL card');
    t.same(card('output tokens/s'), ['output tokens/s', number(stream.outputTokensPerSecond), `${number(stream.outputTokensPerStream)} per ended stream`], 'a tokens/s card');
    t.equal(stream.outputTokensPerStream, 6, 'six tokens each ended stream');
    t.same(card('first event p99')?.slice(0, 2), ['first event p99', ms(stream.firstEvent.p99)]);
    const rows = await tableCells(page, '#stream-table');
    t.same(rows.map((row) => row[0]), ['first event', 'gap', 'duration', 'TTFT', 'ITL', 'TPOT'], 'a row per figure measured (no delivery without timestamp)');
    t.same(rows[3]!.slice(1), (['min', 'p50', 'p75', 'p90', 'p99', 'p999', 'max', 'mean'] as const).map((f) => ms(stream.ttft![f])), "TTFT's row: result.stream.ttft");
    t.match(await page.textContent('#stream-counts'), `${number(stream.streams)} streams ended`);
    t.ok((await page.$$eval('section[id]', (list) => list.map((s) => s.id))).includes('stream'), 'a Streams section');
  });

  t.test('without tokens: events per second and first event only', async (t) => {
    const run = await runLoad({ url: server.url, connections: 2, duration: 2200, stream: { format: 'sse' } });
    const { page, problems } = await openReport(browser, renderReport(JSON.parse(JSON.stringify(run)) as LoadResult), 'stream-events');
    t.same(problems, []);
    const plots = await drawnPlots(page);
    t.same(plots['chart-stream']?.labels, ['events', 'first event p99']);
    t.same(plots['chart-stream-gap']?.labels, ['gap']);
    const labels = await page.$$eval('.card .label', (list) => list.map((label) => label.textContent));
    t.ok(labels.includes('events/s') && labels.includes('gap p50') && !labels.includes('TTFT p99'), 'event cards, no token cards');
  });

  t.test("connection stages over a token stream: each step's tokens/s and TTFT p99 from its timeline seconds", async (t) => {
    // 1 connection for a second, a ramp to 3 in the next, 3 held in the third: steps at seconds 0 and 2.
    const run = await runLoad({ url: server.url, connections: 1, stream: STREAM, stages: [{ duration: 1000, connections: 1 }, { duration: 1000, connections: 3 }, { duration: 1000, connections: 3 }] });
    const result = JSON.parse(JSON.stringify(run)) as LoadResult;
    const { page, problems } = await openReport(browser, renderReport(result), 'stream-steps');
    t.same(problems, []);
    const plot = (await drawnPlots(page))['chart-steps-stream'];
    t.same(plot?.data[0], [1, 3], 'x: the connections of each holding stage');
    t.same(seriesOf(plot, 'output tokens/s'), [0, 2].map((i) => result.timeline[i]!.stream!.outputTokens), "each step's output tokens in its second");
    const p99 = (encoded: string) => {
      const histogram = hdr.decodeFromCompressedBase64(encoded, 32, false, 3_600_000_000);
      const value = histogram.getValueAtPercentile(99) / 1000;
      histogram.destroy();
      return value;
    };
    const ttft = [0, 2].map((i) => p99(result.merge.stream!.ttftSeconds![i]!));
    t.same(seriesOf(plot, 'TTFT p99'), ttft, "and TTFT p99 from that second's histogram");
    t.ok(result.timeline[2]!.stream!.outputTokens > result.timeline[0]!.stream!.outputTokens, 'three connections streamed more than one');
    const head = await tableHead(page, '#steps-table');
    const rows = await tableCells(page, '#steps-table');
    t.same(rows.map((row) => row[head.indexOf('TTFT p99')]), ttft.map((v) => ms(v)), 'a TTFT p99 column');
  });

  t.test('SSE subscriptions ramped by stages: the steps are stream.subscriptions.stages, events and their delivery', async (t) => {
    const sse = await startSubscriptionServer({ events: 0, intervalMs: 20, broadcast: { stopAfterMs: 10_000 } });
    t.teardown(() => sse.close());
    const run = await runLoad({
      url: `${sse.url}/feed`, connections: 2, stream: { format: 'sse', subscribe: true, timestamp: { field: 't' } },
      stages: [{ duration: 1000, connections: 2 }, { duration: 200, connections: 4 }, { duration: 1000, connections: 4 }],
    });
    const result = JSON.parse(JSON.stringify(run)) as LoadResult;
    const stages = result.stream!.subscriptions!.stages!;
    const { page, problems } = await openReport(browser, renderReport(result), 'stream-subscriptions');
    t.same(problems, []);
    const plots = await drawnPlots(page);
    const holds = [stages[0]!, stages[2]!];
    t.same(plots['chart-steps-latency']?.data[0], [2, 4], 'x: the clients of each holding stage');
    t.same(seriesOf(plots['chart-steps-throughput'], 'events/s'), holds.map((s) => s.perSecond), 'events/s per step: stream.subscriptions.stages');
    t.same(seriesOf(plots['chart-steps-latency'], 'p99'), holds.map((s) => s.p99), 'delivery p99 per step');
    t.equal(await page.textContent('#chart-steps-latency-title'), 'Delivery by clients');
    t.same((await tableCells(page, '#steps-table')).map((row) => row.slice(0, 3)), [['0', '2', String(stages[0]!.open)], ['2', '4', String(stages[2]!.open)]], 'stage, clients, open');
    const cards = await page.$$eval('.card', (list) => list.map((card) => [...card.children].map((part) => (part.textContent ?? '').trim())));
    t.same(cards.find(([name]) => name === 'subscriptions open')?.slice(0, 2), ['subscriptions open', '4'], 'the subscriptions open at the end');
    t.same(cards.find(([name]) => name === 'delivery p99')?.slice(0, 2), ['delivery p99', ms(result.stream!.delivery!.p99)]);
    t.match(await page.textContent('#stream-counts'), /4 open at the end/);
    t.same(cards.filter(([name]) => ['requests/s', 'p50', 'p99', 'completed'].includes(name!)), [], 'no request cards: a subscription is no request to time');
  });

  t.test("a capacity report over a streaming endpoint: each step's tokens/s and TTFT p99 against the objective", async (t) => {
    const search = await findCapacity({
      url: server.url, connections: 20, stream: STREAM, slo: { 'stream.ttft.p99': '< 500' },
      start: 40, max: 80, precision: 0.5, stepDuration: '1s', warmup: 0, pause: '50ms', confirmDuration: '1s',
    });
    const result = JSON.parse(JSON.stringify(search)) as CapacityResult;
    const { page, problems } = await openReport(browser, renderCapacityReport(result), 'capacity-stream');
    t.same(problems, []);
    const steps = result.steps;
    t.ok(steps.length >= 2, `${steps.length} steps`);
    const plot = (await drawnPlots(page))['chart-capacity-stream'];
    t.same(plot?.data[0], steps.map((_, i) => i + 1), 'x: the steps in the order run');
    t.same(seriesOf(plot, 'output tokens/s'), steps.map((s) => s.result.stream!.outputTokensPerSecond), "each step's output tokens per second");
    t.same(seriesOf(plot, 'TTFT p99'), steps.map((s) => s.result.stream!.ttft!.p99), 'and TTFT p99');
    t.same(seriesOf(plot, 'SLO stream.ttft.p99 < 500'), steps.map(() => 500), 'the objective as a line');
    const head = await tableHead(page, '#capacity-steps');
    const rows = await tableCells(page, '#capacity-steps');
    t.same(rows.map((row) => row[head.indexOf('tokens/s')]), steps.map((s) => number(s.result.stream!.outputTokensPerSecond)), 'a tokens/s column');
    t.same(rows.map((row) => row[head.indexOf('TTFT p99')]), steps.map((s) => ms(s.result.stream!.ttft!.p99)), 'a TTFT p99 column');
  });
});
