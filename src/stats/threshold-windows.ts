import type { LatencyStats, LoadResult, ThresholdWindows } from '../shared/load-result.js';
import { addEncodedInto, createHistogram, latencyStats } from './histogram.js';

/** The metrics the timeline keeps per second, so that a window of seconds can be judged on them. */
const WINDOWED = new Set([
  'requests.sent',
  'requests.completed',
  'requests.perSecond',
  'requests.retried',
  'errors.total',
  'errors.rate',
]);

export const WINDOWED_METRICS = `latency.<stat>, ${[...WINDOWED].join(', ')}`;

/** Whether `metric` can be judged per window (see `WINDOWED_METRICS`). */
export function windowable(metric: string): boolean {
  return metric.startsWith('latency.') || WINDOWED.has(metric);
}

/** The numbers of one window, shaped as the part of a `LoadResult` that the metric readers read. */
export interface WindowResult {
  requests: { sent: number; completed: number; retried: number; perSecond: number };
  errors: { total: number };
  latency: LatencyStats;
}

/** How a threshold's expression judges one value. */
export type WindowJudge = (window: WindowResult) => { actual: number; passed: boolean };

/**
 * Judges every window of `windowMs` (whole seconds) of a finished result: each span of that many
 * timeline seconds, one second apart, its counts summed and its seconds' latency histograms added
 * (percentiles of a window are never averages of per-second percentiles). A run shorter than the
 * window is judged as one window. `worst` is the value furthest from passing (`NaN` when a window
 * measured nothing), which the threshold reports as its `actual`.
 */
export function judgeWindows(
  result: Pick<LoadResult, 'timeline' | 'durationMs' | 'merge'>,
  windowMs: number,
  judge: WindowJudge,
  upper: boolean | undefined,
): { windows: ThresholdWindows; worst: number } {
  const seconds = result.timeline.length;
  const span = Math.min(seconds, windowMs / 1000);
  const windows: ThresholdWindows = { durationMs: windowMs, judged: 0, failed: [] };
  const judged: Array<{ actual: number; passed: boolean }> = [];
  // An empty timeline (nothing measured) is still one window, which fails on having no data.
  const count = seconds === 0 ? 1 : seconds - span + 1;
  for (let from = 0; from < count; from++) {
    const outcome = judge(windowResult(result, from, from + span));
    judged.push(outcome);
    if (!outcome.passed) windows.failed.push({ from, to: from + span, actual: outcome.actual });
  }
  windows.judged = judged.length;
  return { windows, worst: worstOf(judged, upper) };
}

/**
 * A window that measured nothing is the worst; else for an upper bound (`<`, `<=`) the highest
 * value, for a lower bound the lowest, for `==`/`!=` the first failing window's (or the first's).
 */
function worstOf(judged: ReadonlyArray<{ actual: number; passed: boolean }>, upper: boolean | undefined): number {
  const actuals = judged.map((outcome) => outcome.actual);
  if (actuals.some(Number.isNaN)) return Number.NaN;
  if (upper === undefined) return (judged.find((outcome) => !outcome.passed) ?? judged[0]!).actual;
  return upper ? Math.max(...actuals) : Math.min(...actuals);
}

function windowResult(
  result: Pick<LoadResult, 'timeline' | 'durationMs' | 'merge'>,
  from: number,
  to: number,
): WindowResult {
  const histogram = createHistogram();
  const window: WindowResult = {
    requests: { sent: 0, completed: 0, retried: 0, perSecond: 0 },
    errors: { total: 0 },
    latency: latencyStats(histogram),
  };
  let lengthMs = 0;
  for (let second = from; second < to; second++) {
    const entry = result.timeline[second]!;
    window.requests.sent += entry.sent;
    window.requests.completed += entry.completed;
    window.requests.retried += entry.retried;
    window.errors.total += entry.errors;
    const encoded = result.merge.timeline[second];
    if (encoded !== undefined && encoded !== '') addEncodedInto(histogram, encoded);
    // The last second of a run is usually cut short: a window's rate is over the time it covers.
    lengthMs += Math.min(1000, result.durationMs - second * 1000);
  }
  window.requests.perSecond = lengthMs > 0 ? window.requests.completed / (lengthMs / 1000) : 0;
  window.latency = latencyStats(histogram);
  histogram.destroy();
  return window;
}
