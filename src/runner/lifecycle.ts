import { performance } from 'node:perf_hooks';
import type { Plan } from '../shared/plan.js';
import type { Gauges, ShardStats } from '../stats/recorder.js';
import { abortOnFailCheck, type PartialLoadResult } from '../stats/thresholds.js';
import type { CheckStats } from '../shared/load-result.js';
import type { RequestSpec } from '../shared/load-options.js';
import type { StreamHooks } from '../shared/stream.js';
import { measuredSpan, prepareMeasuring, type Measuring, type OnSecond } from './measuring.js';
import type { SteeringTargets, ThreadSteering } from './steering.js';

/** What one thread's run needs besides its plan; everything here stays in that thread. */
export interface RunHooks {
  /** The user's request specs, for `setupRequest` / `onResponse` hooks (HTTP). */
  requests?: RequestSpec[] | undefined;
  signal?: AbortSignal | undefined;
  /** The `stream` option's functions (HTTP). */
  stream?: StreamHooks | undefined;
  /** Called as each second closes, with totals so far. */
  onSecond?: OnSecond | undefined;
  /**
   * Awaited after the connections are open and before the clock starts (the workers' start barrier).
   * It may resolve with the instant the clock starts from (performance.now() ms), shared with other
   * threads, when this thread may get there a little late.
   */
  ready?: (() => Promise<number | void>) | undefined;
  /** `startLoad`'s handle, in this thread: rate and connection changes while the run goes. */
  steering?: ThreadSteering | undefined;
}

/** First reconnect or retry after a failure, then doubling up to the cap, so a refused port cannot spin the CPU. */
const BACKOFF_FIRST_MS = 5;
const BACKOFF_MAX_MS = 1000;

/** A tick often enough to see a timeout within a tenth of it: every 5 to 100 ms. */
export function timeoutTickMs(timeoutMs: number): number {
  return Math.min(100, Math.max(5, Math.floor(timeoutMs / 10)));
}

/** How long to wait before trying again after `failures` failures in a row (0 for the first). */
export function backoffMs(failures: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** failures);
}

/**
 * A protocol's exchange logic, plugged into the run lifecycle: what it sends and how it times the
 * answers. The lifecycle calls these in order: `open`, `begin` (the clock started; also when the run
 * stops before it could start), `start`, `tick` about every `tickMs`, then `halt` and `close` once.
 */
export interface Exchanges {
  /** Between ticks, ms: bounds how late a timeout or a ramp step is seen. */
  readonly tickMs: number;
  /** Read each second for the timeline. */
  readonly gauges: Omit<Gauges, 'generator'>;
  /** Opens the first connections; resolves once they opened, failed or were given up on. */
  open(): Promise<void>;
  /** The thread's clock started: `measuring` holds its instants and recorder (hot-path code keeps copies). */
  begin(measuring: Measuring): void;
  /** Starts sending, from `startAt` (performance.now() ms). */
  start(startAt: number): void;
  /** Timeouts, ramps: after the second rolled and `abortOnFail` was checked. */
  tick(now: number): void;
  /** The `expect` checks so far, for `abortOnFail` and the stats; absent when the protocol has none. */
  checks?(): CheckStats | undefined;
  /** The run stopped at `now` and is measured until `endAt`: stop sending, add what only the protocol knows to the recorder. */
  halt(now: number, endAt: number): void;
  /** What `startLoad`'s handle may change in this protocol's loops; absent where it changes nothing. */
  steering?(): SteeringTargets;
  /** Adds the protocol's own fields to `stats` and closes the connections; resolves once they are closed. */
  close(stats: ShardStats, endAt: number): Promise<void>;
}

/**
 * One thread's run, whatever its protocol: opens the connections, waits at the start gate (`ready`),
 * starts the clock (warm-up, then measuring), rolls the seconds, checks `abortOnFail` about once a
 * second, ends at the end of `duration` or on `stop` (amount reached, abort), and turns the recorder
 * into the thread's `ShardStats`. The protocol (`Exchanges`) only sends and times exchanges.
 */
export class RunLifecycle {
  readonly #plan: Plan;
  readonly #hooks: RunHooks;
  readonly #exchanges: Exchanges;
  /** The `abortOnFail` thresholds, checked from the tick about once per second, off the hot path. */
  readonly #abortOnFail: ((partial: PartialLoadResult) => boolean) | undefined;
  #nextAbortCheckAt = Infinity;
  #startMeasuring: ((clockFrom?: number) => Measuring) | undefined;
  #measuring: Measuring | undefined;
  #tickTimer: NodeJS.Timeout | undefined;
  #stopped = false;
  #resolve!: (stats: ShardStats) => void;
  readonly #onAbort = () => this.stop(true);

  constructor(plan: Plan, hooks: RunHooks, exchanges: Exchanges) {
    this.#plan = plan;
    this.#hooks = hooks;
    this.#exchanges = exchanges;
    this.#abortOnFail = abortOnFailCheck(plan.thresholds);
  }

  /** The run has stopped (or is stopping): nothing more is sent or counted. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Runs to the end (duration, amount, abort) and returns what this thread measured. */
  async run(): Promise<ShardStats> {
    const { signal } = this.#hooks;
    const done = new Promise<ShardStats>((resolve) => (this.#resolve = resolve));
    if (signal?.aborted) {
      this.stop(true);
      return done;
    }
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    // A stop while connections are still opening ends the run without waiting for them (a handshake
    // that never completes would otherwise hold it until its timeout, or for ever).
    await Promise.race([this.#exchanges.open(), done]);
    if (this.#stopped) return done;
    this.#prepare();
    const clockFrom = await this.#hooks.ready?.();
    if (this.#stopped) return done;
    if (signal?.aborted) {
      this.stop(true);
      return done;
    }
    const startAt = this.#begin(clockFrom ?? undefined);
    this.#tickTimer = setInterval(() => this.#tick(), this.#exchanges.tickMs);
    this.#exchanges.start(startAt);
    return done;
  }

  /** Builds what measures this thread, before it waits for its start (see `prepareMeasuring`). */
  #prepare(): void {
    this.#startMeasuring ??= prepareMeasuring(this.#plan, {
      openLoop: this.#plan.loop === 'open',
      gauges: this.#exchanges.gauges,
      onSecond: this.#hooks.onSecond,
      onEnd: () => this.stop(false),
    });
  }

  /** Starts the thread's clock, from `clockFrom` if given and past; returns when, performance.now() ms. */
  #begin(clockFrom?: number): number {
    this.#prepare();
    const measuring = (this.#measuring = this.#startMeasuring!(clockFrom));
    if (this.#abortOnFail) this.#nextAbortCheckAt = measuring.measureAt + 1000;
    this.#exchanges.begin(measuring);
    this.#hooks.steering?.attach(this.#exchanges.steering?.(), measuring.startAt);
    return measuring.startAt;
  }

  #tick(): void {
    const now = performance.now();
    const measuring = this.#measuring!;
    if (now >= measuring.endAt) {
      this.stop(false);
      return;
    }
    measuring.recorder.rollTo(now);
    if (now >= this.#nextAbortCheckAt) {
      this.#nextAbortCheckAt += 1000;
      if (this.#abortOnFail!(measuring.recorder.snapshot(this.#exchanges.checks?.()))) {
        this.stop(true);
        return;
      }
    }
    this.#exchanges.tick(now);
  }

  /** Ends the run now; resolves `run()` with the thread's stats once the protocol has closed. */
  stop(aborted: boolean): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#hooks.steering?.detach();
    const now = performance.now();
    // Stopped while the connections were still opening: nothing was measured.
    if (this.#measuring === undefined) this.#begin();
    const started = this.#measuring!;
    started.cancelTimers();
    clearInterval(this.#tickTimer);
    this.#hooks.signal?.removeEventListener('abort', this.#onAbort);
    const { endAt, durationMs } = measuredSpan(this.#plan, started, now);
    this.#exchanges.halt(now, endAt);
    const stats = started.recorder.finish(endAt, durationMs, aborted, this.#exchanges.checks?.());
    stats.generator = started.monitor.finish(stats.warnings);
    if (started.warmupRecorder !== undefined) stats.warmupSent = started.warmupRecorder.sent;
    void this.#exchanges.close(stats, endAt).then(() => this.#resolve(stats));
  }
}
