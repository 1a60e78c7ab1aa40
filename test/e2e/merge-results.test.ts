import t from 'tap';
import { performance } from 'node:perf_hooks';
import { mergeResults, runLoad, SalvoOptionError } from '../../src/index.js';
import { planLoad } from '../../src/options.js';
import type { Plan } from '../../src/shared/plan.js';
import { mergeShards } from '../../src/stats/merge.js';
import { decodeHistogram, encodeHistogram } from '../../src/stats/histogram.js';
import { Recorder } from '../../src/stats/recorder.js';
import { createTestServer } from '../../src/testing/index.js';
import type { LoadOptions } from '../../src/shared/load-options.js';
import type { LoadResult } from '../../src/shared/load-result.js';
import { segmentPlan } from '../../src/workers/shard.js';
import { inSomeRun } from '../fixtures/timing.js';

const url = 'http://127.0.0.1:9/';
const gauges = { connections: () => 2, targetRate: () => undefined };
const EPOCH = 1_800_000_000_000;

/**
 * A deterministic latency for sample i of segment s, in ms: segments 0 and 1 answer in 0.5 to 1.5 ms,
 * segment 2 (half the samples) sends 5% of its answers at 30 ms.
 */
const latencyOf = (segment: number, i: number) => (segment === 2 && i % 20 === 0 ? 30 : 0.5 + ((i * 7919) % 1000) / 1000);

/**
 * The results of segments 0..count-1 of a 3 s run (segment k answers 300 (k + 1) requests), measured
 * by real Recorders as runLoad would, segment k started `offsetsMs[k]` after EPOCH; `all` records
 * every sample of every segment in one Recorder, in time order.
 */
function segmentResults(options: Omit<LoadOptions, 'url'>, count: number, all?: Recorder, offsetsMs: number[] = []): LoadResult[] {
  const samples: Array<{ segment: number; at: number; latency: number; status: number }> = [];
  const recorders = Array.from({ length: count }, () => new Recorder(0, gauges, undefined));
  for (let segment = 0; segment < count; segment++) {
    for (let i = 0; i < 300 * (segment + 1); i++) {
      const at = (offsetsMs[segment] ?? 0) + (i * 2999) / (300 * (segment + 1));
      samples.push({ segment, at, latency: latencyOf(segment, i), status: i % 10 === 0 ? 500 : 200 });
    }
  }
  samples.sort((a, b) => a.at + a.latency - (b.at + b.latency));
  for (const { segment, at, latency, status } of samples) {
    // Each segment's recorder counts from its own start.
    const own = at - (offsetsMs[segment] ?? 0);
    recorders[segment]!.recordSent(10, own);
    recorders[segment]!.recordResponse(status, 100, latency, latency, own + latency);
    all?.recordSent(10, at);
    all?.recordResponse(status, 100, latency, latency, at + latency);
  }
  return recorders.map((recorder, index) => {
    const whole: Plan = planLoad({ url, duration: 3000, ...options, segment: { index, count } }).plan;
    recorder.recordError('ECONNRESET', 1500);
    const stats = { ...recorder.finish(3000, 3000, false, undefined), startedAt: EPOCH + (offsetsMs[index] ?? 0) };
    // Through JSON, as the results of other processes and machines arrive.
    return JSON.parse(JSON.stringify(mergeShards(segmentPlan(whole, whole.segment!), [stats], false, whole))) as LoadResult;
  });
}

t.test('merging segment results is exact: histograms byte for byte, counts, seconds, thresholds', async (t) => {
  const all = new Recorder(0, gauges, undefined);
  const thresholds = { 'latency.p99': '< 12', 'requests.completed': '== 1800' };
  const results = segmentResults({ connections: 6, thresholds }, 3, all);
  const merged = mergeResults(results);
  const union = mergeShards(planLoad({ url, duration: 3000 }).plan, [{ ...all.finish(3000, 3000, false, undefined), startedAt: EPOCH }], false);

  t.equal(merged.histogram, union.histogram, 'the merged corrected histogram is the histogram of all samples, byte for byte');
  t.equal(merged.histogramUncorrected, union.histogramUncorrected, 'and the uncorrected one');
  t.same(merged.latency, union.latency, 'every percentile from the merged histogram');
  t.same(merged.merge.timeline, union.merge.timeline, 'each second\'s histogram too');
  t.same(merged.timeline.map((s) => [s.second, s.completed, s.p50, s.p99]), union.timeline.map((s) => [s.second, s.completed, s.p50, s.p99]));
  const decoded = decodeHistogram(merged.histogram);
  t.equal(decoded.totalCount, 1800, '300 + 600 + 900 samples');
  t.equal(encodeHistogram(decoded), merged.histogram, 're-encoding gives the same bytes');
  decoded.destroy();

  t.same(merged.requests, { sent: 1800, completed: 1800, perSecond: 600, missed: 0, retried: 0, unfinished: 0 });
  t.same(merged.statusCodes, { 200: 1620, 500: 180 });
  t.same(merged.errors, { total: 3, byCode: { ECONNRESET: 3 } });
  t.same(merged.bytes, { sent: 18_000, received: 180_000 });
  t.equal(merged.connections, 6, 'the segments\' connections add up to the whole plan\'s');
  t.equal(merged.durationMs, 3000);
  t.equal(merged.startedAt, EPOCH);
  t.same(merged.timeline.map((s) => s.connections), [6, 6, 6]);
  t.equal(merged.merge.segment, undefined, 'all segments merged: a whole run');
  t.same(merged.merge.plan, results[0]!.merge.plan);

  // Segment 2 (half the samples) has its slow 5%, the others none: the mean of the segments' p99s
  // passes p99 < 12; the p99 of all the samples (2.5% of them at 30 ms) does not.
  const meanP99 = results.reduce((sum, r) => sum + r.latency.p99, 0) / 3;
  t.ok(meanP99 < 12, `the mean of the segments' p99s (${meanP99.toFixed(3)}) would pass`);
  t.ok(merged.latency.p99 > 29.9, `merged p99 ${merged.latency.p99}: the slow answers`);
  t.same(merged.thresholds!.map((x) => [x.metric, x.actual, x.passed]), [['latency.p99', merged.latency.p99, false], ['requests.completed', 1800, true]]);
  t.equal(merged.ok, false, 'judged on the merged p99');
  t.equal(mergeResults(results, { thresholds: { 'latency.p99': '< 100' } }).ok, true, 'thresholds given to mergeResults replace the results\' ones');

  const again = mergeResults([mergeResults(results.slice(0, 1), { force: true }), mergeResults(results.slice(1), { force: true })], { force: true });
  t.equal(again.histogram, merged.histogram, 'merging merged results is exact too');
});

t.test('the timeline aligns on wall-clock seconds from the earliest start', async (t) => {
  const results = segmentResults({ connections: 2 }, 2, undefined, [0, 2000.4]);
  const merged = mergeResults(results);
  t.equal(merged.startedAt, EPOCH);
  // Epoch ms near 1.8e12 keep about 0.2 µs of precision.
  t.ok(Math.abs(merged.durationMs - 5000.4) < 1e-3, `the span covered, ${merged.durationMs}: 2000.4 ms late and 3000 ms long`);
  t.same(merged.timeline.map((s) => s.second), [0, 1, 2, 3, 4]);
  t.same(merged.timeline.map((s) => s.completed), [100, 100, 100 + 200, 200, 200], 'the later segment\'s second 0 is the merged second 2');
  t.ok(Math.abs(merged.requests.perSecond - 900 / 5.0004) < 1e-3, 'per second of the span');
});

t.test('results that are not one run\'s parts are an error, or a warning with force', async (t) => {
  const [a, b, c] = segmentResults({ connections: 6 }, 3);
  const other = segmentResults({ connections: 6 }, 2)[1]!;
  const cases: Array<[LoadResult[], RegExp]> = [
    [[a!, a!, b!, c!], /segment 0 of 3 given more than once/],
    [[a!, c!], /segment 1 of 3 missing/],
    [[a!, b!, c!, other], /segment counts disagree: 3, 2/],
    [[a!, b!, { ...c!, url: 'http://127.0.0.1:10/' }], /URLs differ: "http:\/\/127\.0\.0\.1:9\/" vs "http:\/\/127\.0\.0\.1:10\/"/],
    [[a!, b!, { ...c!, merge: { ...c!.merge, thresholds: { 'latency.p99': '< 5' } } }], /thresholds differ/],
    [[a!, b!, c!, { ...a!, merge: { ...a!.merge, segment: undefined } }], /1 of 4 results are whole runs and the others segments/],
  ];
  for (const [results, message] of cases) {
    t.throws(() => mergeResults(results), SalvoOptionError);
    t.throws(() => mergeResults(results), message);
    t.throws(() => mergeResults(results), /Pass \{ force: true \} to merge them anyway/);
  }
  const forced = mergeResults([a!, a!, b!, c!], { force: true });
  t.equal(forced.requests.completed, 300 + 300 + 600 + 900, 'force adds them up');
  t.match(forced.warnings, [{ code: 'MERGE_MISMATCH', message: /segment 0 of 3 given more than once/ }], 'and says what was wrong');
  t.throws(() => mergeResults([]), /results must be a non-empty array/);
  t.throws(() => mergeResults([{ url } as unknown as LoadResult]), /results\[0\] is not a mergeable LoadResult/);
  t.same(mergeResults([a!, b!, c!]).warnings, [], 'one run\'s parts merge without a warning');
});

t.test('startAt: the measured run starts at that wall-clock instant, in-process and with workers', async (t) => {
  const server = await createTestServer();
  t.teardown(() => server.close());
  for (const workers of [1, 2]) {
    await inSomeRun(t, 3, async (timing) => {
      server.reset();
      // Worker threads take seconds to load under tsx on a busy host.
      const startAt = Date.now() + (workers > 1 ? 8000 : 400);
      const result = await runLoad({ url: server.url, connections: 2, workers, amount: 200, warmup: 100, startAt: new Date(startAt) });
      t.equal(result.requests.completed, 200, `workers ${workers}: exactly the amount`);
      const onTime = !result.warnings.some((w) => w.code === 'LATE_START');
      // Threads that took longer than that to load start late and say so: the host's doing.
      (workers > 1 ? timing.hostKept : timing.ok)(onTime, `workers ${workers}: ready before startAt, no LATE_START (${result.warnings.map((w) => w.code).join()})`);
      const lateness = result.startedAt - startAt;
      if (onTime) timing.ok(lateness >= 0 && lateness < 5, `workers ${workers}: measured from ${lateness.toFixed(3)} ms after startAt (0 to 5)`);
      else t.ok(result.warnings.some((w) => w.code === 'LATE_START'), 'a late start says so');
    });
  }
  const past = Date.now() - 1000;
  const before = performance.timeOrigin + performance.now();
  const late = await runLoad({ url: server.url, connections: 2, amount: 10, startAt: past });
  t.match(late.warnings.find((w) => w.code === 'LATE_START'), { message: /had passed by \d+ ms .* started at once/ }, 'a time in the past says so');
  t.ok(late.startedAt >= before && late.startedAt < before + 2000, 'and starts at once');
  t.equal(late.requests.completed, 10);

  const controller = new AbortController();
  const aborting = runLoad({ url: server.url, connections: 2, duration: 1000, startAt: Date.now() + 60_000, signal: controller.signal });
  setTimeout(() => controller.abort(), 100);
  const aborted = await aborting;
  t.equal(aborted.aborted, true, 'an abort ends the wait for startAt');
  t.equal(aborted.requests.sent, 0);
});

t.test("steps of one steered run's segments are kept on the merged clock; differing ones are dropped", async (t) => {
  // Segment 1 started 2.4 ms after segment 0 and saw each change 2.4 ms earlier into its run, plus a little.
  const results = segmentResults({ connections: 4, rate: 600 }, 2, undefined, [0, 2.4]);
  results[0]!.steps = [{ atMs: 1000.5, rate: 900 }, { atMs: 2000.25, connections: 2 }];
  results[1]!.steps = [{ atMs: 998.3, rate: 900 }, { atMs: 1998, connections: 2 }];
  const merged = mergeResults(results);
  t.same(merged.steps, [{ atMs: 1000.5, rate: 900 }, { atMs: 2000.25, connections: 2 }], 'each change where the earliest segment saw it, on the merged clock');
  const later = structuredClone(results);
  later[0]!.steps = [{ atMs: 1000.5, rate: 900 }, { atMs: 2001, connections: 2 }];
  later[1]!.steps = [{ atMs: 997, rate: 900 }, { atMs: 1997, connections: 2 }];
  t.same(mergeResults(later).steps, [{ atMs: 999.4, rate: 900 }, { atMs: 1999.4, connections: 2 }], 'the earliest of the segments, whichever it is');

  const differ = structuredClone(results);
  differ[1]!.steps = [{ atMs: 998.3, rate: 800 }];
  t.equal(mergeResults(differ).steps, undefined, 'different changes: not one run steered, no steps kept');
  const some = structuredClone(results);
  delete some[1]!.steps;
  t.equal(mergeResults(some).steps, undefined, 'steps in only some results: none kept');
  t.equal(mergeResults(segmentResults({ connections: 4 }, 2)).steps, undefined, 'no steps: none');
});
