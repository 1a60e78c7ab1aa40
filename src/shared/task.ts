/**
 * What a task run (`task`) hands the user's function on each call. One context belongs to one call
 * slot: it is reused from call to call while they settle in time, and a call that times out keeps its
 * own (aborted) context while the slot goes on with a new one.
 */
export interface TaskContext<State = unknown> {
  /** What the module's `setup` returned in this thread; undefined without `setup`. */
  readonly state: State;
  /** This slot's calls before this one (0 for its first), warm-up included. */
  readonly iteration: number;
  /** The call slot within this thread, from 0: one of `concurrency` (`connections`) in flight. */
  readonly slot: number;
  /**
   * Aborted when the call passes `timeout` (reason: a `TimeoutError` DOMException) and when the run
   * ends (an `AbortError`): pass it to the client (`fetch`, `AbortSignal.any`, a gRPC deadline).
   */
  readonly signal: AbortSignal;
  /**
   * Times `fn` as the named sub-step `name` (its latency from the call's view) and returns what it
   * returns; what it throws is rethrown, and the step still counts.
   */
  measure<T>(name: string, fn: () => T | PromiseLike<T>): Promise<T>;
  /** Ends the named sub-step `name` now: its time runs from the previous mark (or the call's start). */
  mark(name: string): void;
  /** Counts a check by name into `result.checks` (as `expect`'s checks are); returns `passed`. */
  check(name: string, passed: boolean, message?: string): boolean;
}

/** A task: one unit of work, called again and again on salvo's schedule. Its rejection is an error. */
export type TaskFunction<State = unknown> = (context: TaskContext<State>) => unknown;

/** What a task module's `setup` receives, once per thread before the clock starts. */
export interface TaskSetupContext {
  /** Call slots in this thread (its share of `concurrency`). */
  readonly concurrency: number;
  /** Aborted when the run is aborted during setup. */
  readonly signal: AbortSignal;
}

/** A task and the module functions around it, as one thread runs them. */
export interface TaskFunctions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a task typed with its own state must be assignable here
  task: TaskFunction<any>;
  /** Once per thread before the clock starts; what it returns (awaited) is `ctx.state`. */
  setup?: ((context: TaskSetupContext) => unknown) | undefined;
  /** Once per thread after the run, also an aborted one, with the state `setup` returned. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a task typed with its own state must be assignable here
  teardown?: ((state: any) => unknown) | undefined;
}

/** A task run in a plan: plain data. */
export interface PlannedTask {
  /** The module's `file:` or `data:` URL, which each worker thread imports; undefined for a function (in-process only). */
  module: string | undefined;
  /** The module's export that is the task: undefined for `default` (or `task`). */
  exportName: string | undefined;
  /** `setupTimeout`: how long each thread's `setup` may take, ms. */
  setupTimeoutMs: number;
  /** `backoff`: a failed call is followed by a wait before its slot's next (5 ms doubling to 1 s). */
  backoff: boolean;
}

/** Where a task's functions are: a module and its export, or (both undefined) a function given in-process. */
export type TaskSource = Pick<PlannedTask, 'module' | 'exportName'>;
