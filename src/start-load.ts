import type { LoadOptions } from './shared/load-options.js';
import type { LoadResult } from './shared/load-result.js';
import type { RunControl } from './shared/run-control.js';
import { runSteered } from './run.js';
import { RunSteering } from './workers/run-steering.js';

/** A running load test (`startLoad`): its result to come, and the controls that steer it meanwhile. */
export interface LoadHandle extends RunControl {
  /** What `runLoad` resolves with for the same options, with `steps` when the run was steered. */
  readonly result: Promise<LoadResult>;
  /**
   * The new total rate, req/s over every worker (and segment), from the next slot on: no catch-up
   * of slots at the new rate, latencies counted from the new schedule. A rate run only.
   */
  setRate(rate: number): void;
  /** The connections to keep open (a rate run's cap), split over the workers; at most the run's `connections` (or `maxConnections`). */
  setConnections(connections: number): void;
  /** Ends the run now, everything sent counted once (`aborted: true`); resolves once `result` has. */
  stop(): Promise<void>;
}

/**
 * Starts a load test and returns its handle at once: `result` resolves as `runLoad`'s would, and
 * `setRate`, `setConnections` and `stop` change the run while it goes, each change recorded in
 * `result.steps`. A change the run cannot take throws an Error naming the method.
 */
export function startLoad(options: LoadOptions): LoadHandle {
  const steering = new RunSteering(options);
  const result = runSteered(options, steering).finally(() => steering.end());
  return {
    result,
    setRate: (rate) => steering.setRate(rate),
    setConnections: (connections) => steering.setConnections(connections),
    stop: () => {
      steering.stop();
      return result.then(
        () => undefined,
        () => undefined,
      );
    },
  };
}

/**
 * Runs a load test and resolves with its result. Bad options reject with a SalvoOptionError or
 * SalvoRangeError naming the option; network trouble never rejects: it is counted in `errors`.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return startLoad(options).result;
}
