// Welch's and Student's two-sample t-tests, with Student's t distribution computed here from the
// regularized incomplete beta function (a continued fraction evaluated by the modified Lentz
// method, as in Numerical Recipes 6.4) and the log-gamma function (Lanczos, g = 7): a few dozen
// lines where a statistics library brought 289 packages. test/t-test.test.ts checks them against
// R's pt, qt and t.test.

/** Lanczos coefficients for g = 7, n = 9: log-gamma to about 1e-15 relative. */
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The continued fraction of I_x(a, b), for x below (a + 1) / (a + b + 2), where it converges fast. */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  const guard = (value: number) => (Math.abs(value) < tiny ? tiny : value);
  let c = 1;
  let d = 1 / guard(1 - ((a + b) * x) / (a + 1));
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 / guard(1 + even * d);
    c = guard(1 + even / c);
    h *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 / guard(1 + odd * d);
    c = guard(1 + odd / c);
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(a * Math.log(x) + b * Math.log1p(-x) - (logGamma(a) + logGamma(b) - logGamma(a + b)));
  // Each side of the mean from its own tail, so that a small result is never 1 minus nearly 1.
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** P(|T| > t) for Student's t with `df` degrees of freedom (any positive real). */
export function tTwoTailed(t: number, df: number): number {
  return Number.isFinite(t) ? incompleteBeta(df / (df + t * t), df / 2, 0.5) : 0;
}

/** P(T <= t). */
export function tCdf(t: number, df: number): number {
  const tail = tTwoTailed(t, df) / 2;
  return t < 0 ? tail : 1 - tail;
}

function tDensity(t: number, df: number): number {
  return Math.exp(
    logGamma((df + 1) / 2) -
      logGamma(df / 2) -
      0.5 * Math.log(df * Math.PI) -
      ((df + 1) / 2) * Math.log1p((t * t) / df),
  );
}

/** The t > 0 with P(|T| > t) = alpha (0 < alpha < 1): the half-width, in standard errors, of a 1 - alpha interval. */
export function tCritical(alpha: number, df: number): number {
  let low = 0;
  let high = 1;
  while (tTwoTailed(high, df) > alpha) {
    low = high;
    high *= 2;
  }
  // Newton's method on P(|T| > t) - alpha, kept inside the bracket by bisection.
  let t = (low + high) / 2;
  for (let i = 0; i < 200; i++) {
    const excess = tTwoTailed(t, df) - alpha;
    if (excess > 0) low = t;
    else high = t;
    let next = t + excess / (2 * tDensity(t, df));
    if (!(next > low && next < high)) next = (low + high) / 2;
    if (Math.abs(next - t) <= 1e-15 * t) return next;
    t = next;
  }
  return t;
}

/** Student's t distribution's quantile: the t with P(T <= t) = p. */
export function tQuantile(p: number, df: number): number {
  if (p === 0.5) return 0;
  return p > 0.5 ? tCritical(2 * (1 - p), df) : -tCritical(2 * p, df);
}

/** A two-sample t-test of x - y: the difference of the means, its standard error, df and the two-sided p-value. */
export interface TTest {
  difference: number;
  standardError: number;
  df: number;
  t: number;
  pValue: number;
  /** The 1 - alpha confidence interval of the difference. */
  interval(alpha: number): [number, number];
}

function meanAndVariance(values: readonly number[]): [number, number] {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
  return [mean, variance];
}

/**
 * Welch's t-test of x - y (unequal variances, Welch-Satterthwaite df), or Student's with `pooled`,
 * as R's `t.test(x, y)` and `t.test(x, y, var.equal = TRUE)`. Each side needs 2 values or more.
 */
export function tTest(x: readonly number[], y: readonly number[], { pooled = false } = {}): TTest {
  const [meanX, varX] = meanAndVariance(x);
  const [meanY, varY] = meanAndVariance(y);
  const nx = x.length;
  const ny = y.length;
  let standardError: number;
  let df: number;
  if (pooled) {
    df = nx + ny - 2;
    standardError = Math.sqrt((((nx - 1) * varX + (ny - 1) * varY) / df) * (1 / nx + 1 / ny));
  } else {
    const [sx, sy] = [varX / nx, varY / ny];
    standardError = Math.sqrt(sx + sy);
    df = (sx + sy) ** 2 / (sx ** 2 / (nx - 1) + sy ** 2 / (ny - 1));
  }
  const difference = meanX - meanY;
  const t = difference / standardError;
  return {
    difference,
    standardError,
    df,
    t,
    pValue: tTwoTailed(Math.abs(t), df),
    interval(alpha) {
      const half = tCritical(alpha, df) * standardError;
      return [difference - half, difference + half];
    },
  };
}
