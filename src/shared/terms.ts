// Types that the options and the result both name.

/** Which client sends the requests. */
export type TransportName = 'net' | 'undici' | 'http' | 'h2';

/**
 * k6-style pass/fail criteria keyed by metric path, for example
 * `{ 'latency.p99': '< 50', 'errors.rate': '< 0.01' }`. A value may be a list of expressions, or
 * `{ threshold, abortOnFail }` to stop the run early once it can no longer pass, or
 * `{ threshold, window: '10s' }` to judge every 10-second window of the run rather than the whole;
 * a list may mix them: `['< 50', { threshold: '< 200', window: '10s' }]`.
 */
export type Thresholds = Record<string, ThresholdSetting | Array<string | ThresholdSetting>>;

/** One metric's check: an expression such as `'< 50'`, a list of them, or the expression with its settings. */
export type ThresholdSetting =
  string | string[] | { threshold: string | string[]; abortOnFail?: boolean; window?: number | string };

/** One share of a run split over processes or machines (`segment` option, `result.merge.segment`). */
export interface Segment {
  /** Which share, from 0. */
  index: number;
  /** How many shares the run is split into. */
  count: number;
}
