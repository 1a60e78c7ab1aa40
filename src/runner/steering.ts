import { performance } from 'node:perf_hooks';

/** What a thread's loops take from the run's handle: the open loop a rate, the closed loop connections. */
export interface SteeringTargets {
  /** This thread's share of the rate from `at` (performance.now() ms) on; undefined for a closed loop. */
  rate: ((rate: number, at: number) => void) | undefined;
  /** This thread's share of the connections, now; undefined where the run cannot change them. */
  connections: ((connections: number, now: number) => void) | undefined;
}

/**
 * One thread's end of `startLoad`'s handle (in this thread, or a worker's, fed by messages). A
 * change made before the thread's clock started waits, and applies from its start. Nothing here is
 * on the hot path: a run nobody steers never calls it.
 */
export class ThreadSteering {
  #targets: SteeringTargets | undefined;
  #ended = false;
  #rate: number | undefined;
  #connections: number | undefined;

  /** The thread's clock started at `startAt`: changes made so far apply from there. */
  attach(targets: SteeringTargets | undefined, startAt: number): void {
    if (this.#ended || targets === undefined) return;
    this.#targets = targets;
    if (this.#rate !== undefined) targets.rate?.(this.#rate, startAt);
    if (this.#connections !== undefined) targets.connections?.(this.#connections, startAt);
  }

  /** The run stopped: later changes are dropped. */
  detach(): void {
    this.#ended = true;
    this.#targets = undefined;
  }

  /**
   * This thread's share of the rate, from the wall-clock instant `atWallMs` (epoch ms), shared with
   * the other threads so that their slots stay interleaved; at once if that has passed here.
   */
  setRate(rate: number, atWallMs: number): void {
    this.#rate = rate;
    // After the caller's stack (an `onProgress` call runs inside the recorder's roll of a second).
    queueMicrotask(() => this.#targets?.rate?.(rate, Math.max(performance.now(), atWallMs - performance.timeOrigin)));
  }

  setConnections(connections: number): void {
    this.#connections = connections;
    queueMicrotask(() => this.#targets?.connections?.(connections, performance.now()));
  }
}
