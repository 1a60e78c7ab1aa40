import t from 'tap';
import { planLoad } from '../src/options.js';
import { mergeShards } from '../src/stats/merge.js';
import { Recorder } from '../src/stats/recorder.js';

const plan = planLoad({ url: 'http://127.0.0.1:9/', duration: 3000 }).plan;
const gauges = { connections: () => 4, targetRate: () => undefined };

t.test('latency keeps microsecond precision in milliseconds', async (t) => {
  const recorder = new Recorder(0, gauges, undefined);
  recorder.recordResponse(200, 10, 1.234, 1.234, 10);
  const result = mergeShards(plan, [recorder.finish(1000, 1000, false, undefined)], false);
  t.equal(result.latency.p50, 1.234);
  t.equal(result.latency.min, 1.234);
  t.equal(result.latency.max, 1.234);
});

t.test('two shards merge exactly into the distribution of their union', async (t) => {
  const a = new Recorder(0, gauges, undefined);
  const b = new Recorder(0, gauges, undefined);
  const whole = new Recorder(0, gauges, undefined);
  // Shard a answers fast (1..100 µs·10), shard b slow (1000..1990 µs): averaging shard
  // percentiles would give ~0.5 ms for the median; the union's median is the boundary between them.
  for (let i = 1; i <= 100; i++) {
    for (const recorder of [a, whole]) recorder.recordResponse(200, 1, i / 100, i / 100, 100 + i);
    for (const recorder of [b, whole]) recorder.recordResponse(500, 2, 1 + i / 100, 1 + i / 100, 1500 + i);
  }
  a.recordError('ECONNRESET', 200);
  b.recordError('ECONNRESET', 1700);
  b.recordError('TIMEOUT', 2500);
  const merged = mergeShards(plan, [a.finish(3000, 3000, false, undefined), b.finish(3000, 3000, false, undefined)], false);
  const single = mergeShards(plan, [whole.finish(3000, 3000, false, undefined)], false);
  t.same(merged.latency, single.latency, 'merged percentiles equal the union\'s');
  t.equal(merged.latency.p50, 1, 'median at the boundary: 1.000 ms');
  t.equal(merged.latency.p99, 1.98, 'rank 198 of 200');
  t.same(merged.statusCodes, { 200: 100, 500: 100 });
  t.same(merged.errors, { total: 3, byCode: { ECONNRESET: 2, TIMEOUT: 1 } });
  t.equal(merged.requests.completed, 200);
  t.equal(merged.bytes.received, 300);
  t.equal(merged.requests.perSecond, 200 / 3);
  t.same(merged.timeline.map((s) => [s.second, s.completed, s.errors, s.connections]), [
    [0, 100, 1, 8],
    [1, 100, 1, 8],
    [2, 0, 1, 8],
  ]);
  t.equal(merged.timeline[1]!.p50, 1.5);
});

t.test('an empty run reports zeros, not NaN', async (t) => {
  const recorder = new Recorder(0, gauges, undefined);
  const result = mergeShards(plan, [recorder.finish(0, 0, true, undefined)], true);
  t.equal(result.latency.p99, 0);
  t.equal(result.requests.perSecond, 0);
  t.equal(result.aborted, true);
  t.same(result.timeline, []);
});

t.test('uncorrected latency: shared while equal, exact once the two differ', async (t) => {
  const closed = new Recorder(0, gauges, undefined);
  closed.recordResponse(200, 1, 2, 2, 10);
  closed.recordResponse(200, 1, 4, 4, 20);
  const closedResult = mergeShards(plan, [closed.finish(1000, 1000, false, undefined)], false);
  t.same(closedResult.latencyUncorrected, closedResult.latency, 'closed loop: the same distribution');

  const open = new Recorder(0, gauges, undefined);
  // Values under 2.048 ms, where the histogram's buckets are 1 µs wide: exact.
  open.recordResponse(200, 1, 1, 1, 10); // on time: both 1 ms
  open.recordResponse(200, 1, 1.9, 1.3, 20); // sent 0.6 ms late: 1.9 ms corrected, 1.3 ms from the write
  open.recordResponse(200, 1, 1.4, 1.4, 30);
  const openResult = mergeShards(plan, [open.finish(1000, 1000, false, undefined)], false);
  t.same([openResult.latency.min, openResult.latency.max], [1, 1.9]);
  t.same([openResult.latencyUncorrected.min, openResult.latencyUncorrected.max], [1, 1.4]);
  t.equal(openResult.latencyUncorrected.mean.toFixed(4), '1.2333', 'all three responses: (1 + 1.3 + 1.4) / 3');
  t.equal(openResult.latency.mean.toFixed(4), '1.4333', '(1 + 1.9 + 1.4) / 3');
});
