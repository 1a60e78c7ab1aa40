import { SalvoOptionError } from '../shared/errors.js';
import type { LoadResult } from '../shared/load-result.js';
import {
  ALPHA,
  describeChange,
  parseMargin,
  regressed,
  type AssertNoRegressionOptions,
} from '../compare/assert-no-regression.js';
import { compareResults, type ComparisonRow } from '../compare/compare-results.js';
import { baselineEntries, readHistory, type HistoryEntry, type StoredRun } from './history.js';
import { checkSameMeasurement } from './measured.js';
import { missingHistory, tooShort, type NoBaseline } from './no-baseline.js';

/** One compared metric of a gate: the comparison's row, its allowed margin and the verdict. */
export interface GateMetric extends ComparisonRow {
  /** The worsening allowed, a fraction of the baseline (0.05 for '5%'). */
  margin: number;
  /** Worse by more than `margin`, and significantly at the gate's confidence. */
  regressed: boolean;
  /** The row in one line, as a failure message says it. */
  message: string;
}

/** What a build's runs were compared with: one entry of the history. */
export type BaselineEntry = Pick<HistoryEntry, 'id' | 'addedAt' | 'commit' | 'branch' | 'label'> & { runs: number };

/** What `compareWithHistory` returns. */
export interface HistoryComparison {
  testId: string;
  /** The history entries compared with, oldest first. */
  baseline: BaselineEntry[];
  runs: { baseline: number; candidate: number };
  confidence: NonNullable<AssertNoRegressionOptions['confidence']>;
  metrics: GateMetric[];
  /**
   * Why nothing was compared: no history folder, no such test in it, or fewer than 2 baseline runs.
   * The gate then passes with a warning, or fails with `requireBaseline`.
   */
  noBaseline?: NoBaseline;
  /** `noBaseline.message`, as earlier versions gave it. */
  skipped?: string;
  /** Whether a baseline was required (`requireBaseline`): without one the gate then fails. */
  requireBaseline?: boolean;
  /**
   * The measurements before the last, when a regression was measured again (`runGate`'s
   * `remeasure`): what regressed each time, as messages.
   */
  remeasured?: Array<{ regressed: string[] }>;
  /** False when a metric regressed, or when no baseline was found and one was required. */
  ok: boolean;
}

/** Options of `compareWithHistory`. */
export interface CompareWithHistoryOptions extends AssertNoRegressionOptions {
  /**
   * The metrics compared and the worsening each may show before it counts, as for
   * `assertNoRegression`. Default: `DEFAULT_MARGINS`.
   */
  margins?: Record<string, string | number>;
  /** How many of the latest baseline entries to compare with (default 10). */
  entries?: number;
  /** `'welch'` (default) or `'student'`, as for `compareResults`. */
  test?: 'welch' | 'student';
  /**
   * Fail when there is nothing to compare with (no history folder, no such test, fewer than 2
   * baseline runs) instead of passing with a warning (default false: a first build passes).
   */
  requireBaseline?: boolean;
}

/**
 * What a gate compares when no margins are given: the median and p90 may worsen 5%, the p99 10%
 * (a tail moves more between runs on a shared CI host), requests per second 5%.
 */
export const DEFAULT_MARGINS: Readonly<Record<string, string>> = {
  'requests.perSecond': '5%',
  'latency.p50': '5%',
  'latency.p90': '5%',
  'latency.p99': '10%',
};

const DEFAULT_ENTRIES = 10;

/**
 * Compares a build's repeated runs with the latest baseline entries of a history (see
 * `baselineEntries`): `compareResults`' Welch test over every stored run against the candidate's
 * runs, and a metric regresses as `assertNoRegression` decides: significant at `confidence`
 * (default `**`) and worse than its margin. Both conditions keep a gate quiet on a noisy host: the
 * test needs the change to stand out of the spread of ten builds, the margin to matter.
 * A missing folder, an unknown test id and too short a history each say so (`noBaseline`).
 * @throws SalvoRangeError when `candidate` has fewer than 2 runs; SalvoOptionError for bad margins,
 * and when the baseline measured something else (another target or load shape: see `Measured`).
 */
export async function compareWithHistory(
  dir: string,
  testId: string,
  candidate: readonly LoadResult[],
  options: CompareWithHistoryOptions = {},
): Promise<HistoryComparison> {
  const missing = await missingHistory(dir, testId);
  return compareWithEntries(
    testId,
    missing === undefined ? await readHistory(dir, testId) : [],
    candidate,
    options,
    missing,
  );
}

/** `compareWithHistory` on entries already read (oldest first); `missing` says why there are none. */
export function compareWithEntries(
  testId: string,
  entries: readonly HistoryEntry[],
  candidate: readonly StoredRun[],
  options: CompareWithHistoryOptions = {},
  missing?: NoBaseline,
): HistoryComparison {
  const confidence = options.confidence ?? '**';
  const alpha = ALPHA[confidence];
  if (alpha === undefined)
    throw new SalvoOptionError(`confidence must be '*', '**' or '***'; got ${JSON.stringify(confidence)}`, {
      option: 'confidence',
      value: confidence,
    });
  const count = options.entries ?? DEFAULT_ENTRIES;
  if (!Number.isInteger(count) || count < 1)
    throw new SalvoOptionError(`entries must be a whole number of history entries, at least 1; got ${String(count)}`, {
      option: 'entries',
      value: count,
    });
  const margins = Object.entries(options.margins ?? DEFAULT_MARGINS).map(
    ([metric, margin]) => [metric, parseMargin(metric, margin)] as const,
  );
  if (margins.length === 0)
    throw new SalvoOptionError("margins must name at least one metric, such as { 'latency.p99': '5%' }", {
      option: 'margins',
      value: options.margins,
    });
  const pool = baselineEntries(entries, count);
  const baseline = pool.flatMap((entry) => entry.runs);
  const comparison: HistoryComparison = {
    testId,
    baseline: pool.map(({ id, addedAt, commit, branch, label, runs }) => ({
      id,
      addedAt,
      ...(commit !== undefined ? { commit } : {}),
      ...(branch !== undefined ? { branch } : {}),
      ...(label !== undefined ? { label } : {}),
      runs: runs.length,
    })),
    runs: { baseline: baseline.length, candidate: candidate.length },
    confidence,
    metrics: [],
    ...(options.requireBaseline === true ? { requireBaseline: true } : {}),
    ok: true,
  };
  if (missing !== undefined || baseline.length < 2) {
    // The first builds of a test have nothing to be compared with: a gate that failed them would be
    // switched off. So it passes, but says so, and a job that expects a baseline can require one.
    comparison.noBaseline = missing ?? tooShort(testId, baseline.length);
    comparison.skipped = comparison.noBaseline.message;
    comparison.ok = options.requireBaseline !== true;
    return comparison;
  }
  checkSameMeasurement(testId, pool, candidate);
  // compareResults reads every metric through the thresholds' metric readers, which read any part of
  // a result: a stored run (a result less its timeline) answers every metric a gate compares.
  const { rows } = compareResults(baseline as LoadResult[], candidate as LoadResult[], {
    metrics: margins.map(([metric]) => metric),
    ...(options.test !== undefined ? { test: options.test } : {}),
  });
  comparison.metrics = rows.map((row, index) => {
    const margin = margins[index]![1];
    return { ...row, margin, regressed: regressed(row, margin, alpha), message: describeChange(row, margin) };
  });
  comparison.ok = comparison.metrics.every((metric) => !metric.regressed);
  return comparison;
}
