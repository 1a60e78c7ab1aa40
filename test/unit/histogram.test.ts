import t from 'tap';
import { createHistogram, decodeHistogram, encodeHistogram, HIGHEST_US as HIGHEST, latencyStats } from '../../src/stats/histogram.js';

t.test('min is the true minimum: a recorded 0 counts, and so does a histogram of zeros only', async (t) => {
  const mixed = createHistogram();
  for (const us of [0, 0, 0, 17_300]) mixed.recordValue(us);
  t.equal(latencyStats(mixed).min, 0, 'p50 0 and min 0, not 17.3');
  t.equal(latencyStats(mixed).p50, 0);
  const zeros = createHistogram();
  for (let i = 0; i < 5; i++) zeros.recordValue(0);
  t.equal(latencyStats(zeros).min, 0, 'not Number.MAX_SAFE_INTEGER / 1000');
  t.equal(latencyStats(decodeHistogram(encodeHistogram(zeros))).min, 0, 'decoded (merged) too');
  const positive = createHistogram();
  for (const us of [1234, 5678]) positive.recordValue(us);
  t.equal(latencyStats(positive).min, 1.234, 'a positive minimum stays exact');
});

t.test("addEncodedInto reads the counts straight into the target: exactly what decode + add would make", async (t) => {
  const { addEncodedInto } = await import('../../src/stats/histogram.js');
  /** A histogram of `values` µs, each recorded `times` times. */
  const made = (values: number[], times = 1) => {
    const histogram = createHistogram();
    for (const us of values) histogram.recordValueWithCount(us, times);
    return histogram;
  };
  let seed = 7;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const logNormal = (count: number) => Array.from({ length: count }, () => Math.round(5000 * Math.exp(1.5 * (random() + random() + random() - 1.5))));
  const cases: Array<[string, number[][], number?]> = [
    ['a second of latencies onto an empty target', [logNormal(500)]],
    ['several seconds, one after another', [logNormal(300), logNormal(40), logNormal(1), logNormal(2000)]],
    ['an empty histogram adds nothing', [logNormal(20), [], logNormal(5)]],
    ['a recorded 0 (min 0) and a 0 only', [[0, 0, 17], [0], [250]]],
    ['the highest slots, up to an hour', [[HIGHEST, HIGHEST - 1, 1_000_000_000], [1, 2, 3]]],
    ['large counts in a slot', [[5, 5000, 5_000_000]], 1_000_000_000],
  ];
  for (const [name, seconds, times] of cases) {
    const fast = createHistogram();
    const slow = createHistogram();
    for (const values of seconds) {
      const encoded = encodeHistogram(made(values, times));
      addEncodedInto(fast, encoded);
      const decoded = decodeHistogram(encoded);
      slow.add(decoded);
    }
    t.equal(encodeHistogram(fast), encodeHistogram(slow), `${name}: the same counts`);
    t.same(
      [fast.totalCount, fast.maxValue, fast.minNonZeroValue, fast.getValueAtPercentile(99)],
      [slow.totalCount, slow.maxValue, slow.minNonZeroValue, slow.getValueAtPercentile(99)],
      `${name}: the same total, max, min and p99 (${fast.totalCount}, ${fast.maxValue}, ${fast.minNonZeroValue})`,
    );
  }
  const target = made([10, 20]);
  t.throws(() => addEncodedInto(target, 'not an encoding'), 'what is no encoding still throws, as decoding did');
  t.equal(target.totalCount, 2, 'and leaves the target as it was');
});
