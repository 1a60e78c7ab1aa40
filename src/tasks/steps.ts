import { performance } from 'node:perf_hooks';
import {
  Recorder,
  type Gauges,
  type NameSecondSummary,
  type SecondSummary,
  type ShardStats,
} from '../stats/recorder.js';

/** A step's gauges: in-flight calls and rates belong to the whole thread. */
const STEP_GAUGES: Gauges = { connections: () => 0, targetRate: () => undefined };

/** One named step's recording: its recorder and the seconds it closed that the thread has not read yet. */
export interface Step {
  readonly recorder: Recorder;
  readonly seconds: SecondSummary[];
}

/**
 * The named sub-steps of the calls (`ctx.measure`, `ctx.mark`): one Recorder per name, the very
 * structure that records the run, so that a step has the same statistics as a whole call and merges
 * alike. Names come from the calls as they run, so a recorder is made the first time a name is seen.
 * A step counts in `sent` when it starts, so that one still running at the end is `unfinished`; its
 * latency counts from when it would have started had its call started on time (the uncorrected one
 * from when it did start). Each closed second's part of every name is read by the thread's recorder
 * (`second`), for `onProgress` and `outputs`.
 */
export class StepRecorder {
  readonly #steps = new Map<string, Step>();
  /** Someone reads the seconds (`onProgress`, `outputs`): only then are they kept for `second`. */
  readonly #live: boolean;
  #measureAt = 0;
  #endAt = Infinity;

  constructor(live: boolean) {
    this.#live = live;
  }

  /** The measured run starts at `measureAt` and ends at `endAt` (performance.now() ms). */
  start(measureAt: number, endAt: number): void {
    this.#measureAt = measureAt;
    this.#endAt = endAt;
  }

  /** Step `name` of a measured call starts at `now`; undefined once the run has ended. */
  started(name: string, now: number): Step | undefined {
    if (now >= this.#endAt) return undefined;
    let step = this.#steps.get(name);
    if (step === undefined) {
      const seconds: SecondSummary[] = [];
      step = {
        recorder: new Recorder(
          this.#measureAt,
          STEP_GAUGES,
          this.#live ? (summary) => seconds.push(summary) : undefined,
        ),
        seconds,
      };
      this.#steps.set(name, step);
    }
    step.recorder.recordSent(0, now);
    return step;
  }

  /**
   * `step` took `ms`, its call started `lateMs` after it was due; `errorCode` when it threw. False
   * when it ended at or after the run's end: it stays in flight, `unfinished` with its call.
   */
  ended(step: Step, ms: number, lateMs: number, errorCode: string | undefined): boolean {
    const now = performance.now();
    if (now >= this.#endAt) return false;
    if (errorCode === undefined) step.recorder.recordCompleted(ms + lateMs, ms, now);
    else step.recorder.recordError(errorCode, now);
    return true;
  }

  /** A step still running when its call timed out ends with it, under the call's code. */
  failed(step: Step, code: string, now: number): void {
    step.recorder.recordError(code, now);
  }

  /** A step still running at the end of the run. */
  unfinished(step: Step): void {
    step.recorder.recordUnfinished();
  }

  /** Each name's part of the thread's second `second` (just closed), or undefined without steps. */
  second(second: number): Record<string, NameSecondSummary> | undefined {
    if (this.#steps.size === 0) return undefined;
    const parts: Record<string, NameSecondSummary> = {};
    const closeAt = this.#measureAt + (second + 1) * 1000;
    for (const [name, { recorder, seconds }] of this.#steps) {
      recorder.rollTo(closeAt);
      while (seconds.length > 0 && seconds[0]!.second < second) seconds.shift();
      const part = seconds[0]?.second === second ? seconds.shift()! : undefined;
      if (part !== undefined && part.sent + part.completed + part.errors > 0) {
        parts[name] = { sent: part.sent, completed: part.completed, errors: part.errors, histogram: part.histogram };
      }
    }
    return parts;
  }

  /** Each step's stats, by name; undefined when no call measured a step. */
  finish(endAt: number, durationMs: number, aborted: boolean): Record<string, ShardStats> | undefined {
    if (this.#steps.size === 0) return undefined;
    const steps: Record<string, ShardStats> = {};
    for (const [name, { recorder }] of this.#steps)
      steps[name] = recorder.finish(endAt, durationMs, aborted, undefined);
    return steps;
  }
}
