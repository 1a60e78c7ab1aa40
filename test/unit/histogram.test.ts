import t from 'tap';
import { createHistogram, decodeHistogram, encodeHistogram, latencyStats } from '../../src/stats/histogram.js';

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
