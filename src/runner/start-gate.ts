import { performance } from 'node:perf_hooks';
import { addWarning, type Warning } from '../shared/warnings.js';

/** Below this distance to the start, the wait yields with setImmediate instead of a timer (timers fire late). */
const SPIN_BELOW_MS = 2;

/** Wall-clock now, epoch ms with sub-ms precision (Date.now() has whole ms). */
export const wallClockMs = (): number => performance.timeOrigin + performance.now();

/**
 * `startAt`: holds the run between opening its connections and starting its clock, so that the
 * measured run (after the warm-up) begins at a wall-clock instant shared by every segment. In-process
 * it is the engine's `ready` hook (`wait`); with workers, the pool waits on it (`lead`) between every
 * thread's 'ready' and its 'go', which names the instant to start at. An abort ends the wait at once.
 */
export class StartGate {
  readonly #goAtMs: number | undefined;
  readonly #startAtMs: number | undefined;
  readonly #signal: AbortSignal | undefined;
  /** How far past `startAt` the measured run could start at the earliest, when it was already past. */
  #lateMs = 0;
  /** Told the wall-clock instant the threads' clocks start (the warm-up, then the measured run): `monitor` samples from it. */
  onGo: ((atMs: number) => void) | undefined;

  constructor(startAtMs: number | undefined, warmupMs: number, signal: AbortSignal | undefined) {
    this.#startAtMs = startAtMs;
    this.#goAtMs = startAtMs === undefined ? undefined : startAtMs - warmupMs;
    this.#signal = signal;
  }

  /** Resolves at `startAt` minus the warm-up, at once when that has passed or the run is aborted. */
  wait = async (): Promise<void> => {
    const goAt = this.#goAtMs;
    if (goAt !== undefined) {
      this.#noteLate(goAt);
      await this.#until(goAt);
    }
    this.onGo?.(wallClockMs());
  };

  /**
   * For worker threads, which start on a message: resolves `leadMs` before `startAt` minus the
   * warm-up (at once when that has passed, or the run is aborted) with the wall-clock instant for
   * every thread to start at: that one, or `leadMs` from now when there is no `startAt` or it has
   * passed, time for the message to reach every thread.
   */
  async lead(leadMs: number): Promise<number> {
    const goAt = this.#goAtMs;
    let atMs: number;
    if (goAt === undefined || this.#noteLate(goAt)) {
      atMs = wallClockMs() + leadMs;
    } else {
      await this.#until(goAt - leadMs);
      atMs = goAt;
    }
    this.onGo?.(atMs);
    return atMs;
  }

  /** Whether `goAt` has passed; if so, by how much is kept for the warning. */
  #noteLate(goAt: number): boolean {
    const left = goAt - wallClockMs();
    if (left >= 0) return false;
    this.#lateMs = -left;
    return true;
  }

  #until(atMs: number): Promise<void> {
    if (atMs - wallClockMs() <= 0) return Promise.resolve();
    const signal = this.#signal;
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      const check = () => {
        if (signal?.aborted) return finish();
        const rest = atMs - wallClockMs();
        if (rest <= 0) finish();
        else if (rest > SPIN_BELOW_MS) timer = setTimeout(check, Math.floor(rest - SPIN_BELOW_MS));
        else setImmediate(check);
      };
      signal?.addEventListener('abort', finish, { once: true });
      check();
    });
  }

  /** Adds `LATE_START` to `warnings` when `startAt` had already passed. */
  warn(warnings: Warning[]): void {
    if (this.#lateMs <= 0) return;
    addWarning(
      warnings,
      'LATE_START',
      `startAt (${new Date(this.#startAtMs!).toISOString()}) had passed by ${this.#lateMs.toFixed(0)} ms when this run was ready ` +
        `(connections open${this.#goAtMs !== this.#startAtMs ? ', warm-up due' : ''}), so it started at once: its seconds do not line up with ` +
        `other segments' that started on time. Set startAt further ahead, enough for every segment to start and connect.`,
    );
  }
}
