import type { SecondSummary } from './recorder.js';
import type { ProgressEvent } from '../types.js';

/** The public event for one closed second. */
export function progressEvent(summary: Omit<SecondSummary, 'histogram'>, totals: ProgressEvent['totals']): ProgressEvent {
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
    totals,
  };
}
