import t from 'tap';
import { SalvoOptionError, SalvoRangeError } from '../../src/shared/errors.js';
import { compareResults } from '../../src/compare/compare-results.js';
import { runOrder } from '../../src/compare/run-comparison.js';
import type { LoadResult } from '../../src/shared/load-result.js';

/** Results that carry only the numbers a comparison reads. */
function results(p50s: number[], perSecond = 1000): LoadResult[] {
  return p50s.map((p50) => ({ latency: { p50 }, requests: { perSecond, completed: 100 }, errors: { total: 0 } }) as LoadResult);
}

// R's `sleep` data set (Student, 1908), the example of R's t.test documentation.
const group1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
const group2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];

t.test("Welch's test and its intervals match R's t.test", async (t) => {
  // R 4.2.2:
  //   for (lvl in c(0.95, 0.99, 0.999)) { r <- t.test(group2, group1, conf.level = lvl); print(c(r$p.value, r$conf.int)) }
  //   p = 0.0793941401873582, t = 1.86081346748685, df = 17.7764735161785
  //   95%: -0.20548323071171 3.36548323071171; 99%: -0.86763291991904 4.02763291991904;
  //   99.9%: -1.75766985718702 4.91766985718702
  const [row] = compareResults(results(group1), results(group2), { metrics: ['latency.p50'] }).rows;
  t.ok(row);
  t.ok(Math.abs(row!.pValue - 0.0793941401873582) < 1e-10, `p ${row!.pValue}`);
  const expected: Record<string, [number, number]> = {
    '95': [-0.20548323071171, 3.36548323071171],
    '99': [-0.86763291991904, 4.02763291991904],
    '99.9': [-1.75766985718702, 4.91766985718702],
  };
  for (const [level, [low, high]] of Object.entries(expected)) {
    const [gotLow, gotHigh] = row!.intervals![level as '95']!;
    t.ok(Math.abs(gotLow - low) < 1e-9 && Math.abs(gotHigh - high) < 1e-9, `${level}%: [${gotLow}, ${gotHigh}]`);
  }
  t.equal(row!.baseline, 0.75);
  t.ok(Math.abs(row!.candidate - 2.33) < 1e-12);
  t.equal(row!.confidence, '', 'p = 0.079 earns no star');
  // Latency: lower is better, so 0.75 -> 2.33 ms is an improvement of -(2.33 - 0.75) / 0.75.
  t.ok(Math.abs(row!.improvement - -(2.33 - 0.75) / 0.75) < 1e-12);
});

t.test("Student's pooled test matches R's t.test(var.equal = TRUE)", async (t) => {
  // R 4.2.2: t.test(group2, group1, var.equal = TRUE): p = 0.0791867142159382,
  //   95%: -0.203874032287599 3.3638740322876
  const [row] = compareResults(results(group1), results(group2), { metrics: ['latency.p50'], test: 'student' }).rows;
  t.ok(Math.abs(row!.pValue - 0.0791867142159382) < 1e-10, `p ${row!.pValue}`);
  const [low, high] = row!.intervals!['95'];
  t.ok(Math.abs(low - -0.203874032287599) < 1e-9 && Math.abs(high - 3.3638740322876) < 1e-9, `[${low}, ${high}]`);
});

t.test('a clear slowdown earns three stars, and intervals at each level match R', async (t) => {
  // R 4.2.2: x <- c(10.21, 10.35, 10.12, 10.28, 10.19, 10.31); y <- c(11.02, 11.25, 10.98, 11.31, 11.10, 11.07)
  //   t.test(y, x, conf.level = 0.95 / 0.99 / 0.999): p = 3.68969326530886e-07,
  //   95%: 0.7331544869042 1.02351217976247; 99%: 0.668783929678282 1.08788273698839;
  //   99.9%: 0.567660043627164 1.1890066230395
  const x = [10.21, 10.35, 10.12, 10.28, 10.19, 10.31];
  const y = [11.02, 11.25, 10.98, 11.31, 11.1, 11.07];
  const [row] = compareResults(results(x), results(y), { metrics: ['latency.p50'] }).rows;
  t.ok(Math.abs(row!.pValue / 3.68969326530886e-7 - 1) < 1e-6, `p ${row!.pValue}`);
  t.equal(row!.confidence, '***');
  const levels: Array<['95' | '99' | '99.9', number, number]> = [
    ['95', 0.7331544869042, 1.02351217976247],
    ['99', 0.668783929678282, 1.08788273698839],
    ['99.9', 0.567660043627164, 1.1890066230395],
  ];
  for (const [level, low, high] of levels) {
    const [gotLow, gotHigh] = row!.intervals![level];
    t.ok(Math.abs(gotLow - low) < 1e-9 && Math.abs(gotHigh - high) < 1e-9, `${level}%: [${gotLow}, ${gotHigh}]`);
  }
  t.ok(row!.improvement < -0.08 && row!.improvement > -0.09, `improvement ${row!.improvement}`);
});

t.test('improvement is positive when the candidate is better, whatever the direction', async (t) => {
  const faster = compareResults(results([10, 10.1], 1000), results([9, 9.1], 1100), { metrics: ['latency.p50', 'requests.perSecond'] });
  const [latency, throughput] = faster.rows;
  t.ok(latency!.improvement > 0.09 && latency!.improvement < 0.11, `latency ${latency!.improvement}`);
  t.equal(latency!.higherIsBetter, false);
  t.ok(Math.abs(throughput!.improvement - 0.1) < 1e-12, `throughput ${throughput!.improvement}`);
  t.equal(throughput!.higherIsBetter, true);
});

t.test('constant sides: equal is p = 1, different is p = 0', async (t) => {
  const same = compareResults(results([5, 5, 5]), results([5, 5, 5]), { metrics: ['latency.p50', 'errors.total'] });
  t.same(same.rows.map((row) => [row.pValue, row.confidence]), [[1, ''], [1, '']]);
  const apart = compareResults(results([5, 5]), results([6, 6]), { metrics: ['latency.p50'] });
  t.equal(apart.rows[0]!.pValue, 0);
  t.equal(apart.rows[0]!.confidence, '***');
  t.same(apart.rows[0]!.intervals!['99.9'], [1, 1]);
});

t.test('a metric with no value in a run (a rate over nothing) is left out of that side', async (t) => {
  const noResponses = { latency: { p50: 0 }, requests: { perSecond: 0, completed: 0 }, errors: { total: 0 } } as LoadResult;
  const [row] = compareResults([noResponses, ...results([1, 1])], results([1, 1]), { metrics: ['errors.rate'] }).rows;
  t.same(row!.samples, { baseline: 2, candidate: 2 });
});

t.test('bad input names the argument', async (t) => {
  t.throws(() => compareResults(results([1]), results([1, 2])), SalvoRangeError);
  t.throws(() => compareResults(results([1]), results([1, 2])), /baseline must be an array of at least 2 results.*got 1 run$/);
  t.throws(() => compareResults(results([1, 2]), []), /candidate must be an array of at least 2 results/);
  t.throws(() => compareResults(results([1, 2]), results([1, 2]), { metrics: ['latency.p42'] }), SalvoOptionError);
  t.throws(() => compareResults(results([1, 2]), results([1, 2]), { metrics: ['latency.p42'] }), /metrics: "latency.p42" names no metric/);
});

t.test('run order: ABAB alternates, ABBA mirrors every other pair', async (t) => {
  const short = (order: string[]) => order.map((side) => (side === 'baseline' ? 'A' : 'B')).join('');
  t.equal(short(runOrder(3, 'ABAB')), 'ABABAB');
  t.equal(short(runOrder(3, 'ABBA')), 'ABBAAB');
  t.equal(short(runOrder(4, 'ABBA')), 'ABBAABBA');
});
