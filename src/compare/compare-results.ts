import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import { KNOWN_METRICS, metricReader, type MetricReader } from '../stats/thresholds.js';
import type { LoadResult } from '../shared/load-result.js';
import { tTest } from './t-test.js';

/** compare.R's stars: `'*'` p < 0.05, `'**'` p < 0.01, `'***'` p < 0.001; `''` when none holds. */
export type Confidence = '' | '*' | '**' | '***';

/** The confidence levels at which the interval of the difference is given, as in compare.R. */
export type ConfidenceLevel = '95' | '99' | '99.9';

/** One metric compared over repeated runs of a baseline and a candidate. */
export interface ComparisonRow {
  /** Metric path, as in `thresholds`: `latency.p99`, `requests.perSecond`, ... */
  metric: string;
  /** True when a larger value is better (`requests.perSecond`); false for latencies and errors. */
  higherIsBetter: boolean;
  /** Mean of the baseline runs' values. */
  baseline: number;
  /** Mean of the candidate runs' values. */
  candidate: number;
  /**
   * Signed fraction of the baseline mean, positive when the candidate is better whatever the
   * metric's direction: 10 ms -> 11 ms of latency is -0.1, 1000 -> 1100 req/s is +0.1.
   */
  improvement: number;
  /** Two-sided p-value of Welch's t-test (1 when both sides are the same constant). */
  pValue: number;
  confidence: Confidence;
  /**
   * Confidence intervals of the difference of means, candidate - baseline, in the metric's unit,
   * at 95, 99 and 99.9%. `null` when a side has fewer than 2 values for this metric.
   */
  intervals: Record<ConfidenceLevel, [number, number]> | null;
  /** Runs that had a value for this metric (a rate over no responses has none). */
  samples: { baseline: number; candidate: number };
}

/** What `compareResults` returns. */
export interface Comparison {
  /** Runs compared on each side. */
  runs: { baseline: number; candidate: number };
  rows: ComparisonRow[];
}

/** Options of `compareResults`. */
export interface CompareResultsOptions {
  /**
   * Metric paths to compare, in the `thresholds` syntax. Default: `requests.perSecond`, `latency.p50`,
   * `latency.p90`, `latency.p99`, `errors.rate`, and `server.cpuPerRequestMs` when every run has it (`monitor`).
   */
  metrics?: string[];
  /** `'welch'` (default) does not assume equal variances; `'student'` pools them. */
  test?: 'welch' | 'student';
  /**
   * Compare a side of one run too (default false: fewer than 2 runs a side throws). Its rows have the
   * means and the change, no test: `pValue` 1, no stars, `intervals` null, `samples` saying 1.
   */
  allowOneRun?: boolean;
}

/** @deprecated since 1.0: `CompareResultsOptions`, named after `compareResults` as `MergeResultsOptions` is after `mergeResults`. */

/** The metrics compared when none are named. */
export const DEFAULT_METRICS: readonly string[] = [
  'requests.perSecond',
  'latency.p50',
  'latency.p90',
  'latency.p99',
  'errors.rate',
];

const LEVELS: ReadonlyArray<[ConfidenceLevel, number]> = [
  ['95', 0.05],
  ['99', 0.01],
  ['99.9', 0.001],
];

/** Metrics where more is better; every other metric (latency, errors, missed, failed) is better lower. */
const HIGHER_IS_BETTER =
  /^(requests\.(perSecond|sent|completed)|bytes\.|checks\.(passed|rate)|statusCodes\.(2\d\d|2xx)|stream\.(streams|events|perSecond|eventsPerStream|outputTokens|outputTokensPerSecond|outputTokensPerStream)$|goodput\.(requests|perSecond|rate)$)/;

/**
 * Compares repeated runs of a baseline with repeated runs of a candidate, one row per metric:
 * means, improvement, Welch's t-test p-value with compare.R's stars, and the interval of the
 * difference at 95/99/99.9%. Each run is one sample. Requests or seconds of one run are not
 * independent (they share the run's connections, server state, JIT and host noise), so testing them
 * as samples would overstate the confidence; repeated runs are what varies independently.
 * @throws SalvoRangeError when a side has fewer than 2 runs; SalvoOptionError for an unknown metric.
 */
export function compareResults(
  baseline: readonly LoadResult[],
  candidate: readonly LoadResult[],
  options: CompareResultsOptions = {},
): Comparison {
  const least = options.allowOneRun === true ? 1 : 2;
  checkRuns('baseline', baseline, least);
  checkRuns('candidate', candidate, least);
  // Monitored runs compare the server's CPU per request too: steadier than requests/s on a noisy host.
  const every = (has: (result: LoadResult) => boolean): boolean =>
    options.metrics === undefined && [...baseline, ...candidate].every(has);
  const monitored = every((result) => result.server?.cpuPerRequestMs !== undefined);
  // Streamed runs compare what their users feel: the first event and the gaps (and TTFT, ITL with tokens).
  const streamed = every((result) => result.stream !== undefined);
  const tokens = streamed && every((result) => result.stream?.ttft !== undefined);
  // Subscriptions are felt by their events' rate and delivery times.
  const subscribed = streamed && every((result) => result.stream?.subscriptions !== undefined);
  const delivered = subscribed && every((result) => result.stream?.delivery !== undefined);
  // Runs with an slo compare their goodput: the requests per second users were served well.
  const good = every((result) => result.goodput !== undefined);
  const defaults = [
    ...DEFAULT_METRICS,
    ...(monitored ? ['server.cpuPerRequestMs'] : []),
    ...(streamed ? ['stream.firstEvent.p99', 'stream.gap.p99'] : []),
    ...(tokens ? ['stream.ttft.p99', 'stream.itl.p50', 'stream.outputTokensPerSecond'] : []),
    ...(subscribed ? ['stream.perSecond', ...(delivered ? ['stream.delivery.p99'] : [])] : []),
    ...(good ? ['goodput.perSecond'] : []),
  ];
  const { test, metrics } = resolveCompareOptions(
    defaults.length > DEFAULT_METRICS.length ? { ...options, metrics: defaults } : options,
  );
  const named = options.metrics === undefined ? namedMetrics([...baseline, ...candidate]) : [];
  const rows = [...metrics, ...named].map(([metric, reader]) =>
    compareMetric(metric, values(reader, baseline), values(reader, candidate), test),
  );
  return { runs: { baseline: baseline.length, candidate: candidate.length }, rows };
}

/**
 * Validates `CompareResultsOptions` (before any run, in `runComparison`).
 * @throws SalvoOptionError naming the option.
 */
export function resolveCompareOptions(options: CompareResultsOptions): {
  test: 'welch' | 'student';
  metrics: Array<[string, MetricReader]>;
} {
  const test = options.test ?? 'welch';
  if (test !== 'welch' && test !== 'student') {
    throw new SalvoOptionError(`test must be 'welch' or 'student'; got ${JSON.stringify(test)}`, {
      option: 'test',
      value: test,
    });
  }
  const metrics = options.metrics ?? DEFAULT_METRICS;
  if (!Array.isArray(metrics) || metrics.length === 0) {
    throw new SalvoOptionError("metrics must be a non-empty array of metric paths, such as ['latency.p99']", {
      option: 'metrics',
      value: metrics,
    });
  }
  return {
    test,
    metrics: metrics.map((metric) => {
      const reader = typeof metric === 'string' ? metricReader(metric) : undefined;
      if (reader === undefined) {
        throw new SalvoOptionError(`metrics: ${JSON.stringify(metric)} names no metric; known: ${KNOWN_METRICS}`, {
          option: 'metrics',
          value: metric,
        });
      }
      return [metric, reader];
    }),
  };
}

/**
 * With the default metrics, the same metrics per request name (`latency.p99{name:checkout}`) for
 * every name that every result has, when they have several (one name is the run itself).
 */
function namedMetrics(results: readonly LoadResult[]): Array<[string, MetricReader]> {
  const names = Object.keys(results[0]?.byName ?? {}).filter(
    (name) => !/[{}]/.test(name) && results.every((result) => result.byName?.[name] !== undefined),
  );
  if (names.length < 2) return [];
  return names.flatMap((name) =>
    DEFAULT_METRICS.map((metric): [string, MetricReader] => {
      const scoped = `${metric}{name:${name}}`;
      return [scoped, metricReader(scoped)!];
    }),
  );
}

function checkRuns(name: string, results: readonly LoadResult[], least: number): void {
  if (!Array.isArray(results) || results.length < least) {
    const got = Array.isArray(results) ? `${results.length} run${results.length === 1 ? '' : 's'}` : typeof results;
    throw new SalvoRangeError(
      least === 1
        ? `${name} must be an array of at least 1 result; got ${got}`
        : `${name} must be an array of at least 2 results (repeated runs; one run has no variance to test; allowOneRun compares without a test); got ${got}`,
      { option: name, value: results },
    );
  }
}

function values(reader: MetricReader, results: readonly LoadResult[]): number[] {
  const found: number[] = [];
  for (const result of results) {
    const value = reader.read(result);
    if (value !== undefined && Number.isFinite(value)) found.push(value);
  }
  return found;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The stars for a p-value. */
export function confidenceOf(pValue: number): Confidence {
  if (pValue < 0.001) return '***';
  if (pValue < 0.01) return '**';
  if (pValue < 0.05) return '*';
  return '';
}

function compareMetric(metric: string, base: number[], cand: number[], test: 'welch' | 'student'): ComparisonRow {
  const higherIsBetter = HIGHER_IS_BETTER.test(metric);
  const baseMean = mean(base);
  const candMean = mean(cand);
  const change = baseMean === 0 ? (candMean === 0 ? 0 : Number.NaN) : (candMean - baseMean) / Math.abs(baseMean);
  const improvement = higherIsBetter ? change : -change;
  const row: ComparisonRow = {
    metric,
    higherIsBetter,
    baseline: baseMean,
    candidate: candMean,
    improvement: Number.isNaN(improvement) ? 0 : improvement,
    pValue: 1,
    confidence: '',
    intervals: null,
    samples: { baseline: base.length, candidate: cand.length },
  };
  if (base.length < 2 || cand.length < 2) return row;
  if (isConstant(base) && isConstant(cand)) {
    // No spread on either side (error rates of 0, say): the t statistic is 0/0. Equal constants
    // differ by nothing; different constants differ with certainty.
    const difference = candMean - baseMean;
    row.pValue = difference === 0 ? 1 : 0;
    row.confidence = confidenceOf(row.pValue);
    row.intervals = {
      '95': [difference, difference],
      '99': [difference, difference],
      '99.9': [difference, difference],
    };
    return row;
  }
  // Candidate first: the test and its intervals are of candidate - baseline.
  const tested = tTest(cand, base, { pooled: test === 'student' });
  const intervals = {} as Record<ConfidenceLevel, [number, number]>;
  for (const [level, alpha] of LEVELS) intervals[level] = tested.interval(alpha);
  row.pValue = tested.pValue;
  row.confidence = confidenceOf(row.pValue);
  row.intervals = intervals;
  return row;
}

function isConstant(values: readonly number[]): boolean {
  return values.every((value) => value === values[0]);
}
