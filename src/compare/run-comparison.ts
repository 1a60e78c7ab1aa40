import { setTimeout as sleep } from 'node:timers/promises';
import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import { durationOption } from '../shared/validate.js';
import { runLoad } from '../start-load.js';
import type { Duration, LoadOptions } from '../shared/load-options.js';
import type { LoadResult } from '../shared/load-result.js';
import {
  compareResults,
  resolveCompareOptions,
  type CompareResultsOptions,
  type Comparison,
} from './compare-results.js';

/** Which side a run belongs to. */
export type ComparisonSide = 'baseline' | 'candidate';

/** What `runComparison`'s `onProgress` receives after each run. */
export interface ComparisonProgress {
  side: ComparisonSide;
  /** 1-based index of this run among its side's runs. */
  run: number;
  /** 1-based index of this run among all runs. */
  index: number;
  /** All runs of both sides. */
  total: number;
  result: LoadResult;
}

/** Options of `runComparison`. */
export interface RunComparisonOptions extends CompareResultsOptions {
  /** The load test of A, as for `runLoad`. */
  baseline: LoadOptions;
  /** The load test of B, as for `runLoad`. */
  candidate: LoadOptions;
  /** Runs of each side, at least 2 (compare.R's default is 30; 6 to 10 is usual for load tests). */
  runs: number;
  /**
   * The order of runs: `'ABBA'` (default) repeats A B B A, which cancels a drift of the machine that
   * is linear in time; `'ABAB'` alternates.
   */
  alternate?: 'ABAB' | 'ABBA';
  /** A pause before every run but the first, to let the server settle (sockets close, GC). Default 0. */
  pause?: Duration;
  /** A warm-up before each run's measured part, for runs whose options do not set their own `warmup`. */
  warmup?: Duration;
  /** Called after every run. */
  onProgress?: (event: ComparisonProgress) => void;
  /** Aborting ends the run in progress and rejects with the signal's reason: a partial comparison has no answer. */
  signal?: AbortSignal;
}

/** What `runComparison` resolves to. */
export interface ComparisonRuns {
  baseline: LoadResult[];
  candidate: LoadResult[];
  comparison: Comparison;
}

/** The side of each run, in order: ABAB... or ABBA ABBA... (an odd tail of ABBA is A B). */
export function runOrder(runs: number, alternate: 'ABAB' | 'ABBA'): ComparisonSide[] {
  const order: ComparisonSide[] = [];
  for (let pair = 0; pair < runs; pair++) {
    const flipped = alternate === 'ABBA' && pair % 2 === 1;
    order.push(flipped ? 'candidate' : 'baseline', flipped ? 'baseline' : 'candidate');
  }
  return order;
}

/**
 * Runs A and B alternately, the same number of times, and compares them (`compareResults`). The
 * runs are sequential: two load tests at once would measure each other.
 */
export async function runComparison(options: RunComparisonOptions): Promise<ComparisonRuns> {
  const { baseline, candidate, runs, onProgress, signal } = options;
  for (const [name, value] of [
    ['baseline', baseline],
    ['candidate', candidate],
  ] as const) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new SalvoOptionError(`${name} must be the options of a load test (as for runLoad); got ${String(value)}`, {
        option: name,
        value,
      });
    }
  }
  if (!Number.isInteger(runs) || runs < 2) {
    throw new SalvoRangeError(`runs must be an integer of at least 2 (runs of each side); got ${String(runs)}`, {
      option: 'runs',
      value: runs,
    });
  }
  const alternate = options.alternate ?? 'ABBA';
  if (alternate !== 'ABAB' && alternate !== 'ABBA') {
    throw new SalvoOptionError(`alternate must be 'ABAB' or 'ABBA'; got ${JSON.stringify(alternate)}`, {
      option: 'alternate',
      value: alternate,
    });
  }
  const pauseMs = options.pause === undefined ? 0 : durationOption('pause', options.pause, { allowZero: true });
  const warmup =
    options.warmup === undefined ? undefined : durationOption('warmup', options.warmup, { allowZero: true });
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new SalvoOptionError(`onProgress must be a function; got ${typeof onProgress}`, {
      option: 'onProgress',
      value: onProgress,
    });
  }
  const compareOptions: CompareResultsOptions = {
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    ...(options.test !== undefined ? { test: options.test } : {}),
  };
  // Fail on bad metrics before minutes of runs, not after.
  resolveCompareOptions(compareOptions);

  const results: Record<ComparisonSide, LoadResult[]> = { baseline: [], candidate: [] };
  const order = runOrder(runs, alternate);
  for (const [index, side] of order.entries()) {
    signal?.throwIfAborted();
    if (index > 0 && pauseMs > 0) await sleep(pauseMs, undefined, signal ? { signal } : {});
    const load = side === 'baseline' ? baseline : candidate;
    const result = await runLoad({
      ...load,
      ...(warmup !== undefined && load.warmup === undefined ? { warmup } : {}),
      ...(signal !== undefined ? { signal: load.signal ? AbortSignal.any([signal, load.signal]) : signal } : {}),
    });
    signal?.throwIfAborted();
    results[side].push(result);
    onProgress?.({ side, run: results[side].length, index: index + 1, total: order.length, result });
  }
  return { ...results, comparison: compareResults(results.baseline, results.candidate, compareOptions) };
}
