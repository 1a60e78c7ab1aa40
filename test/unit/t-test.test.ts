// Student's t distribution and the two-sample t-tests of src/compare/t-test.ts: against closed forms
// (df = 1 is the Cauchy distribution, df = 2 has an algebraic CDF and quantile), identities of the
// incomplete beta function, R's qt as it prints it (7 significant digits) and R's t.test to 1e-12.
// compare-statistics.test.ts checks the same values through compareResults.
import t from 'tap';
import { incompleteBeta, logGamma, tCdf, tCritical, tQuantile, tTest, tTwoTailed } from '../../src/compare/t-test.js';

const close = (actual: number, expected: number, relative: number) => Math.abs(actual - expected) <= relative * Math.abs(expected);

t.test('log-gamma: factorials and the half-integers', async (t) => {
  for (let n = 1; n <= 20; n++) {
    let factorial = 1;
    for (let k = 2; k < n; k++) factorial *= k;
    t.ok(close(Math.exp(logGamma(n)), factorial, 1e-13), `Γ(${n}) = ${factorial - 0}`);
  }
  t.ok(close(logGamma(0.5), 0.5 * Math.log(Math.PI), 1e-14), 'Γ(1/2) = √π');
  t.ok(close(Math.exp(logGamma(2.5)), 0.75 * Math.sqrt(Math.PI), 1e-14), 'Γ(5/2) = 3√π/4');
  t.ok(close(Math.exp(logGamma(0.1)), 9.513507698668732, 1e-13), 'Γ(0.1), below 1/2 by reflection');
});

t.test('the incomplete beta function: closed forms and its symmetry', async (t) => {
  for (const x of [1e-9, 0.001, 0.1, 0.37, 0.5, 0.8, 0.999]) {
    t.ok(close(incompleteBeta(x, 1, 1), x, 1e-13), `I_${x}(1, 1) = x`);
    t.ok(close(incompleteBeta(x, 3.5, 1), x ** 3.5, 1e-12), `I_${x}(3.5, 1) = x^3.5`);
    t.ok(close(incompleteBeta(x, 1, 4.25), -Math.expm1(4.25 * Math.log1p(-x)), 1e-12), `I_${x}(1, 4.25) = 1 - (1 - x)^4.25`);
    t.ok(close(incompleteBeta(x, 8.9, 0.5) + incompleteBeta(1 - x, 0.5, 8.9), 1, 1e-13), `I_x(a, b) + I_1-x(b, a) = 1 at ${x}`);
  }
  t.equal(incompleteBeta(0, 2, 3), 0);
  t.equal(incompleteBeta(1, 2, 3), 1);
});

t.test('df = 1 (Cauchy) and df = 2: CDF, far tails and quantiles match the closed forms', async (t) => {
  for (const value of [-1e6, -50, -3, -0.5, 0, 0.3, 2, 10, 636.6, 1e6]) {
    // Below zero in the forms that keep a small probability's digits: atan(-1/t) / π and 1 / (s (s - t)).
    const s = Math.sqrt(2 + value * value);
    const cauchy = value < 0 ? Math.atan(-1 / value) / Math.PI : 0.5 + Math.atan(value) / Math.PI;
    t.ok(close(tCdf(value, 1), cauchy, 1e-12), `df 1: P(T <= ${value})`);
    t.ok(close(tCdf(value, 2), value < 0 ? 1 / (s * (s - value)) : 0.5 + value / (2 * s), 1e-12), `df 2: P(T <= ${value})`);
  }
  // Far tails without cancellation: P(|T| > t) = 2 atan(1/t) / π for df 1, 2 / (s (s + t)) with s = √(2 + t²) for df 2.
  for (const value of [100, 1e4, 1e6]) {
    const s = Math.sqrt(2 + value * value);
    t.ok(close(tTwoTailed(value, 1), (2 * Math.atan(1 / value)) / Math.PI, 1e-11), `df 1: P(|T| > ${value})`);
    t.ok(close(tTwoTailed(value, 2), 2 / (s * (s + value)), 1e-11), `df 2: P(|T| > ${value})`);
  }
  for (const p of [0.0005, 0.005, 0.025, 0.3, 0.5, 0.7, 0.975, 0.995, 0.9995]) {
    t.ok(Math.abs(tQuantile(p, 1) - Math.tan(Math.PI * (p - 0.5))) <= 1e-11 * Math.max(1, Math.abs(tQuantile(p, 1))), `df 1: quantile ${p}`);
    const exact = (2 * p - 1) / Math.sqrt(2 * p * (1 - p));
    t.ok(Math.abs(tQuantile(p, 2) - exact) <= 1e-11 * Math.max(1, Math.abs(exact)), `df 2: quantile ${p}`);
  }
});

t.test("quantiles match R's qt (as R prints them), and approach the normal's", async (t) => {
  const qt: Array<[number, number, number]> = [
    [0.975, 10, 2.228139],
    [0.975, 30, 2.042272],
    [0.975, 100, 1.983972],
    [0.995, 5, 4.032143],
    [0.9995, 3, 12.92398],
  ];
  for (const [p, df, expected] of qt) t.ok(close(tQuantile(p, df), expected, 5e-7), `qt(${p}, ${df}) = ${tQuantile(p, df)}`);
  // Many degrees of freedom: Cornish-Fisher's expansion around the normal quantile z, to 1/df³.
  const z = 1.959963984540054;
  for (const df of [1e3, 1e4]) {
    const expansion = z + (z ** 3 + z) / 4 / df + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96 / df ** 2 + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384 / df ** 3;
    t.ok(close(tQuantile(0.975, df), expansion, 1e-11), `qt(0.975, ${df}) = ${tQuantile(0.975, df)}`);
  }
  t.ok(close(tCritical(0.05, 17.7764735161785), tQuantile(0.975, 17.7764735161785), 1e-14), 'tCritical(alpha) is the 1 - alpha/2 quantile');
});

// R's `sleep` data set (Student, 1908), the example of R's t.test documentation.
const group1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
const group2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];

t.test("Welch's and Student's tests match R's t.test", async (t) => {
  // R 4.2.2: t.test(group2, group1): t = 1.86081346748685, df = 17.7764735161785, p = 0.0793941401873582,
  //   95%: -0.20548323071171 3.36548323071171
  const welch = tTest(group2, group1);
  t.ok(close(welch.t, 1.86081346748685, 1e-12), `t ${welch.t}`);
  t.ok(close(welch.df, 17.7764735161785, 1e-12), `df ${welch.df}`);
  t.ok(close(welch.pValue, 0.0793941401873582, 1e-12), `p ${welch.pValue}`);
  const [low, high] = welch.interval(0.05);
  t.ok(close(low, -0.20548323071171, 1e-11) && close(high, 3.36548323071171, 1e-12), `[${low}, ${high}]`);
  // t.test(group2, group1, var.equal = TRUE): df = 18, p = 0.0791867142159382
  const student = tTest(group2, group1, { pooled: true });
  t.equal(student.df, 18);
  t.ok(close(student.pValue, 0.0791867142159382, 1e-12), `p ${student.pValue}`);
  t.ok(close(tTest(group1, group2).t, -welch.t, 1e-15), 'x - y: the sign follows the order');
});
