// What a thread's recorder hands on: its stats (`ShardStats`), each closed second and the running
// totals, the gauges it samples, and the counting helpers that merging shares.
import type { CheckStats, ErrorSample, PhaseHistograms } from '../shared/load-result.js';
import type { Warning } from '../shared/warnings.js';
import type { ShardWebSocket } from '../shared/websocket.js';
import type { ShardStream, ShardStreamSecond } from '../shared/stream.js';
import type { PrewarmStats } from '../shared/prewarm.js';

/** Adds counts by key (status codes, error codes, close codes) into `target`. */
export function addCounts(target: Record<string, number>, source: Record<string, number>): void {
  for (const [key, count] of Object.entries(source)) target[key] = (target[key] ?? 0) + count;
}

/** One second of one shard, encoded for merging. */
export interface ShardSecond {
  second: number;
  sent: number;
  completed: number;
  errors: number;
  /** Requests sent again in this second (`requests.retried`). */
  retried: number;
  connections: number;
  targetRate: number | undefined;
  /** Corrected latencies of the responses completed in this second. */
  histogram: string;
  /** Process CPU in this second, 100 = one core (see `GeneratorMonitor`). */
  cpuPercent: number;
  /** This thread's event-loop utilization in this second, 0..1. */
  eventLoopUtilization: number;
}

/** One second's share of the generator's own work, for the timeline and `onProgress`. */
export type GeneratorSecond = Pick<ShardSecond, 'cpuPercent' | 'eventLoopUtilization'>;

/** What one thread measured of itself (`GeneratorMonitor`), as plain data that crosses threads and merges. */
export interface ShardGenerator {
  /** Process CPU over this thread's measured run, 100 = one core. */
  cpuPercent: number;
  eventLoopUtilization: number;
  eventLoopDelayP99Ms: number;
  /** Send lag (µs) of the measured open-loop slots, encoded like the latency histograms; absent in closed loop. */
  sendLag: string | undefined;
  saturated: boolean;
  /** What the thread's pre-warm cost; absent when it did not pre-warm. */
  prewarm?: PrewarmStats;
}

/** Everything one thread measured, as plain data that crosses threads and merges exactly. */
export interface ShardStats {
  sent: number;
  completed: number;
  missed: number;
  retried: number;
  errors: number;
  errorsByCode: Record<string, number>;
  /** The first few errors kept with their message (`errors.samples`); absent when none were. */
  errorSamples?: ErrorSample[];
  statusCodes: Record<string, number>;
  /** Requests still in flight (written, no answer yet) when the run ended (`requests.unfinished`). */
  unfinished: number;
  /** Requests sent during the warm-up (`requests.warmup`); absent from a run without one. */
  warmupSent?: number;
  /** Redirects followed within requests (`requests.redirects`); absent when none were. */
  redirects?: number;
  /** A task's measured calls that passed timeout and had not settled by the end (`TASK_IGNORED_SIGNAL`). */
  unsettled?: number;
  /** Responses whose status the run does not accept, by status (`failed.byStatus`). */
  failedByStatus: Record<string, number>;
  bytesSent: number;
  bytesReceived: number;
  durationMs: number;
  /** Wall-clock start of this thread's measured run, epoch ms. */
  startedAt: number;
  aborted: boolean;
  histogram: string;
  histogramUncorrected: string;
  timeline: ShardSecond[];
  checks: CheckStats | undefined;
  /** Findings of this thread (`result.warnings`), merged by code. */
  warnings: Warning[];
  /** Phase histograms (`result.phases`); absent from a shard that measured nothing. */
  phases?: PhaseHistograms;
  /** The generator's self-measurement; absent from a shard that never ran. */
  generator: ShardGenerator | undefined;
  /** A WebSocket run's close codes and stages. */
  websocket?: ShardWebSocket;
  /** A `stream` run's events and their timings. */
  stream?: ShardStream;
  /**
   * Each request name's own stats (`result.byName`), in the same shape; absent in a WebSocket run.
   * A name's `warnings` are empty and its `generator` absent: those belong to the thread.
   */
  byName?: Record<string, ShardStats>;
}

/** One request name's part of a second that just closed, with its encoded latencies (merged over threads). */
export type NameSecondSummary = Pick<ShardSecond, 'sent' | 'completed' | 'errors' | 'histogram'>;

/** The second that just closed, live, for `onProgress` and `outputs`. */
export interface SecondSummary extends ShardSecond {
  /** Percentiles of the second's latencies, ms; NaN when it timed nothing. */
  p50: number;
  p90: number;
  p99: number;
  /** Each request name's part of it (absent in a run without names). */
  byName?: Record<string, NameSecondSummary>;
  /** A `stream` run's events, streams and tokens in it, with their times encoded (merged over threads). */
  stream?: ShardStreamSecond;
}

/** A thread's (or, merged, the run's) counts since the measured run began, sent with each closed second. */
export type RunningTotals = Pick<
  ShardStats,
  'sent' | 'completed' | 'errors' | 'retried' | 'statusCodes' | 'errorsByCode'
> & {
  /** Failed requests so far (`failed.total`). */
  failed: number;
};

/** `accepted[status]` is 1 for a status the run accepts when no `expect.status` says otherwise: below 400, as k6 has it. */
export const DEFAULT_ACCEPTED_STATUS: Uint8Array = new Uint8Array(1000).fill(1, 100, 400);

/** The failed responses by status of counts saved without them (results before 1.0): the default rule's. */
export function failedByDefault(statusCodes: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(statusCodes).filter(([status]) => DEFAULT_ACCEPTED_STATUS[Number(status)] !== 1),
  );
}

/** Samples taken once per second from the engine. */
export interface Gauges {
  connections(): number;
  targetRate(second: number): number | undefined;
  /** The generator's CPU and event-loop share since the previous second. */
  generator?(): GeneratorSecond;
  /** `stream`: the streams' part of a second that closed (read only for a live second). */
  stream?(second: number): ShardStreamSecond | undefined;
}
