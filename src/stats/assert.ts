import { AssertionError } from 'node:assert';
import type { LoadResult } from '../shared/load-result.js';
import { formatThresholdActual } from './format.js';

/**
 * Throws `node:assert`'s `AssertionError` when a threshold of `result` failed, listing each failed
 * threshold with its actual value, one per line; returns silently when all passed. A result without
 * thresholds throws too: asserting on nothing would pass every run, which is never what a
 * performance test means.
 */
export function assertThresholds(result: LoadResult): void {
  const thresholds = result.thresholds ?? [];
  if (thresholds.length === 0) {
    throw new AssertionError({
      message: 'assertThresholds: the run had no thresholds; pass `thresholds` to runLoad',
      stackStartFn: assertThresholds,
    });
  }
  const failed = thresholds.filter((t) => !t.passed);
  if (failed.length === 0) return;
  const lines = failed.map(
    (t) => `  ${t.metric} ${t.expression}: ${t.message ?? `actual ${formatThresholdActual(t.metric, t.actual)}`}`,
  );
  throw new AssertionError({
    message: `${failed.length} of ${thresholds.length} thresholds failed:\n${lines.join('\n')}`,
    operator: 'assertThresholds',
    stackStartFn: assertThresholds,
  });
}
