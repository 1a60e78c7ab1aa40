import { AssertionError } from 'node:assert';
import { assertNoRegression, parseMargin, type AssertNoRegressionOptions } from '../compare/assert-no-regression.js';
import type { Comparison } from '../compare/compare-results.js';
import { tooFewRuns } from '../compare/format-comparison.js';

/** What a comparison says about one metric at the verdict's level. */
export type RowVerdict = 'better' | 'worse' | 'same' | 'regressed';

export interface ComparisonVerdict {
  /** The stars a change needs to count: the options' `confidence`, `**` by default. */
  level: '*' | '**' | '***';
  rows: Map<string, RowVerdict>;
  /** A regression beyond its margin (only with margins). */
  failed: boolean;
  badge: string;
  /** The badge's colour: red for a regression or a worse candidate, green for no regression or a better one, grey for no change. */
  tone: 'failed' | 'passed' | 'neutral';
  sentence: string;
}

const ALPHA = { '*': 0.05, '**': 0.01, '***': 0.001 } as const;
/** The interval whose half-width is the change detectable at each level. */
const LEVEL_INTERVAL = { '*': '95', '**': '99', '***': '99.9' } as const;

/**
 * The verdict of a comparison, as `salvo compare --fail` reaches it: with `margins`, whether
 * `assertNoRegression` passes (and which metrics regressed); without, which metrics changed
 * significantly at the level, and which way.
 */
export function comparisonVerdict(
  comparison: Comparison,
  options: AssertNoRegressionOptions & { margins?: Record<string, string | number> },
): ComparisonVerdict {
  const level = options.confidence ?? '**';
  const alpha = ALPHA[level];
  const margins = options.margins ?? {};
  const rows = new Map<string, RowVerdict>();
  for (const row of comparison.rows) {
    const significant = row.pValue < alpha && row.improvement !== 0;
    let verdict: RowVerdict = !significant ? 'same' : row.improvement > 0 ? 'better' : 'worse';
    const margin = margins[row.metric];
    if (verdict === 'worse' && margin !== undefined && row.improvement < -parseMargin(row.metric, margin))
      verdict = 'regressed';
    rows.set(row.metric, verdict);
  }
  const named = (kind: RowVerdict) =>
    comparison.rows.filter((row) => rows.get(row.metric) === kind).map((row) => row.metric);
  const better = named('better');
  const worse = [...named('worse'), ...named('regressed')];
  const undetected = tooFewRuns(comparison, LEVEL_INTERVAL[level], level);
  const changes =
    `${better.length > 0 ? `better: ${better.join(', ')}` : 'nothing significantly better'}; ${worse.length > 0 ? `worse: ${worse.join(', ')}` : 'nothing significantly worse'} (at ${level}).` +
    (undetected.length > 0 ? ` Too few runs to tell: ${undetected.join(' ')}` : '');
  if (Object.keys(margins).length === 0) {
    const tone = worse.length > 0 ? 'failed' : better.length > 0 ? 'passed' : 'neutral';
    return {
      level,
      rows,
      failed: false,
      tone,
      badge:
        worse.length > 0
          ? 'candidate worse'
          : better.length > 0
            ? 'candidate better'
            : undetected.length > 0
              ? 'too few runs to tell'
              : 'no significant change',
      sentence: `Candidate against baseline: ${changes}`,
    };
  }
  try {
    assertNoRegression(comparison, margins, { confidence: level });
    return {
      level,
      rows,
      failed: false,
      tone: 'passed',
      badge: 'no regression',
      sentence: `No metric regressed beyond its margin: ${changes}`,
    };
  } catch (error) {
    if (!(error instanceof AssertionError)) throw error;
    return { level, rows, failed: true, tone: 'failed', badge: 'regression', sentence: error.message };
  }
}
