// A sweep against a server of known capacity, in its own process: a fixed number of slots, each
// busy for a known time. The knee must fall where the slots run out.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { sweep } from '../../src/index.js';
import { renderSweepReport } from '../../src/report/index.js';
import { runSalvo } from '../fixtures/cli.js';
import { testServer } from '../fixtures/test-server.js';
import { serverCount } from '../fixtures/server-count.js';
import { slotServer } from '../fixtures/arrival-server.js';
import { startLlmServer } from '../fixtures/llm-server.js';
import { formatSweep } from '../../src/index.js';
import { inSomeRun } from '../fixtures/timing.js';

const quick = { stepDuration: 1500, warmup: 500, pause: 200 } as const;

// 4 slots each busy 20 ms: the server serves at most 200 requests a second, and 4 connections fill it.
const SLOTS = 4;
const BUSY_MS = 20;

t.test('a rate sweep with Poisson arrivals over 4 slots of 20 ms: the knee within one step of 200/s, where the slots run out', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const server = await slotServer(t, SLOTS, BUSY_MS);
    const result = await sweep({ url: server.url, connections: 100, arrivals: 'poisson', sweep: { rates: [100, 150, 200, 250, 300, 350] }, ...quick });
    const loads = result.points.map((point) => point.load);
    const summary = result.points.map((point) => `${point.load}: ${point.throughput.toFixed(0)}/s p99 ${point.p99.toFixed(1)} ms`).join(', ');
    t.equal(result.over, 'rate');
    t.ok(result.points.every((point, index) => index === result.points.length - 1 || !point.saturated), 'only the last point run is saturated');
    t.equal(result.kneeMethod, result.knee === undefined ? undefined : 'kneedle');
    const knee = result.knee === undefined ? undefined : result.points[result.knee]!.load;
    timing.ok(knee !== undefined && Math.abs(knee - 200) <= 50, `knee at ${knee} req/s, within one step (50/s) of the slots' 200/s (${summary})`);
    timing.ok(result.saturatedAt !== undefined && result.saturatedAt >= 200 && result.saturatedAt <= 300, `saturated at ${result.saturatedAt} req/s: ${result.points.at(-1)?.why}`);
    timing.ok(loads.at(-1) === result.saturatedAt && loads.length < 6, 'the sweep stopped after the first saturated point');
    const page = renderSweepReport(result);
    t.match(page, /id="chart-sweep-throughput"/);
    t.match(page, /id="chart-sweep-latency"/);
    t.match(page, result.knee === undefined ? /no knee found/ : /<span class="pass">knee<\/span>/, 'the knee marked in the table');
  }),
);

t.test('a connection sweep over 4 slots of 20 ms: the knee at 4 connections, saturated at 8', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const server = await slotServer(t, SLOTS, BUSY_MS);
    const result = await sweep({ url: server.url, sweep: { connections: [1, 2, 4, 8, 16] }, ...quick });
    const knee = result.knee === undefined ? undefined : result.points[result.knee]!.load;
    const summary = result.points.map((point) => `${point.load}: ${point.throughput.toFixed(0)}/s`).join(', ');
    t.equal(result.over, 'connections');
    timing.ok(knee === SLOTS, `knee at ${knee} connections: the slots run out at ${SLOTS} (${summary})`);
    timing.ok(result.saturatedAt === 8, `saturated at ${result.saturatedAt} connections`);
  }),
);

t.test('salvo sweep writes the table and the page', async (t) => {
  const server = await testServer(t);
  const dir = t.testdir();
  const html = join(dir, 'sweep.html');
  const run = await runSalvo(['sweep', server.url, '--rates', '20,40', '--step-duration', '500ms', '--warmup', '0', '--pause', '0', '--arrivals', 'poisson', '--all', '--html', html]);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /Sweep http:\/\/127\.0\.0\.1:\d+\/ over rates: 20, 40 req\/s/);
  t.match(run.stderr, /point 2 40 req\/s:/);
  t.equal(await serverCount(server, 30), 30, 'two points of 500 ms (--all: both, whatever the first did): 10 and 20 requests, as many as a constant rate sends');
  t.match(await readFile(html, 'utf8'), /salvo sweep report/);
  const bad = await runSalvo(['sweep', server.url, '--rates', '200,100']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /sweep loads must rise/);
});

t.test('a sweep over token streams draws TTFT, TPOT and ITL by load', async (t) => {
  const server = await startLlmServer({ style: 'openai', tokens: 10, intervalMs: 2, delayMs: 5, promptTokens: 7 });
  t.teardown(() => server.close());
  const result = await sweep({
    url: server.url,
    method: 'POST',
    body: { model: 'm', stream: true, messages: [{ role: 'user', content: 'Hi' }] },
    stream: { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' },
    sweep: { rates: [10, 20] },
    stepDuration: 500,
    warmup: 0,
    pause: 0,
    stopAtSaturation: false,
  });
  t.equal(result.points.length, 2);
  t.ok(result.points.every((point) => point.result.stream?.ttft !== undefined), 'each point has its TTFT');
  t.match(renderSweepReport(result), /id="chart-sweep-tokens"/);
  t.match(formatSweep(result), /TTFT p99 +TPOT p50/);
  const saved = join(t.testdir(), 'sweep.json');
  await writeFile(saved, JSON.stringify(result));
  const report = await runSalvo(['report', saved]);
  t.equal(report.code, 0, report.stderr);
  t.match(report.stdout, /salvo sweep report/, 'salvo report renders a saved sweep');
});
