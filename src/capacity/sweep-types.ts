import type { Duration, LoadOptions } from '../shared/load-options.js';
import type { LoadResult } from '../shared/load-result.js';
import type { StepLimit } from './types.js';

/**
 * The loads a sweep runs, lowest first: open-loop rates (requests/s), closed-loop connections
 * (concurrency: requests in flight; a task run's call slots), or `steps` loads spaced evenly from
 * `from` to `to` (rounded to whole numbers) over `over` (default `'rate'`).
 */
export type SweepLoads =
  | { rates: number[] }
  | { connections: number[] }
  | { from: number; to: number; steps: number; over?: 'rate' | 'connections' };

/**
 * Options of `sweep`: the `LoadOptions` of every point (url, transport, workers, requests, stream,
 * `arrivals`, ...) and the sweep's own. The sweep sets each point's `rate` (or `connections`) and
 * `duration`, so those (and `amount`, `stages`) cannot be given; in a rate sweep `connections` is
 * the lanes every point may use.
 */
export interface SweepOptions extends Omit<LoadOptions, 'rate' | 'duration' | 'amount' | 'stages'> {
  sweep: SweepLoads;
  /** Measured length of each point (after its warm-up). Default `'5s'`. */
  stepDuration?: Duration;
  /** Idle time between points, for the server to settle. Default `'1s'`. */
  pause?: Duration;
  /** Each point's warm-up, kept out of its numbers. Default `'1s'` here (0 in `runLoad`). */
  warmup?: Duration;
  /** Stop after the first over-saturated point (default true); false runs every load given. */
  stopAtSaturation?: boolean;
  /** Called as each point starts and ends. */
  onPoint?: (event: SweepPointEvent) => void;
  /** Aborting it ends the running point and the sweep, with the points done so far. */
  signal?: AbortSignal;
}

/** One load point of a sweep. */
export interface SweepPoint {
  /** The offered load: the target rate (requests/s) or the connections. */
  load: number;
  /** Successful responses per measured second (failed responses, such as 503s shedding load, left out). */
  throughput: number;
  /** Requests sent per measured second. */
  sentRate: number;
  /** Requests per second that met every SLO (`result.goodput`, with an `slo`); absent without one. */
  goodput?: number;
  /** Corrected latency (from each request's due time in a rate sweep), ms. */
  p50: number;
  p90: number;
  p99: number;
  /** (errors + failed responses) / sent. */
  errorRate: number;
  /**
   * The server no longer kept up at this load: in a rate sweep throughput under 90% of the target
   * or over 2% of its slots never sent (the capacity search's step verdict); in a connection sweep
   * throughput rose by less than half as much as the connections did over the point before; in
   * either, more than half the requests failed.
   */
  saturated: boolean;
  /** Why it is saturated, in words. */
  why?: string;
  /**
   * A saturated rate point's limit, as the capacity search judges it: `server`, or the generator's
   * own (`connections`: every lane busy while the server kept its pace; `generator`: its CPU).
   */
  limitedBy?: StepLimit;
  /** The point's full result. */
  result: LoadResult;
}

/** What `onPoint` receives: `start` before a point runs, `end` with it. */
export type SweepPointEvent =
  { type: 'start'; index: number; load: number } | { type: 'end'; index: number; load: number; point: SweepPoint };

/** What `sweep` resolves to. */
export interface SweepResult {
  url: string;
  /** What the loads are. */
  over: 'rate' | 'connections';
  /** Every load of the sweep, lowest first (`points` has the ones run). */
  loads: number[];
  points: SweepPoint[];
  /**
   * The index in `points` of the knee: with goodput (an `slo`), the point of highest goodput;
   * otherwise the Kneedle point (Satopää et al., 2011) of throughput against load over the points
   * up to the first saturated one: both scaled to 0..1, the point furthest above the diagonal.
   * Undefined when no point saturated (the server kept up with every load: the knee is beyond
   * them) or none had goodput.
   */
  knee: number | undefined;
  /** How the knee was found. */
  kneeMethod: 'goodput' | 'kneedle' | undefined;
  /** The load of the first saturated point. */
  saturatedAt: number | undefined;
  /** The outcome in a sentence or two. */
  message: string;
  aborted: boolean;
  /** Wall time of the whole sweep, pauses and warm-ups included, ms. */
  durationMs: number;
}
