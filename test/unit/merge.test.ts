import t from 'tap';
import { planLoad } from '../../src/options.js';
import { mergeShards } from '../../src/stats/merge.js';
import { createHistogram, decodeHistogram, encodeHistogram, moments, slotTop } from '../../src/stats/histogram.js';
import { PendingLatencies } from '../../src/stats/pending-latencies.js';
import { Recorder } from '../../src/stats/recorder.js';

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

t.test('an empty run has no latency (count 0, NaN: null in JSON), and zero rates', async (t) => {
  const recorder = new Recorder(0, gauges, undefined);
  const result = mergeShards(plan, [recorder.finish(0, 0, true, undefined)], true);
  t.equal(result.latency.count, 0);
  t.ok(Number.isNaN(result.latency.p99), 'no latency is not zero latency');
  t.same([result.requests.unfinished, result.failed], [0, { total: 0, byStatus: {} }]);
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

t.test('pending latencies move into histograms exactly as recording each value would', async (t) => {
  const values = [0, 1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 123_456, 2 ** 31 - 1, 2 ** 31, 3_600_000_000];
  let seed = 7;
  for (let i = 0; i < 20_000; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    // Spread over every bucket: a random power of two times a random fraction.
    values.push(Math.min(3_600_000_000, Math.floor(2 ** (seed % 32) * ((seed >>> 8) / 2 ** 23))));
  }
  const direct = createHistogram();
  const viaPending = createHistogram();
  const alsoViaPending = createHistogram();
  const pending = new PendingLatencies();
  for (const [i, us] of values.entries()) {
    direct.recordValue(us);
    pending.record(us);
    // Flushes at arbitrary points, as the recorder does each second.
    if (i % 5_000 === 4_999) pending.flushInto(viaPending, alsoViaPending);
  }
  pending.flushInto(viaPending, alsoViaPending);
  t.equal(encodeHistogram(viaPending), encodeHistogram(direct), 'same counts in the same slots');
  t.equal(encodeHistogram(alsoViaPending), encodeHistogram(direct), 'the second histogram too');
  t.equal(viaPending.totalCount, values.length);
  // Results come from encoded histograms, which keep slots, not the raw extremes.
  const decoded = decodeHistogram(encodeHistogram(direct));
  t.equal(slotTop(viaPending.maxValue), decoded.maxValue, 'max: the top of the highest slot, as decoding reports it');
  t.equal(slotTop(direct.maxValue), decoded.maxValue);
  t.equal(decodeHistogram(encodeHistogram(viaPending)).minNonZeroValue, decoded.minNonZeroValue, 'min');
  t.equal(viaPending.mean, direct.mean);
  for (const p of [0, 50, 90, 99, 99.9, 100]) t.equal(viaPending.getValueAtPercentile(p), direct.getValueAtPercentile(p), `p${p}`);
  pending.flushInto(viaPending);
  t.equal(viaPending.totalCount, values.length, 'a flush forgets what it moved');
  const single = createHistogram();
  pending.record(5);
  pending.record(5);
  pending.flushInto(single);
  t.same([single.totalCount, single.minNonZeroValue, single.maxValue], [2, 5, 5], 'one slot only: counted once, min and max kept');
});

t.test("a second's latencies encoded from their counts: hdr-histogram-js's very string, and its percentiles", async (t) => {
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  const spreads: Array<[string, () => number]> = [
    ['empty', () => 0],
    ['one value', () => 1_234],
    ['zero latency', () => 0],
    ['the lowest slots (0-3 us)', () => random() % 4],
    ['loopback (50 us - 2 ms)', () => 50 + (random() % 1_950)],
    ['every bucket', () => Math.min(3_600_000_000, Math.floor(2 ** (random() % 32) * ((random() >>> 8) / 2 ** 23)))],
    ['the highest value', () => 3_600_000_000],
    ['counts past 127 in a slot (several LEB128 bytes)', () => 1_000 + (random() % 3)],
  ];
  const pending = new PendingLatencies();
  for (const [name, next] of spreads) {
    const direct = createHistogram();
    const size = name === 'empty' ? 0 : name.startsWith('one') ? 1 : name.startsWith('counts past') ? 100_000 : 5_000;
    for (let i = 0; i < size; i++) {
      const us = next();
      direct.recordValue(us);
      pending.record(us);
    }
    for (const p of [0, 0.1, 50, 90, 99, 99.9, 100]) t.equal(pending.valueAtPercentile(p), direct.getValueAtPercentile(p), `${name}: p${p}`);
    const encoded = pending.takeEncoded();
    t.equal(encoded, encodeHistogram(direct), `${name}: the same string`);
    t.equal(decodeHistogram(encoded).totalCount, size, `${name}: decodes to every value`);
  }
  t.equal(pending.takeEncoded(), encodeHistogram(createHistogram()), 'taking forgets the counts');
});

t.test("moments: mean and standard deviation exactly as hdr-histogram-js's getters give them", async (t) => {
  // Spreads from one slot to seven decades, including 0 µs and the top slot, fresh and decoded.
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const spreads: Array<() => number> = [
    () => 1234,
    () => Math.floor(random() * 3),
    () => 20_000 + Math.floor(random() * 5_000),
    () => Math.floor(10 ** (random() * 7)),
    () => (random() < 0.01 ? 3_600_000_000 : Math.floor(random() * 1_000_000)),
  ];
  for (const [k, draw] of spreads.entries()) {
    const histogram = createHistogram();
    for (let i = 0; i < 5_000; i++) histogram.recordValue(draw());
    for (const [label, h] of [['recorded', histogram], ['decoded', decodeHistogram(encodeHistogram(histogram))]] as const) {
      const { mean, stddev } = moments(h);
      t.equal(mean, h.mean, `spread ${k}, ${label}: mean ${mean}`);
      t.equal(stddev, h.stdDeviation, `spread ${k}, ${label}: stddev ${stddev}`);
    }
  }
  t.same(moments(createHistogram()), { mean: 0, stddev: 0 }, 'empty: zeros');
});
