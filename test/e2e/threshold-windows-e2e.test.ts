// Windowed thresholds end to end: a server that stalls for 3 s in the middle of a 30 s run.
import t from 'tap';
import { evaluateThresholds, parseThresholds } from '../../src/stats/thresholds.js';
import { mergeResults, runLoad } from '../../src/index.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun } from '../fixtures/timing.js';

t.test('a 3 s stall in a 30 s run fails a 10 s windowed p99 whose whole-run p99 passes', async (t) => {
  // A closed loop hides a stall in the whole run (coordinated omission): each of 10 connections has
  // one request caught in it, 3 s slow, among about 180 of 150 ms: 0.55% of the run, under 1%, but
  // more than 1.5% of any 10 s window that holds it (at most 67 responses per connection).
  const server = await testServer(t, { delayMs: 150 });
  await inSomeRun(t, 2, async (timing) => {
    const result = await runLoad({
      url: server.url,
      connections: 10,
      duration: '30s',
      thresholds: { 'latency.p99': { threshold: '< 1000', window: '10s' } },
      onProgress: (event) => {
        if (event.second === 11) server.stall(3000);
      },
    });
    const [whole] = evaluateThresholds(parseThresholds({ 'latency.p99': '< 1000' }), result);
    timing.ok(whole!.passed, `the whole run's p99 passes: ${whole!.actual} ms`);
    const [windowed] = result.thresholds!;
    t.equal(result.ok, false, 'the windowed threshold fails the run');
    t.equal(windowed!.passed, false);
    t.ok(windowed!.actual >= 2900, `the worst window's p99 is the stall: ${windowed!.actual} ms`);
    // The slow responses all complete when the stall ends: the windows that failed are exactly those holding that second.
    const stalled = result.timeline.filter((entry) => entry.p99 >= 2900).map((entry) => entry.second);
    t.equal(stalled.length, 1, `one second took the stalled responses: ${stalled.join(', ')}`);
    const last = stalled[0]!;
    const windows = windowed!.windows!;
    t.equal(windows.judged, result.timeline.length - 9);
    t.same(
      windows.failed.map(({ from, to }) => [from, to]),
      Array.from({ length: windows.judged }, (_, from) => [from, from + 10]).filter(([from, to]) => from! <= last && last < to!),
      `every 10 s window holding second ${last}, and no other`,
    );
    // mergeResults judges the same threshold again, on the merged seconds.
    t.same(mergeResults([result]).thresholds![0]!.windows, windows);
  });
});
