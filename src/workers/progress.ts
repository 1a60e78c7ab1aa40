import type { Histogram } from 'hdr-histogram-js';
import { progressEvent } from '../stats/progress-event.js';
import { addEncodedInto, createHistogram, type SecondSummary } from '../stats/recorder.js';
import type { ProgressEvent } from '../types.js';

type Totals = ProgressEvent['totals'];

interface PendingSecond {
  reported: Set<number>;
  sent: number;
  completed: number;
  errors: number;
  retried: number;
  connections: number;
  targetRate: number | undefined;
  cpuPercent: number;
  eventLoopUtilization: number;
  histogram: Histogram;
  totals: Map<number, Totals>;
}

/**
 * Merges the shards' live seconds into one progress event per second of the whole run: counts are
 * summed, p50/p99 come from the added per-second histograms. A second is reported once every shard
 * still running has closed it, so the callback sees each second once, in order.
 */
export class ProgressMerger {
  readonly #shards: number;
  readonly #onProgress: (event: ProgressEvent) => void;
  readonly #pending = new Map<number, PendingSecond>();
  readonly #finished = new Set<number>();
  readonly #lastTotals: Totals[];
  #next = 0;

  constructor(shards: number, onProgress: (event: ProgressEvent) => void) {
    this.#shards = shards;
    this.#onProgress = onProgress;
    this.#lastTotals = Array.from({ length: shards }, () => ({ sent: 0, completed: 0, errors: 0, retried: 0 }));
  }

  /** One shard closed one second. */
  add(shard: number, summary: SecondSummary, totals: Totals): void {
    this.#lastTotals[shard] = totals;
    if (summary.second < this.#next) return; // that second was already reported without this shard
    let pending = this.#pending.get(summary.second);
    if (pending === undefined) {
      pending = {
        reported: new Set(),
        sent: 0,
        completed: 0,
        errors: 0,
        retried: 0,
        connections: 0,
        targetRate: undefined,
        cpuPercent: 0,
        eventLoopUtilization: 0,
        histogram: createHistogram(),
        totals: new Map(),
      };
      this.#pending.set(summary.second, pending);
    }
    pending.reported.add(shard);
    pending.sent += summary.sent;
    pending.completed += summary.completed;
    pending.errors += summary.errors;
    pending.retried += summary.retried;
    pending.connections += summary.connections;
    if (summary.targetRate !== undefined) pending.targetRate = (pending.targetRate ?? 0) + summary.targetRate;
    // The busiest thread, as in the timeline (mergeShards).
    pending.cpuPercent = Math.max(pending.cpuPercent, summary.cpuPercent);
    pending.eventLoopUtilization = Math.max(pending.eventLoopUtilization, summary.eventLoopUtilization);
    addEncodedInto(pending.histogram, summary.histogram);
    pending.totals.set(shard, totals);
    this.#emitReady(false);
  }

  /** A shard sent its last second (or crashed): later seconds no longer wait for it. */
  finish(shard: number): void {
    this.#finished.add(shard);
    this.#emitReady(false);
  }

  /** Reports every second still held back, at the end of the run. */
  flush(): void {
    this.#emitReady(true);
  }

  #emitReady(all: boolean): void {
    for (;;) {
      const pending = this.#pending.get(this.#next);
      if (pending === undefined) {
        if (!all || this.#pending.size === 0) return;
        this.#next++; // a second that no shard closed (a stalled run); nothing to report
        continue;
      }
      if (!all) {
        for (let shard = 0; shard < this.#shards; shard++) {
          if (!pending.reported.has(shard) && !this.#finished.has(shard)) return;
        }
      }
      this.#pending.delete(this.#next);
      this.#emit(this.#next, pending);
      this.#next++;
    }
  }

  #emit(second: number, pending: PendingSecond): void {
    const totals: Totals = { sent: 0, completed: 0, errors: 0, retried: 0 };
    for (let shard = 0; shard < this.#shards; shard++) {
      const shardTotals = pending.totals.get(shard) ?? this.#lastTotals[shard]!;
      totals.sent += shardTotals.sent;
      totals.completed += shardTotals.completed;
      totals.errors += shardTotals.errors;
      totals.retried += shardTotals.retried;
    }
    const summary: Omit<SecondSummary, 'histogram'> = {
      second,
      sent: pending.sent,
      completed: pending.completed,
      errors: pending.errors,
      retried: pending.retried,
      p50: pending.histogram.getValueAtPercentile(50) / 1000,
      p99: pending.histogram.getValueAtPercentile(99) / 1000,
      connections: pending.connections,
      targetRate: pending.targetRate,
      cpuPercent: pending.cpuPercent,
      eventLoopUtilization: pending.eventLoopUtilization,
    };
    pending.histogram.destroy();
    try {
      this.#onProgress(progressEvent(summary, totals));
    } catch (error) {
      process.emitWarning(`salvo: onProgress threw: ${String(error)}`);
    }
  }
}
