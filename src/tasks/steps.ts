import { performance } from 'node:perf_hooks';
import { Recorder, type Gauges, type ShardStats } from '../stats/recorder.js';

/** A step's gauges: in-flight calls and rates belong to the whole thread. */
const STEP_GAUGES: Gauges = { connections: () => 0, targetRate: () => undefined };

/**
 * The named sub-steps of the calls (`ctx.measure`, `ctx.mark`): one Recorder per name, the very
 * structure that records the run, so that a step has the same statistics as a whole call and merges
 * alike. Names come from the calls as they run, so a recorder is made the first time a name is seen.
 */
export class StepRecorder {
  readonly #steps = new Map<string, Recorder>();
  #measureAt = 0;

  /** The measured run starts at `measureAt` (performance.now() ms). */
  start(measureAt: number): void {
    this.#measureAt = measureAt;
  }

  /** Step `name` took `ms`; `errorCode` when it threw. */
  record(name: string, ms: number, errorCode: string | undefined): void {
    let recorder = this.#steps.get(name);
    if (recorder === undefined) this.#steps.set(name, (recorder = new Recorder(this.#measureAt, STEP_GAUGES, undefined)));
    const now = performance.now();
    recorder.recordSent(0, now);
    if (errorCode === undefined) recorder.recordCompleted(ms, ms, now);
    else recorder.recordError(errorCode, now);
  }

  /** Each step's stats, by name; undefined when no call measured a step. */
  finish(endAt: number, durationMs: number, aborted: boolean): Record<string, ShardStats> | undefined {
    if (this.#steps.size === 0) return undefined;
    const steps: Record<string, ShardStats> = {};
    for (const [name, recorder] of this.#steps) steps[name] = recorder.finish(endAt, durationMs, aborted, undefined);
    return steps;
  }
}
