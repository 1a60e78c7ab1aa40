// Run reports in headless Chromium, read back: a WebSocket stage ramp's per-step points are its
// websocket.stages, in messages and handshakes; an HTTP run's rate steps are computed from its
// timeline seconds and their histograms; a merged run and a result missing later fields open cleanly.
import * as hdr from 'hdr-histogram-js';
import t from 'tap';
import { formatResult, mergeResults, runLoad, type LoadResult } from '../../src/index.js';
import { renderReport } from '../../src/report/index.js';
import { headlessChromium } from '../fixtures/browser.js';
import { drawnPlots, openReport, seriesOf, tableCells, tableHead } from '../fixtures/report-page.js';
import { socketIoServer } from '../fixtures/socketio-server.js';
import { testServer } from '../fixtures/test-server.js';

/** p50, p99 and mean (ms) of encoded histograms added together, as a reader of the result would. */
function latencyOf(encoded: string[]): { p50: number; p99: number; mean: number } {
  const sum = hdr.build({ bitBucketSize: 32, autoResize: false, lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3, useWebAssembly: false });
  for (const e of encoded.filter((h) => h !== '')) sum.add(hdr.decodeFromCompressedBase64(e, 32, false, 3_600_000_000));
  const out = { p50: sum.getValueAtPercentile(50) / 1000, p99: sum.getValueAtPercentile(99) / 1000, mean: sum.mean / 1000 };
  sum.destroy();
  return out;
}

t.test('run reports speak the run, and their step figures are the result', async (t) => {
  const browser = await headlessChromium(t);
  if (browser === undefined) return;

  t.test('a WebSocket broadcast ramp: one point per holding stage, equal to websocket.stages', async (t) => {
    const server = await testServer(t, { websocket: { echo: false, broadcastIntervalMs: 100, broadcastBytes: 64 } });
    // 4 then 8 clients, a 200 ms connecting stage between the two holds.
    const result = await runLoad({
      url: server.url, connections: 4, websocket: { timestamp: { field: 'ts' } },
      stages: [{ duration: 1000, connections: 4 }, { duration: 200, connections: 8 }, { duration: 1000, connections: 8 }],
    });
    const stages = result.websocket!.stages!;
    const { page, problems } = await openReport(browser, renderReport(JSON.parse(JSON.stringify(result)) as LoadResult), 'websocket-ramp');
    t.same(problems, [], 'no console errors, no requests beyond the file');
    const plots = await drawnPlots(page);
    const holds = [stages[0]!, stages[2]!];
    const latency = plots['chart-steps-latency'];
    t.same(latency?.data[0], [4, 8], 'x: the clients of each holding stage, the connecting stage left out');
    t.same(seriesOf(latency, 'p50'), holds.map((s) => s.p50), 'p50 per step is websocket.stages');
    t.same(seriesOf(latency, 'p99'), holds.map((s) => s.p99), 'p99 per step is websocket.stages');
    t.same(seriesOf(plots['chart-steps-throughput'], 'received/s'), holds.map((s) => s.perSecond), 'messages/s per step');
    t.same(
      (await tableCells(page, '#steps-table')).map((row) => row.slice(0, 3)),
      [['0', '4', String(stages[0]!.open)], ['2', '8', String(stages[2]!.open)]],
      'the step table: stage, clients, open',
    );
    t.notOk((await tableHead(page, '#steps-table')).includes('messages sent'), 'a listen-only ramp has no column of zeros sent');

    const cards = await page.textContent('.cards');
    t.match(cards, /messages\/s/i);
    t.match(cards, /listen only: none sent/);
    t.notMatch(cards ?? '', /of 0 sent|requests\/s|non-2xx/i, 'no request words, no "of 0 sent"');
    t.match(cards, new RegExp(`handshakes\\s*${result.statusCodes['101']}`, 'i'), 'the 101s are accepted handshakes');
    t.equal(await page.textContent('#chart-throughput-title'), 'Messages per second');
    t.same(await tableCells(page, '#responses table'), [['101 handshake accepted', String(result.statusCodes['101']), '100%', '']]);
    t.notMatch((await page.textContent('body')) ?? '', /non-2xx/);
    t.match(await page.textContent('header'), /WebSocket · 4 to 8 clients in stages/);
  });

  t.test('an HTTP rate ramp: steps from the timeline seconds inside each holding stage and their histograms', async (t) => {
    const server = await testServer(t, { delayMs: 1 });
    const result = await runLoad({
      url: server.url, rate: 40, connections: 10,
      stages: [{ duration: '2s', rate: 40 }, { duration: '1s', rate: 80 }, { duration: '2s', rate: 80 }],
    });
    // What monitor adds to each second: the server's CPU and the machine's network (no bytes sent here).
    const watched = { ...result, timeline: result.timeline.map((entry, i) => ({ ...entry, server: { cpuPercent: 10 * (i + 1), machine: { receivedBytesPerSecond: 1e6 * (i + 1) } } })) };
    const { page, problems } = await openReport(browser, renderReport(watched), 'http-rate-ramp');
    t.same(problems, []);
    const plots = await drawnPlots(page);
    // The holds are seconds 0-1 and 3-4; the second between them ramps and is left out.
    const expected = [[0, 1], [3, 4]].map((seconds) => {
      const entries = seconds.map((s) => result.timeline[s]!);
      const completed = entries.reduce((sum, e) => sum + e.completed, 0);
      return { completed, perSecond: completed / 2, ...latencyOf(seconds.map((s) => result.merge.timeline[s]!)) };
    });
    const latency = plots['chart-steps-latency'];
    t.same(latency?.data[0], [40, 80], 'x: the target rate of each step');
    t.same(seriesOf(latency, 'p50'), expected.map((e) => e.p50), 'p50 from the seconds histograms added');
    t.same(seriesOf(latency, 'p99'), expected.map((e) => e.p99), 'p99 likewise');
    t.same(seriesOf(plots['chart-steps-throughput'], 'completed/s'), expected.map((e) => e.perSecond), 'requests/s: completed over the seconds');
    const rows = await tableCells(page, '#steps-table');
    t.same(rows.map((row) => row[0]), ['0', '2']);
    t.same(rows.map((row) => row[4]), expected.map((e) => String(e.completed)), 'completed per step in the table');
    t.match(await page.textContent('#chart-throughput-title'), 'Requests per second');
    const serverPlot = plots['chart-steps-server'];
    t.same(serverPlot?.labels, ['server CPU', 'network in'], 'the server per step, only what the monitor gave');
    t.same(seriesOf(serverPlot, 'server CPU'), [15, 45], "CPU: the mean of the step's seconds");
    t.same(seriesOf(serverPlot, 'network in'), [1.5, 4.5], 'network in MB/s likewise');
    const head = (await page.$$eval('#steps-table thead th', (cells) => cells.map((cell) => cell.textContent))).slice(-2);
    t.same(head, ['server CPU', 'machine in']);
    t.same(rows.map((row) => row.slice(-2)), [['15%', '1.5 MB/s'], ['45%', '4.5 MB/s']]);
  });

  t.test('a plain rate ramp from 0 says each ramp and its mean target; a last partial second is drawn as one', async (t) => {
    const server = await testServer(t);
    const result = await runLoad({ url: server.url, connections: 10, stages: [{ duration: '1s', rate: 100 }, { duration: 1500, rate: 300 }] });
    t.equal(result.timeline.length, 3, 'seconds 0, 1 and the half second 2');
    const { page, problems } = await openReport(browser, renderReport(result), 'rate-ramp-from-zero');
    t.same(problems, []);
    t.match(await page.textContent('header'), 'target rate 0/s → 100/s in 1 s → 300/s in 1.5 s (0 to 300/s)', 'the stages as written, and their range');
    const head = await tableHead(page, '#steps-table');
    const rows = (await tableCells(page, '#steps-table')).map((row) => Object.fromEntries(head.map((name, i) => [name, row[i]])));
    t.same(rows.map((row) => [row['target req/s'], row['lasts'], row['measured']]), [['0 → 100', '1 s', '1 s'], ['100 → 300', '1.5 s', '1 s']], 'each ramp from where the previous ended, and how long it lasts');
    t.same(rows.map((row) => row['mean target/s']), [0, 1].map((i) => String(result.timeline[i]!.targetRate)), 'the mean target of the seconds measured');
    const plots = await drawnPlots(page);
    const throughput = plots['chart-throughput'];
    t.same(throughput?.data[0], [1, 2, 2.5], 'the last point at the run\'s end');
    t.same(seriesOf(throughput, 'completed'), [result.timeline[0]!.completed, result.timeline[1]!.completed, result.timeline[2]!.completed / 0.5], 'its count per second of its half');
    t.match(await page.textContent('#partial-second'), 'ended 500 ms into its last second');
    t.match(formatResult(result).replace(/\s+/g, ' '), 'rate 0 req/s → 100 req/s in 1 s → 300 req/s in 1.5 s');
  });

  t.test('a monitored run has a server summary: the figures of result.server, the machine apart', async (t) => {
    const server = await testServer(t);
    const result = await runLoad({ url: server.url, rate: 100, connections: 4, duration: '2s', monitor: { processes: [process.pid] } });
    const { page, problems } = await openReport(browser, renderReport(result), 'server-summary');
    t.same(problems, []);
    const rows = await tableCells(page, '#server-table');
    const figures = Object.fromEntries(rows.map((row) => [`${row[0]} ${row[1]}`, row[2]]));
    const { cpuPercent, cpuPerRequestMs, memory, cores } = result.server!;
    t.same(Object.keys(figures), [`server CPU (of ${cores} cores)`, 'server CPU per request', 'server resident memory (mean, peak)'], 'the process\'s figures; no machine rows without node_exporter');
    t.equal(parseFloat(figures[`server CPU (of ${cores} cores)`]!), Number(cpuPercent!.toFixed(cpuPercent! < 10 ? 3 : 2)), 'CPU as result.server has it');
    t.equal(parseFloat(figures['server CPU per request']!), Number(cpuPerRequestMs!.toFixed(cpuPerRequestMs! < 10 ? 3 : 2)), 'CPU per request, ms');
    t.match(figures['server resident memory (mean, peak)'], /^[\d.]+ MB, [\d.]+ MB$/);
    t.ok(memory!.rssBytes > 1e6);
    t.same(await tableCells(page, '#server-sources'), [[`pid ${process.pid}`, 'process', `answered all ${result.server!.sources[0]!.seconds} s`]]);
  });

  t.test('a Socket.IO report names the event and the mode; a refused namespace is said, not "listen only"', async (t) => {
    const server = await socketIoServer(t);
    const acked = await runLoad({ url: server.url, connections: 2, duration: 1200, socketio: { emit: { event: 'echo', data: 1 }, ack: true } });
    const one = await openReport(browser, renderReport(acked), 'socketio-ack');
    t.same(one.problems, []);
    t.match(await one.page.textContent('header'), "Socket.IO · emits 'echo', timed by each acknowledgement (ack) · 2 clients");
    const refused = await runLoad({ url: server.url, connections: 2, duration: 800, socketio: { namespace: '/nope', emit: { event: 'echo', data: 1 }, ack: true } });
    t.ok(refused.errors.byCode['SIO_CONNECT_ERROR']! > 0);
    const two = await openReport(browser, renderReport(refused), 'socketio-refused');
    t.same(two.problems, []);
    const cards = (await two.page.textContent('.cards')) ?? '';
    t.match(cards, `none sent: namespace /nope refused all ${refused.errors.byCode['SIO_CONNECT_ERROR']} connects (SIO_CONNECT_ERROR)`);
    t.notMatch(cards, /listen only/);
    t.match(formatResult(refused).replace(/\s+/g, ' '), "Socket.IO emits 'echo', timed by each acknowledgement (ack) on namespace /nope");
  });

  t.test('a merged result reads like one run; a result without later fields still opens', async (t) => {
    const server = await testServer(t);
    const startAt = Date.now() + 500;
    const segments = await Promise.all([0, 1].map((index) => runLoad({ url: server.url, rate: 60, connections: 4, duration: '2s', segment: { index, count: 2 }, startAt })));
    const merged = mergeResults(segments);
    const one = await openReport(browser, renderReport(merged), 'merged');
    t.same(one.problems, []);
    t.same(Object.keys(await drawnPlots(one.page)), ['chart-throughput', 'chart-latency', 'chart-spectrum', 'chart-errors', 'chart-generator'], 'the charts of one run');
    t.match(await one.page.textContent('.cards'), new RegExp(`completed\\s*${merged.requests.completed}`));
    t.notMatch(await one.page.textContent('header') ?? '', /segment/, 'not a segment');

    // What the first results of this release lacked: no merge info, phases, generator, warnings, messages.
    const old = JSON.parse(JSON.stringify(segments[0])) as Record<string, unknown>;
    for (const key of ['merge', 'phases', 'phaseHistograms', 'generator', 'warnings', 'histogramUncorrected', 'latencyUncorrected', 'startedAt', 'ok']) delete old[key];
    old.timeline = (old.timeline as Array<Record<string, unknown>>).map(({ cpuPercent: _c, eventLoopUtilization: _e, ...rest }) => rest);
    const opened = await openReport(browser, renderReport(old as unknown as LoadResult), 'old-result', 390);
    t.same(opened.problems, [], 'no errors on a phone-width page either');
    t.same(Object.keys(await drawnPlots(opened.page)), ['chart-throughput', 'chart-latency', 'chart-spectrum', 'chart-errors'], 'no generator chart without its numbers');
    const width = await opened.page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
    t.ok(width <= 390, `the page fits a phone's width (${width} px)`);
  });
});
