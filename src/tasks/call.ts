import { performance } from 'node:perf_hooks';
import type { TaskContext } from '../shared/task.js';

/** What a call reports to the runner that made it. */
export interface CallOwner {
  /** The call settled in time: fulfilled (`error` undefined, `failed` false) or rejected. */
  settled(call: TaskCall, failed: boolean, error: unknown): void;
  /** A call given up on (timed out, or the run ended) settled at last. */
  settledLate(): void;
  /** A named sub-step of a measured call took `ms`; `failed` when it threw `error`. */
  step(name: string, ms: number, failed: boolean, error: unknown): void;
  /** A check of a measured call. */
  check(name: string, passed: boolean, message: string | undefined): void;
}

/**
 * One call slot's context and its settle handlers, made once and reused from call to call: the hot
 * path allocates no closure per call. The signal's controller is made only when a call reads
 * `signal`. A call given up on (`abandon`) keeps this object, aborted; the slot takes a new one.
 */
export class TaskCall implements TaskContext {
  readonly slot: number;
  readonly state: unknown;
  iteration = -1;
  /** The call counts in the statistics (not warm-up). */
  measured = false;
  readonly #owner: CallOwner;
  #controller: AbortController | undefined;
  #abandoned = false;
  #abortReason: unknown;
  #markAt = 0;

  constructor(slot: number, state: unknown, owner: CallOwner) {
    this.slot = slot;
    this.state = state;
    this.#owner = owner;
  }

  /** A new call on this slot starts at `now`. */
  begin(iteration: number, measured: boolean, now: number): void {
    this.iteration = iteration;
    this.measured = measured;
    this.#markAt = now;
    // The last call's controller was never aborted and nobody waits on it: the next reader gets a fresh one.
    this.#controller = undefined;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#abandoned) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  /** The slot gives this call up (timeout, end of run): its signal aborts with `reason`; its settling is ignored. */
  abandon(reason: unknown): void {
    this.#abandoned = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }

  readonly onFulfilled = (): void => {
    if (this.#abandoned) this.#owner.settledLate();
    else this.#owner.settled(this, false, undefined);
  };

  readonly onRejected = (error: unknown): void => {
    if (this.#abandoned) this.#owner.settledLate();
    else this.#owner.settled(this, true, error);
  };

  async measure<T>(name: string, fn: () => T | PromiseLike<T>): Promise<T> {
    const startedAt = performance.now();
    let failed = false;
    let error: unknown;
    try {
      return await fn();
    } catch (thrown) {
      failed = true;
      error = thrown;
      throw thrown;
    } finally {
      const now = performance.now();
      this.#markAt = now;
      if (this.measured && !this.#abandoned) this.#owner.step(name, now - startedAt, failed, error);
    }
  }

  mark(name: string): void {
    const now = performance.now();
    const ms = now - this.#markAt;
    this.#markAt = now;
    if (this.measured && !this.#abandoned) this.#owner.step(name, ms, false, undefined);
  }

  check(name: string, passed: boolean, message?: string): boolean {
    if (this.measured && !this.#abandoned) this.#owner.check(name, passed, message);
    return passed;
  }
}
