// A sweep against servers of known capacity: the test server's capacity mode serves at most N
// requests a second (the rest queue), each after its delay; the knee must fall where that runs out.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { sweep } from '../../src/index.js';
import { renderSweepReport } from '../../src/report/index.js';
import { runSalvo } from '../fixtures/cli.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun } from '../fixtures/timing.js';

const quick = { stepDuration: 1500, warmup: 500, pause: 200 } as const;

t.test('a rate sweep over a 350/s server: knee at 300/s, saturated at 400/s, and it stops there', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const server = await testServer(t, { capacity: 350 });
    const result = await sweep({ url: server.url, connections: 200, sweep: { rates: [100, 200, 300, 400, 500, 600] }, ...quick });
    const loads = result.points.map((point) => point.load);
    t.equal(result.over, 'rate');
    t.ok(result.points.every((point, index) => index === result.points.length - 1 || !point.saturated), 'only the last point run is saturated');
    const knee = result.knee === undefined ? undefined : result.points[result.knee]!.load;
    // 350/s lies between the 300 and 400 steps: the knee is the last below it, within one step of the truth.
    timing.ok(knee === 300, `knee at ${knee} req/s (the server's capacity is 350/s; points ${loads.join(', ')})`);
    timing.ok(result.saturatedAt === 400, `saturated at ${result.saturatedAt} req/s: ${result.points.at(-1)?.why}`);
    timing.ok(loads.at(-1) === 400, 'the sweep stopped after the first saturated point');
    t.equal(result.kneeMethod, result.knee === undefined ? undefined : 'kneedle');
    t.match(result.message, /saturated at/);
    const page = renderSweepReport(result);
    t.match(page, /id="chart-sweep-throughput"/);
    t.match(page, /id="chart-sweep-latency"/);
    t.match(page, /<span class="pass">knee<\/span>/, 'the knee marked in the table');
  }),
);

t.test('a connection sweep over 400/s, 10 ms each: the knee where 4 connections fill it', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const server = await testServer(t, { capacity: 400, delayMs: 10 });
    const result = await sweep({ url: server.url, sweep: { connections: [1, 2, 4, 8, 16] }, ...quick });
    const knee = result.knee === undefined ? undefined : result.points[result.knee]!.load;
    const summary = result.points.map((point) => `${point.load}: ${point.throughput.toFixed(0)}/s`).join(', ');
    // 4 connections at 10 ms each ask 400/s, the server's whole capacity.
    timing.ok(knee === 4, `knee at ${knee} connections (${summary})`);
    timing.ok(result.saturatedAt === 8, `saturated at ${result.saturatedAt} connections`);
    t.equal(result.over, 'connections');
  }),
);

t.test('salvo sweep writes the table and the page', async (t) => {
  const server = await testServer(t);
  const dir = t.testdir();
  const html = join(dir, 'sweep.html');
  const run = await runSalvo(['sweep', server.url, '--rates', '20,40', '--step-duration', '500ms', '--warmup', '0', '--pause', '0', '--arrivals', 'poisson', '--html', html]);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /Sweep http:\/\/127\.0\.0\.1:\d+\/ over rates: 20, 40 req\/s/);
  t.match(run.stderr, /point 2 40 req\/s:/);
  t.equal(server.stats.requests, 30, 'two points of 500 ms: 10 and 20 requests, as many as a constant rate sends');
  t.match(await readFile(html, 'utf8'), /salvo sweep report/);
  const bad = await runSalvo(['sweep', server.url, '--rates', '200,100']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /sweep loads must rise/);
});
