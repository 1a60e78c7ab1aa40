import { performance } from 'node:perf_hooks';
import { peakConnections, type Plan } from '../shared/plan.js';
import type { TaskFunctions } from '../shared/task.js';
import type { Recorder, ShardStats } from '../stats/recorder.js';
import { backoffMs, RunLifecycle, timeoutTickMs, type Exchanges, type RunHooks } from '../runner/lifecycle.js';
import type { SteeringTargets } from '../runner/steering.js';
import type { Measuring } from '../runner/measuring.js';
import { ClosedLoop } from '../runner/closed-loop.js';
import { OpenLoop } from '../runner/open-loop.js';
import { planSlotSchedule } from '../runner/arrival-schedule.js';
import { TaskCall, type CallOwner } from './call.js';
import { TaskChecks } from './checks.js';
import { StepRecorder, type Step } from './steps.js';

/** `errors.byCode` of a call past `timeout`, as for HTTP requests. */
export const TIMEOUT = 'TIMEOUT';
/** `errors.byCode` of a call that failed with something that has neither a code nor a name. */
export const TASK_FAILED = 'TASK_FAILED';
/**
 * A closed loop of calls that settle at once (no I/O) runs on microtasks alone, which would keep
 * timers (the end of the run, timeouts, the seconds) from firing: after this long without a turn
 * of the event loop, slots wait for one (setImmediate) before their next call.
 */
const YIELD_AFTER_MS = 2;

/** The thread's task functions, and the state its `setup` returned. */
export interface TaskRunHooks extends RunHooks {
  task?: TaskFunctions | undefined;
  /** What `setup` returned (`ctx.state`); `runTask` runs setup and sets it. */
  state?: unknown;
}

/** One call slot: `concurrency` of them in a thread, each with one call in flight at most. */
class Slot {
  busy = false;
  measured = false;
  intendedAt = 0;
  startedAt = 0;
  /** When it last became free to take an open-loop slot. */
  freedAt = 0;
  iterations = 0;
  /** Calls failed in a row: the next waits `backoffMs` (none after a success). */
  failures = 0;
  /** Waiting out its backoff: neither free nor busy. */
  backoff: NodeJS.Timeout | undefined;
  /** A call slot is its own connection, for the closed loop's ramps. */
  readonly connection: number;
  constructor(
    readonly index: number,
    public call: TaskCall,
  ) {
    this.connection = index;
  }
}

/**
 * The code a failed call counts under: the error's `code` (a string, or a number such as gRPC's
 * status), else its name when it is more than `Error` (`TypeError`), else `TASK_FAILED`.
 */
export function taskErrorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if ((typeof code === 'string' && code !== '') || (typeof code === 'number' && Number.isFinite(code)))
      return String(code);
    if (typeof name === 'string' && name !== '' && name !== 'Error') return name;
  }
  return TASK_FAILED;
}

/**
 * The exchanges of a task run in one thread: a call of the user's function is the exchange, with no
 * transport and no codec. Closed loop: each slot calls again when its call settles; open loop
 * (`rate`, rate `stages`): calls fall due on the same schedule and pacer as HTTP's, taken by whichever
 * slot is free, timed from when they were due. A call past `timeout` counts as `TIMEOUT` and its
 * signal aborts; its slot goes on at once with a new context, and whatever the call does later is
 * ignored. At the end, calls in flight have their signals aborted and are not waited for: they are
 * `requests.unfinished`, as HTTP's requests in flight are.
 */
export class TaskRunner implements Exchanges, CallOwner {
  readonly tickMs: number;
  readonly gauges: Exchanges['gauges'];
  readonly #plan: Plan;
  readonly #run: RunLifecycle;
  readonly #task: TaskFunctions['task'];
  readonly #state: unknown;
  readonly #slots: Slot[];
  /** `rate`: calls due on the schedule, the open loop HTTP runs on too; undefined for a closed loop. */
  readonly #open: OpenLoop<Slot> | undefined;
  /** Counts toward `amount`, in flight, ramps: as the HTTP engine's. */
  readonly #loop: ClosedLoop<Slot>;
  readonly #checks = new TaskChecks();
  readonly #steps: StepRecorder;
  /** `plan.task.backoff`: failed calls are followed by a wait, as HTTP lanes' are. */
  readonly #backoff: boolean;
  #recorder!: Recorder;
  /** By `slot.measured ? 1 : 0`: the warm-up's recorder (`requests.warmup`) at 0, the run's at 1. */
  #recorders: Recorder[] = [];
  #measureAt = 0;
  #endAt = Infinity;
  /** Measured calls given up on (timed out) that have not settled yet. */
  #unsettled = 0;
  /** `#unsettled` as the run ended. */
  #unsettledAtEnd = 0;
  /** When the event loop last turned (see YIELD_AFTER_MS), and the slots waiting for the next turn. */
  #turnAt = 0;
  readonly #waiting: Slot[] = [];
  #turnScheduled = false;

  constructor(plan: Plan, hooks: TaskRunHooks) {
    if (hooks.task === undefined) throw new Error('a task plan runs with its task functions (hooks.task)');
    this.#plan = plan;
    this.#task = hooks.task.task;
    this.#state = hooks.state;
    this.#backoff = plan.task?.backoff !== false;
    this.#steps = new StepRecorder(hooks.onSecond !== undefined);
    this.#slots = Array.from(
      { length: peakConnections(plan) },
      (_, index) => new Slot(index, new TaskCall(index, this.#state, this)),
    );
    this.#loop = new ClosedLoop(plan, {
      parked: () => {},
      resume: (slot, now) => this.#next(slot, now),
      stop: () => this.#run.stop(false),
    });
    const schedule = planSlotSchedule(plan);
    if (schedule !== undefined) {
      this.#open = new OpenLoop(
        schedule,
        this.#slots.length,
        this.#loop,
        { send: (slot, intendedAt, now) => this.#call(slot, intendedAt, now), stop: () => this.#run.stop(false) },
        true,
      );
    }
    this.tickMs = timeoutTickMs(plan.timeoutMs);
    this.gauges = {
      connections: () => this.#loop.inFlight,
      targetRate: (second) => this.#open?.slotsInSecond(second),
    };
    // Each second's part of every step goes out with the second, for `onProgress` and `outputs`.
    const onSecond = hooks.onSecond;
    const withSteps: RunHooks['onSecond'] =
      onSecond &&
      ((summary, totals) => {
        const byName = this.#steps.second(summary.second);
        onSecond(byName === undefined ? summary : { ...summary, byName }, totals);
      });
    this.#run = new RunLifecycle(plan, { ...hooks, onSecond: withSteps }, this);
  }

  run(): Promise<ShardStats> {
    return this.#run.run();
  }

  async open(): Promise<void> {
    await this.#open?.ready();
  }

  begin(measuring: Measuring): void {
    this.#measureAt = measuring.measureAt;
    this.#endAt = measuring.endAt;
    this.#recorder = measuring.recorder;
    this.#recorders = [measuring.warmupRecorder ?? measuring.recorder, measuring.recorder];
    this.#open?.begin(measuring);
    this.#steps.start(measuring.measureAt, measuring.endAt);
  }

  start(now: number): void {
    this.#turnAt = now;
    if (this.#open) {
      this.#open.start(this.#slots.slice(0, this.#loop.active));
      return;
    }
    for (const slot of this.#slots) this.#next(slot, now);
  }

  checks(): ReturnType<NonNullable<Exchanges['checks']>> {
    return this.#checks.stats();
  }

  steering(): SteeringTargets {
    const open = this.#open;
    return {
      rate: open && ((rate, at) => open.setRate(rate, at)),
      connections: (connections, now) => (open ?? this.#loop).setConnections(connections, now),
    };
  }

  /** Closed loop: call again on `slot` now, after a turn of the event loop, or not at all. */
  #next(slot: Slot, now: number): void {
    if (this.#open) return this.#open.free(slot, now);
    if (!this.#loop.admits(slot)) return;
    if (now - this.#turnAt >= YIELD_AFTER_MS) {
      this.#waiting.push(slot);
      if (!this.#turnScheduled) {
        this.#turnScheduled = true;
        setImmediate(this.#onTurn);
      }
      return;
    }
    this.#call(slot, now, now);
  }

  readonly #onTurn = (): void => {
    this.#turnScheduled = false;
    const now = performance.now();
    this.#turnAt = now;
    if (this.#loop.stopped) return;
    if (now >= this.#endAt) {
      this.#run.stop(false);
      return;
    }
    const waiting = this.#waiting.splice(0);
    for (const slot of waiting) this.#next(slot, now);
  };

  #call(slot: Slot, intendedAt: number, now: number): void {
    slot.busy = true;
    slot.intendedAt = intendedAt;
    slot.startedAt = now;
    const measured = (slot.measured = intendedAt >= this.#measureAt);
    this.#loop.sent += measured ? 1 : 0;
    this.#recorders[measured ? 1 : 0]!.recordSent(0, now);
    this.#loop.inFlight++;
    const call = slot.call;
    call.begin(slot.iterations++, measured, now, now - intendedAt);
    let result: unknown;
    try {
      result = this.#task(call);
    } catch (error) {
      // Settled on a later microtask, as a rejection would be: never inside this call (a closed
      // loop of throwing calls would otherwise recurse).
      result = Promise.reject(error);
    }
    if (typeof (result as PromiseLike<unknown> | null)?.then === 'function')
      (result as PromiseLike<unknown>).then(call.onFulfilled, call.onRejected);
    else void Promise.resolve().then(call.onFulfilled);
  }

  settled(call: TaskCall, failed: boolean, error: unknown): void {
    const now = performance.now();
    const slot = this.#slots[call.slot]!;
    if (this.#loop.stopped) return;
    // Settled after the end: still busy, so `halt` counts it in `requests.unfinished`.
    if (now >= this.#endAt) {
      this.#run.stop(false);
      return;
    }
    slot.busy = false;
    this.#loop.inFlight--;
    const recorder = this.#recorders[slot.measured ? 1 : 0]!;
    if (!failed) {
      recorder.recordCompleted(now - slot.intendedAt, now - slot.startedAt, now);
      slot.failures = 0;
      if (this.#open) this.#open.failing = false;
      this.#next(slot, now);
      return;
    }
    const code = taskErrorCode(error);
    recorder.recordError(code, now);
    if (slot.measured) recorder.recordThrown(code, 'task', error);
    this.#failed(slot, now);
  }

  /** After a failed call the slot waits `backoffMs` before its next (unless `backoff: false`), as an HTTP lane does after an error. */
  #failed(slot: Slot, now: number): void {
    slot.failures++;
    if (this.#open) this.#open.failing = true;
    if (!this.#backoff) return this.#next(slot, now);
    slot.backoff = setTimeout(this.#backedOff, backoffMs(slot.failures - 1), slot);
  }

  readonly #backedOff = (slot: Slot): void => {
    slot.backoff = undefined;
    this.#next(slot, performance.now());
  };

  settledLate(call: TaskCall): void {
    if (call.measured) this.#unsettled--;
  }

  stepStarted(name: string, now: number): Step | undefined {
    return this.#loop.stopped ? undefined : this.#steps.started(name, now);
  }

  stepEnded(step: Step, ms: number, lateMs: number, failed: boolean, error: unknown): boolean {
    if (this.#loop.stopped) return false;
    return this.#steps.ended(step, ms, lateMs, failed ? taskErrorCode(error) : undefined);
  }

  check(name: string, passed: boolean, message: string | undefined): void {
    if (!this.#loop.stopped) this.#checks.record(name, passed, message);
  }

  tick(now: number): void {
    this.#turnAt = now;
    const { timeoutMs } = this.#plan;
    for (const slot of this.#slots) {
      if (slot.busy && now - slot.startedAt >= timeoutMs) this.#timeOut(slot, now);
    }
    this.#loop.ramp(now, this.#measureAt);
  }

  /** Gives up on the slot's call: `TIMEOUT`, its signal aborted, the slot on with a new context. */
  #timeOut(slot: Slot, now: number): void {
    const call = slot.call;
    slot.call = new TaskCall(slot.index, this.#state, this);
    slot.busy = false;
    this.#loop.inFlight--;
    if (call.measured) this.#unsettled++;
    call.abandon(
      new DOMException(`the task call took longer than timeout (${this.#plan.timeoutMs} ms)`, 'TimeoutError'),
    );
    this.#recorders[slot.measured ? 1 : 0]!.recordError(TIMEOUT, now);
    // Its steps still running end with it.
    for (const step of call.openSteps) this.#steps.failed(step, TIMEOUT, now);
    this.#failed(slot, now);
  }

  halt(now: number, endAt: number): void {
    if (this.#open) this.#recorder.missed = this.#open.halt(now, endAt);
    this.#loop.stopped = true;
    this.#unsettledAtEnd = this.#unsettled;
    const ended = new DOMException('the load test ended', 'AbortError');
    for (const slot of this.#slots) {
      clearTimeout(slot.backoff);
      if (!slot.busy) continue;
      if (slot.measured) {
        this.#recorder.recordUnfinished();
        for (const step of slot.call.openSteps) this.#steps.unfinished(step);
      }
      slot.call.abandon(ended);
    }
  }

  async close(stats: ShardStats, endAt: number): Promise<void> {
    // Merged over the threads into `TASK_IGNORED_SIGNAL` (stats/merge.ts), which quotes the run's numbers.
    if (this.#unsettledAtEnd > 0) stats.unsettled = this.#unsettledAtEnd;
    // The named steps are the run's names: `result.byName`, merged as HTTP's request names are.
    const steps = this.#steps.finish(endAt, stats.durationMs, stats.aborted);
    if (steps !== undefined) stats.byName = steps;
  }
}
