import { performance } from 'node:perf_hooks';
import type { TaskContext } from '../shared/task.js';
import type { Step } from './steps.js';

/** What a call reports to the runner that made it. */
export interface CallOwner {
  /** The call settled in time: fulfilled (`error` undefined, `failed` false) or rejected. */
  settled(call: TaskCall, failed: boolean, error: unknown): void;
  /** A call given up on (timed out, or the run ended) settled at last. */
  settledLate(call: TaskCall): void;
  /** A named sub-step of a measured call starts: what records it (undefined: not counted, the run has ended). */
  stepStarted(name: string, now: number): Step | undefined;
  /** A step of this call ended after `ms`; `failed` when it threw `error`. False: it ended too late to count. */
  stepEnded(step: Step, ms: number, lateMs: number, failed: boolean, error: unknown): boolean;
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
  /** How late the call started (started minus due, ms): its steps' latencies count it, as the call's does. */
  #lateMs = 0;
  /** Its steps that started and have not ended, in `requests.unfinished` of their names if the run ends first. */
  readonly openSteps: Step[] = [];

  constructor(slot: number, state: unknown, owner: CallOwner) {
    this.slot = slot;
    this.state = state;
    this.#owner = owner;
  }

  /** A new call on this slot starts at `now`, `lateMs` after it was due. */
  begin(iteration: number, measured: boolean, now: number, lateMs: number): void {
    this.iteration = iteration;
    this.measured = measured;
    this.#markAt = now;
    this.#lateMs = lateMs;
    if (this.openSteps.length > 0) this.openSteps.length = 0;
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
    if (this.#abandoned) this.#owner.settledLate(this);
    else this.#owner.settled(this, false, undefined);
  };

  readonly onRejected = (error: unknown): void => {
    if (this.#abandoned) this.#owner.settledLate(this);
    else this.#owner.settled(this, true, error);
  };

  async measure<T>(name: string, fn: () => T | PromiseLike<T>): Promise<T> {
    const startedAt = performance.now();
    const step = this.measured && !this.#abandoned ? this.#owner.stepStarted(name, startedAt) : undefined;
    if (step !== undefined) this.openSteps.push(step);
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
      if (step !== undefined && !this.#abandoned) this.#end(step, now - startedAt, failed, error);
    }
  }

  mark(name: string): void {
    const now = performance.now();
    const ms = now - this.#markAt;
    this.#markAt = now;
    if (!this.measured || this.#abandoned) return;
    const step = this.#owner.stepStarted(name, now - ms);
    if (step !== undefined) this.#owner.stepEnded(step, ms, this.#lateMs, false, undefined);
  }

  /** A step ended in time: no longer open. One that ended after the run's end stays open, to be counted unfinished. */
  #end(step: Step, ms: number, failed: boolean, error: unknown): void {
    if (!this.#owner.stepEnded(step, ms, this.#lateMs, failed, error)) return;
    const open = this.openSteps;
    const index = open.indexOf(step);
    if (index >= 0) open.splice(index, 1);
  }

  check(name: string, passed: boolean, message?: string): boolean {
    if (this.measured && !this.#abandoned) this.#owner.check(name, passed, message);
    return passed;
  }
}
