import type { RunningTotals, SecondSummary } from './recorder.js';
import type { NameSecond, ProgressEvent, StreamSecond } from '../shared/load-result.js';
import type { ShardStreamSecond } from '../shared/stream.js';
import { decodeHistogram } from './histogram.js';

/** p50 and p99 in ms of encoded µs; NaN for none, not the empty histogram's 0 (which reads as instant). */
function percentiles(histogram: string): { p50: number; p99: number } {
  let p50 = Number.NaN;
  let p99 = Number.NaN;
  if (histogram !== '') {
    const decoded = decodeHistogram(histogram);
    if (decoded.totalCount > 0) {
      p50 = decoded.getValueAtPercentile(50) / 1000;
      p99 = decoded.getValueAtPercentile(99) / 1000;
    }
    decoded.destroy();
  }
  return { p50, p99 };
}

/** A second's names with their percentiles, read from each name's encoded latencies. */
export function nameSeconds(byName: NonNullable<SecondSummary['byName']>): Record<string, NameSecond> {
  const seconds: Record<string, NameSecond> = {};
  for (const [name, { sent, completed, errors, histogram }] of Object.entries(byName))
    seconds[name] = { sent, completed, errors, ...percentiles(histogram) };
  return seconds;
}

/** A `stream` run's second as the timeline has it: events, tokens, first-event (and TTFT) percentiles. */
function streamSecond({ events, outputTokens, firstEvent, ttft, good }: ShardStreamSecond): StreamSecond {
  const first = percentiles(firstEvent);
  const second: StreamSecond = { events, outputTokens, firstEventP50: first.p50, firstEventP99: first.p99 };
  // A live second carries its goodput only when some stream met the SLO in it (the result's, always with slo).
  if (good !== undefined) second.good = good;
  if (ttft !== '') {
    const token = percentiles(ttft);
    second.ttftP50 = token.p50;
    second.ttftP99 = token.p99;
  }
  return second;
}

/** One closed second of the whole run, as the main thread rolls it up: for `onProgress` and `outputs`. */
export type OnRolledSecond = (summary: Omit<SecondSummary, 'histogram'>, totals: RunningTotals) => void;

/** The public event for one closed second. */
export function progressEvent(summary: Omit<SecondSummary, 'histogram'>, totals: RunningTotals): ProgressEvent {
  return {
    second: summary.second,
    sent: summary.sent,
    completed: summary.completed,
    errors: summary.errors,
    retried: summary.retried,
    p50: summary.p50,
    p99: summary.p99,
    connections: summary.connections,
    ...(summary.targetRate !== undefined ? { targetRate: summary.targetRate } : {}),
    cpuPercent: summary.cpuPercent,
    eventLoopUtilization: summary.eventLoopUtilization,
    totals: { sent: totals.sent, completed: totals.completed, errors: totals.errors, retried: totals.retried },
    ...(summary.byName !== undefined ? { byName: nameSeconds(summary.byName) } : {}),
    ...(summary.stream !== undefined ? { stream: streamSecond(summary.stream) } : {}),
  };
}
