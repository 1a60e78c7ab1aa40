import type { RunningTotals, SecondSummary } from './recorder.js';
import type { ProgressEvent } from '../shared/load-result.js';

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
  };
}
