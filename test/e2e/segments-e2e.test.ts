import t from 'tap';
import { mergeResults } from '../../src/index.js';
import { decodeHistogram } from '../../src/stats/histogram.js';
import { createTestServer } from '../../src/testing/index.js';
import type { LoadOptions } from '../../src/shared/load-options.js';
import { runInProcesses } from '../fixtures/segment-processes.js';
import { inSomeRun } from '../fixtures/timing.js';

// The proof on one machine: N separate Node processes run segments 0..N-1 of one plan with a common
// startAt, their JSON results are merged, and the merged result is checked against what the server
// saw and against one process running the whole plan.
const SEGMENTS = 3;
const DELAY_MS = 5;
const segmentsOf = (options: LoadOptions): LoadOptions[] =>
  Array.from({ length: SEGMENTS }, (_, index) => ({ ...options, segment: { index, count: SEGMENTS } }));

t.test('amount: segments in separate processes send exactly the amount over exactly the connections', async (t) => {
  const server = await createTestServer({ delayMs: DELAY_MS, preciseDelay: true });
  t.teardown(() => server.close());
  // Two worker threads inside each segment: segment 0 splits its 3 connections 2 + 1 further.
  const plan: LoadOptions = { url: server.url, connections: 7, amount: 2000, workers: 2 };
  const { results } = await runInProcesses(segmentsOf(plan));
  const merged = mergeResults(results);
  t.same(results.map((r) => [r.connections, r.workers, r.requests.completed]), [[3, 2, 857], [2, 2, 572], [2, 2, 571]], 'each segment its share: 3 + 2 + 2 connections, amount in proportion, over 2 threads');
  t.equal(merged.requests.completed, 2000, 'merged: exactly the amount');
  t.equal(merged.requests.sent, 2000);
  t.equal(server.stats.requests, 2000, 'the server saw exactly the amount');
  t.equal(server.stats.connections, 7, 'over exactly the connections');
  t.equal(merged.connections, 7);
  t.same(merged.statusCodes, { 200: 2000 });
  t.equal(merged.bytes.received, server.stats.bytesSent, 'every byte the server wrote');
  t.equal(merged.bytes.sent, server.stats.bytesReceived, 'every byte it read');
  const histogram = decodeHistogram(merged.histogram);
  t.equal(histogram.totalCount, 2000, 'one latency sample per response in the merged histogram');
  histogram.destroy();

  server.reset();
  const [single] = (await runInProcesses([plan])).results;
  t.equal(single!.requests.completed, 2000, 'one process: the same count');
  t.equal(server.stats.connections, 7, 'and the same connections at the server');
});

t.test('rate: merged segments match the server, one process, the rate per second and the delay', async (t) => {
  const server = await createTestServer({ delayMs: DELAY_MS, preciseDelay: true });
  t.teardown(() => server.close());
  const rate = 300;
  const plan: LoadOptions = { url: server.url, connections: 9, rate, duration: 3000 };
  await inSomeRun(t, 4, async (timing) => {
    server.reset();
    const { results, startAt } = await runInProcesses(segmentsOf(plan));
    const applied = server.stats.appliedDelayMs;
    const seen = { requests: server.stats.requests, connections: server.stats.connections };
    const merged = mergeResults(results);
    t.equal(merged.requests.completed + results.reduce((n, r) => n + r.errors.total, 0) <= seen.requests, true, 'never more answers than the server saw');
    t.equal(seen.connections, 9, 'the server saw exactly the connections');
    timing.ok(!merged.warnings.some((warning) => warning.code === 'LATE_START'), 'no segment started late');
    // Ignoring startAt would start them a whole lead (1 s) early, as each got it.
    for (const r of results) timing.ok(Math.abs(r.startedAt - startAt) < 50, `segment ${r.merge.segment!.index} started ${(r.startedAt - startAt).toFixed(3)} ms from startAt (within 50 ms)`);
    t.equal(merged.timeline.length, 3, 'three seconds, aligned');
    t.ok(results.every((r) => r.timeline.length === 3 && Math.round((r.startedAt - merged.startedAt) / 1000) === 0), 'every segment\'s second k is merged second k');
    const expected = rate * 3;
    timing.ok(Math.abs(merged.requests.completed - expected) <= 0.02 * expected, `completed ${merged.requests.completed} within 2% of ${expected}`);
    for (const second of merged.timeline) {
      timing.ok(Math.abs(second.sent - rate) <= 0.02 * rate, `second ${second.second}: sent ${second.sent} within 2% of ${rate}`);
      timing.ok(Math.abs(second.completed - rate) <= 0.02 * rate, `second ${second.second}: completed ${second.completed} within 2% of ${rate}`);
      t.equal(second.targetRate, rate, `second ${second.second}: the segments' target rates add up to ${rate}`);
    }
    timing.hostKept(applied < DELAY_MS + 1, `the server kept its delay (${applied.toFixed(3)} ms)`);
    timing.ok(Math.abs(merged.latency.p50 - applied) < 1, `merged p50 ${merged.latency.p50} within 1 ms of the server's delay ${applied.toFixed(3)}`);

    server.reset();
    const [single] = (await runInProcesses([plan])).results;
    t.equal(server.stats.connections, 9, 'one process: the same connections at the server');
    t.equal(single!.timeline.length, merged.timeline.length, 'the same seconds');
    timing.ok(Math.abs(merged.requests.completed - single!.requests.completed) <= 0.02 * single!.requests.completed,
      `merged ${merged.requests.completed} within 2% of one process's ${single!.requests.completed}`);
    timing.ok(Math.abs(merged.latency.p50 - single!.latency.p50) < 1, `p50: merged ${merged.latency.p50}, one process ${single!.latency.p50}`);
  });
});
