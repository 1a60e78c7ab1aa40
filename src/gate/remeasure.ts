import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import type { LoadResult } from '../shared/load-result.js';
import { compareWithHistory, type CompareWithHistoryOptions, type HistoryComparison } from './history-compare.js';

/** Options of `runGate`: those of `compareWithHistory`, and how often a regression is measured again. */
export interface RunGateOptions extends CompareWithHistoryOptions {
  /**
   * How many times a build whose comparison regressed is measured again before it fails (default 2;
   * 0 never). A host that is busy for the whole of one measurement (another job on the runner) looks
   * like a regression; a real one holds when measured again.
   */
  remeasure?: number;
  /** Called before each measurement after the first, with what regressed: for a log line. */
  onRemeasure?: (attempt: number, comparison: HistoryComparison) => void;
}

/** What `runGate` returns: the last measurement's runs and its comparison. */
export interface GateRun {
  /** The runs of the last measurement: the ones the verdict is about (and the ones to store). */
  results: LoadResult[];
  /** The last comparison; `remeasured` lists what regressed in the measurements before it. */
  comparison: HistoryComparison;
  /** How many times the build was measured (1 + the re-measures taken). */
  measurements: number;
}

const DEFAULT_REMEASURE = 2;

/**
 * A CI gate on a history: `measure()` gives the build's repeated runs (each a `runLoad` result),
 * which are compared with the history's baseline (`compareWithHistory`). When a metric regressed,
 * the build is measured again, up to `remeasure` times, and the last measurement decides: a slowdown
 * that holds fails, one that was the host's passes. Nothing is re-measured when it passed, or when
 * there is no baseline.
 * @throws what `measure` throws; SalvoRangeError for a bad `remeasure`; what `compareWithHistory` throws.
 */
export async function runGate(
  dir: string,
  testId: string,
  measure: () => Promise<LoadResult[]>,
  options: RunGateOptions = {},
): Promise<GateRun> {
  if (typeof measure !== 'function')
    throw new SalvoOptionError(
      `measure must be a function giving the build's runs (an array of runLoad results); got ${typeof measure}`,
      { option: 'measure', value: measure },
    );
  const { remeasure = DEFAULT_REMEASURE, onRemeasure, ...compare } = options;
  if (!Number.isInteger(remeasure) || remeasure < 0)
    throw new SalvoRangeError(`remeasure must be a whole number of measurements, 0 or more; got ${String(remeasure)}`, {
      option: 'remeasure',
      value: remeasure,
    });
  const earlier: Array<{ regressed: string[] }> = [];
  for (let measurement = 1; ; measurement++) {
    const results = await measure();
    const comparison = await compareWithHistory(dir, testId, results, compare);
    const regressed = comparison.metrics.filter((metric) => metric.regressed).map((metric) => metric.message);
    if (regressed.length === 0 || measurement > remeasure) {
      if (earlier.length > 0) comparison.remeasured = earlier;
      return { results, comparison, measurements: measurement };
    }
    earlier.push({ regressed });
    onRemeasure?.(measurement, comparison);
  }
}
