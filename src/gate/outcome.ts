import type { LoadResult, ThresholdResult } from '../shared/load-result.js';
import { formatThresholdActual, formatThresholdWindows, thresholdLabel } from '../stats/format.js';
import type { HistoryComparison } from './history-compare.js';

/** What a CI gate decided for one test: what `formatJUnit` and `formatSummary` write out. */
export interface GateOutcome {
  /** The test's name (a history's test id): it names the suites and the summary's section. */
  testId: string;
  /** The runs judged: each run's `thresholds` become test cases. */
  results?: ReadonlyArray<Pick<LoadResult, 'thresholds' | 'durationMs'>>;
  /** The comparison with the history: each compared metric becomes a test case. */
  comparison?: HistoryComparison;
  /** The HTML reports to link from the summary (paths or URLs). */
  reports?: Array<{ title: string; href: string }>;
}

/** One check of a gate, as both outputs list it. */
export interface GateCheck {
  /** `thresholds` or `regression`. */
  kind: 'thresholds' | 'regression';
  name: string;
  passed: boolean;
  /** Nothing was judged (a history too short to compare with). */
  skipped?: boolean;
  /** Something the reader must see though the check passed: no baseline was found. */
  warning?: boolean;
  /** `baseline`: the history had nothing to compare with and a baseline was required. */
  failure?: 'baseline';
  /** The numbers, in a line. */
  message: string;
}

/** Whether every threshold of every run passed and no metric regressed. */
export function gatePassed(outcome: GateOutcome): boolean {
  return gateChecks(outcome).every((check) => check.passed);
}

/** The checks of a gate: each threshold of each run (`[run 2]` when there are several), then each compared metric. */
export function gateChecks(outcome: GateOutcome): GateCheck[] {
  const checks: GateCheck[] = [];
  const results = outcome.results ?? [];
  results.forEach((result, index) => {
    for (const threshold of result.thresholds ?? []) {
      const run = results.length > 1 ? ` [run ${index + 1}]` : '';
      checks.push({
        kind: 'thresholds',
        name: `${thresholdLabel(threshold)}${run}`,
        passed: threshold.passed,
        message: thresholdMessage(threshold),
      });
    }
  });
  const comparison = outcome.comparison;
  const missing = comparison?.noBaseline;
  if (missing !== undefined && comparison!.requireBaseline === true) {
    checks.push({
      kind: 'regression',
      name: 'history',
      passed: false,
      failure: 'baseline',
      message: `${missing.code}: ${missing.message}; a baseline is required`,
    });
  } else {
    // No baseline, or a comparison skipped for another reason: a passing check that says why.
    const skipped = missing !== undefined ? `${missing.code}: ${missing.message}` : comparison?.skipped;
    if (skipped !== undefined) {
      checks.push({
        kind: 'regression',
        name: 'history',
        passed: true,
        skipped: true,
        warning: true,
        message: `warning: ${skipped}`,
      });
    }
  }
  for (const [index, earlier] of (comparison?.remeasured ?? []).entries()) {
    const which = index === 0 ? 'the first measurement' : `measurement ${index + 1}`;
    checks.push({
      kind: 'regression',
      name: `measurement ${index + 1}`,
      passed: true,
      message: `${which} regressed (${earlier.regressed.join('; ')}), so the build was measured again; the verdict is the last measurement's`,
    });
  }
  for (const metric of comparison?.metrics ?? []) {
    const against = `${comparison!.runs.candidate} runs against ${comparison!.runs.baseline} runs of ${comparison!.baseline.length} builds`;
    checks.push({
      kind: 'regression',
      name: metric.metric,
      passed: !metric.regressed,
      message: `${metric.message}; ${against}`,
    });
  }
  return checks;
}

function thresholdMessage(threshold: ThresholdResult): string {
  const windows = formatThresholdWindows(threshold);
  return `${thresholdLabel(threshold)}: actual ${formatThresholdActual(threshold.metric, threshold.actual)}${windows === '' ? '' : ` (${windows})`}`;
}
