import type { Duration, LoadOptions } from '../shared/load-options.js';
import type { Thresholds } from '../shared/terms.js';
import type { LoadResult } from '../shared/load-result.js';
import type { SloOptions } from '../shared/llm.js';

/**
 * Options of `findCapacity`: the `LoadOptions` of every step (url, transport, connections ceiling,
 * workers, requests, checks, ...; `onProgress` reports each step's seconds) and the search's own.
 * The search sets each step's `rate`, `duration` and `thresholds` itself, so those (and `amount`,
 * `stages`) cannot be given.
 */
export interface FindCapacityOptions extends Omit<
  LoadOptions,
  'rate' | 'duration' | 'amount' | 'stages' | 'thresholds'
> {
  /**
   * The service level objective every step must meet, in the `thresholds` syntax:
   * `{ 'latency.p99': '< 50', 'errors.rate': '< 0.001' }`. Latency is the corrected latency, from
   * each request's intended send time. Required.
   */
  slo: Thresholds;
  /**
   * Each step's per-request objectives, ms (`{ ttft?, tpot?, itl?, e2e? }`): `runLoad`'s `slo`,
   * named apart because `slo` here is the search's objective. Each step's `result.goodput` counts
   * the requests that met them, so the objective can read it: `slo: { 'goodput.rate': '>= 0.95' }`.
   */
  requestSlo?: SloOptions;
  /** Measured length of each search step (after its warm-up). Default `'5s'`. */
  stepDuration?: Duration;
  /** The first rate tried, requests/s; the search doubles it until a step fails. Default 100. */
  start?: number;
  /** The highest rate tried, requests/s: a server that passes here is reported at `max`. Default 1,000,000. */
  max?: number;
  /**
   * Stop bisecting once the last passing and the first failing rate are within this fraction of the
   * passing one. Default 0.05 (5%).
   */
  precision?: number;
  /** Idle time between steps, for the server to settle (drain queues, close sockets). Default `'1s'`. */
  pause?: Duration;
  /**
   * Each step's warm-up: it runs at the step's rate and is kept out of the step's numbers, so each
   * step is measured in steady state. Default `'1s'` here (0 in `runLoad`).
   */
  warmup?: Duration;
  /**
   * Measured length of the confirmation run at the answer; a confirmation that fails steps down by
   * `precision` (up to 3 times) and says so. 0 skips confirmation. Default 3 × `stepDuration`.
   */
  confirmDuration?: Duration;
  /** Called as each step starts and ends, with its rate and, at the end, its outcome. */
  onStep?: (event: CapacityStepEvent) => void;
  /** Aborting it ends the running step and the search promptly, with the steps done so far. */
  signal?: AbortSignal;
}

/** Which part of the search a step belongs to. */
export type CapacityPhase = 'grow' | 'bisect' | 'confirm';

/**
 * What held a failed step back. `server`: the server itself missed the objective (evidence about
 * its capacity); `server-cpu` is that, with `monitor` showing the server's cores saturated (CPU at
 * 90% or more of them) during the step. `connections`: every connection was busy and requests waited in the generator for
 * one, while the server answered within the objective. `generator`: the load generator's own CPU or
 * event loop fell behind its schedule.
 */
export type StepLimit = 'server' | 'server-cpu' | 'connections' | 'generator';

/** One step of the search: a run at one target rate and its verdict. */
export interface CapacityStep {
  phase: CapacityPhase;
  /** Target rate, requests/s. */
  rate: number;
  /** Met the objective, completed at least 90% of the target rate and sent at least 98% of its slots. */
  passed: boolean;
  /** Why a failed step failed; undefined when it passed. */
  limitedBy?: StepLimit;
  /** What failed, in words: each missed objective with its actual value, a low achieved rate. */
  failures: string[];
  /** Responses completed per measured second. */
  achievedRate: number;
  /** Requests sent per measured second. */
  sentRate: number;
  /** Open-loop slots never sent because no connection was free. */
  missed: number;
  /** Corrected latency (from the intended send time), ms. */
  p50: number;
  p99: number;
  /** Latency from the actual write: how long the server itself took, ms. */
  p99Uncorrected: number;
  /** errors / (errors + completed responses). */
  errorRate: number;
  /** The step's full result. */
  result: LoadResult;
}

/** What `onStep` receives: `start` before a step runs, `end` with its outcome. */
export type CapacityStepEvent =
  | { type: 'start'; index: number; phase: CapacityPhase; rate: number }
  | { type: 'end'; index: number; phase: CapacityPhase; rate: number; step: CapacityStep };

/**
 * What ended the search. `server`: a rate failed on the server, and `capacity` is the highest rate
 * found to pass, within `precision` of it (or undefined when even `start` failed). `server-cpu`: the
 * same, and the lowest failing step had the server's cores saturated (`monitor`). `max`: every rate
 * up to `max` passed. `connections` / `generator`: the generator could not produce a rate it needed
 * to try, so no capacity is claimed (raise `connections`, or `workers`). `aborted`: the signal.
 */
export type CapacityLimit = 'server' | 'max' | StepLimit | 'aborted';

/** What `findCapacity` resolves to. */
export interface CapacityResult {
  url: string;
  /**
   * The highest rate, requests/s, that met the objective: within `precision` below a rate the
   * server failed (`limitedBy: 'server'`), or `max` (`limitedBy: 'max'`). Undefined when the search
   * found no such rate: even `start` failed, the generator was the limit, or it was aborted.
   */
  capacity: number | undefined;
  /** A longer run (`confirmDuration`) at `capacity` passed too. */
  confirmed: boolean;
  limitedBy: CapacityLimit;
  /**
   * The highest rate a step passed below `lowestFailed`: a lower bound on the capacity whatever
   * ended the search (a rate that passed a short step and failed a confirmation run does not count).
   */
  highestPassed: number | undefined;
  /** The lowest rate that failed on the server. */
  lowestFailed: number | undefined;
  /** The outcome in a sentence or two, with what to do when the search could not conclude. */
  message: string;
  slo: Thresholds;
  precision: number;
  /** Every step in the order run, each with its full result. */
  steps: CapacityStep[];
  aborted: boolean;
  /** Wall time of the whole search, pauses and warm-ups included, ms. */
  durationMs: number;
}
