import type { Histogram } from 'hdr-histogram-js';
import type { OnRolledSecond } from '../stats/progress-event.js';
import { addCounts, type RunningTotals, type SecondSummary } from '../stats/recorder.js';
import { addEncodedInto, createHistogram, encodeHistogram } from '../stats/histogram.js';
import type { ShardStreamSecond } from '../shared/stream.js';

type Totals = RunningTotals;

/** Running totals before anything was counted. */
export const noTotals = (): Totals => ({
  sent: 0,
  completed: 0,
  errors: 0,
  retried: 0,
  statusCodes: {},
  errorsByCode: {},
  failed: 0,
});

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
  /** The request names' parts, when the shards have names. */
  byName?: Map<string, { sent: number; completed: number; errors: number; histogram: Histogram }>;
  /** A `stream` run's part: counts summed, each figure's histograms added. */
  stream?: PendingStream;
}

const STREAM_FIGURES = ['firstEvent', 'gap', 'ttft', 'itl', 'delivery'] as const;

interface PendingStream {
  events: number;
  outputTokens: number;
  streams: number;
  good: number;
  histograms: Partial<Record<(typeof STREAM_FIGURES)[number], Histogram>>;
}

function addStream(into: PendingStream | undefined, part: ShardStreamSecond): PendingStream {
  const sum = into ?? { events: 0, outputTokens: 0, streams: 0, good: 0, histograms: {} };
  sum.good += part.good ?? 0;
  sum.events += part.events;
  sum.outputTokens += part.outputTokens;
  sum.streams += part.streams;
  for (const figure of STREAM_FIGURES) {
    if (part[figure] !== '') addEncodedInto((sum.histograms[figure] ??= createHistogram()), part[figure]);
  }
  return sum;
}

function encodeStream({ events, outputTokens, streams, good, histograms }: PendingStream): ShardStreamSecond {
  const encoded = { events, outputTokens, streams, firstEvent: '', gap: '', ttft: '', itl: '', delivery: '' };
  if (good > 0) (encoded as ShardStreamSecond).good = good;
  for (const figure of STREAM_FIGURES) {
    const histogram = histograms[figure];
    if (histogram === undefined) continue;
    encoded[figure] = encodeHistogram(histogram);
    histogram.destroy();
  }
  return encoded;
}

/**
 * Merges the shards' live seconds into one second of the whole run (for `onProgress` and `outputs`):
 * counts are summed, p50/p90/p99 come from the added per-second histograms. A second is reported
 * once every shard still running has closed it, so the callback sees each second once, in order.
 */
export class ProgressMerger {
  readonly #shards: number;
  readonly #onSecond: OnRolledSecond;
  readonly #pending = new Map<number, PendingSecond>();
  readonly #finished = new Set<number>();
  readonly #lastTotals: Totals[];
  #next = 0;

  constructor(shards: number, onSecond: OnRolledSecond) {
    this.#shards = shards;
    this.#onSecond = onSecond;
    this.#lastTotals = Array.from({ length: shards }, noTotals);
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
    for (const [name, part] of Object.entries(summary.byName ?? {})) {
      const named = (pending.byName ??= new Map()).get(name);
      if (named === undefined)
        pending.byName.set(name, {
          sent: part.sent,
          completed: part.completed,
          errors: part.errors,
          histogram: createHistogram(),
        });
      const into = pending.byName.get(name)!;
      if (named !== undefined) {
        into.sent += part.sent;
        into.completed += part.completed;
        into.errors += part.errors;
      }
      if (part.histogram !== '') addEncodedInto(into.histogram, part.histogram);
    }
    if (summary.stream !== undefined) pending.stream = addStream(pending.stream, summary.stream);
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
    const totals = noTotals();
    for (let shard = 0; shard < this.#shards; shard++) {
      const shardTotals = pending.totals.get(shard) ?? this.#lastTotals[shard]!;
      totals.sent += shardTotals.sent;
      totals.completed += shardTotals.completed;
      totals.errors += shardTotals.errors;
      totals.retried += shardTotals.retried;
      totals.failed += shardTotals.failed;
      addCounts(totals.statusCodes, shardTotals.statusCodes);
      addCounts(totals.errorsByCode, shardTotals.errorsByCode);
    }
    // Nothing timed in the second: NaN, not the empty histogram's 0 (which reads as instant).
    const at = (p: number): number =>
      pending.histogram.totalCount > 0 ? pending.histogram.getValueAtPercentile(p) / 1000 : Number.NaN;
    // The merged latencies travel on (encoded once a second) for a run of scenarios to add up again.
    const summary: SecondSummary = {
      second,
      sent: pending.sent,
      completed: pending.completed,
      errors: pending.errors,
      retried: pending.retried,
      p50: at(50),
      p90: at(90),
      p99: at(99),
      connections: pending.connections,
      targetRate: pending.targetRate,
      cpuPercent: pending.cpuPercent,
      eventLoopUtilization: pending.eventLoopUtilization,
      histogram: encodeHistogram(pending.histogram),
    };
    pending.histogram.destroy();
    if (pending.byName !== undefined) {
      summary.byName = {};
      for (const [name, { histogram, ...counts }] of pending.byName) {
        summary.byName[name] = { ...counts, histogram: histogram.totalCount === 0 ? '' : encodeHistogram(histogram) };
        histogram.destroy();
      }
    }
    if (pending.stream !== undefined) summary.stream = encodeStream(pending.stream);
    this.#onSecond(summary, totals);
  }
}
