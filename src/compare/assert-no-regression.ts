import { AssertionError } from 'node:assert';
import { optionKey, SalvoOptionError } from '../shared/errors.js';
import type { Comparison, ComparisonRow, Confidence } from './compare-results.js';
import { describeMove, worseWord } from './change-words.js';

/** The largest p-value that still counts at each level of stars. */
export const ALPHA: Record<Exclude<Confidence, ''>, number> = { '*': 0.05, '**': 0.01, '***': 0.001 };

/** Options of `assertNoRegression`. */
export interface AssertNoRegressionOptions {
  /** How sure a change must be to count: `'*'`, `'**'` (default) or `'***'`. */
  confidence?: Exclude<Confidence, ''>;
}

/**
 * A mean as the message shows it, without float noise: 4 significant digits (0.5840000000000001 is
 * 0.584, 26.58566666666667 is 26.59), one decimal from 1,000 up (12345.67 req/s is 12345.7).
 */
function value(mean: number): string {
  if (!Number.isFinite(mean)) return String(mean);
  return Math.abs(mean) >= 1000 ? mean.toFixed(1) : String(Number(mean.toPrecision(4)));
}

/** Whether a metric got worse by more than `allowed` (a fraction of the baseline), and significantly at `alpha`. */
export function regressed(row: ComparisonRow, allowed: number, alpha: number): boolean {
  return row.pValue < alpha && row.improvement < -allowed;
}

/** A compared metric in one line: `latency.p99: 10.20% slower (20.1 -> 22.15 ms), p = 1.2e-5 ***, allowed 5.00% slower`. */
export function describeChange(row: ComparisonRow, allowed: number): string {
  const tested =
    row.samples.baseline < 2 || row.samples.candidate < 2
      ? 'not tested (one run a side)'
      : `p = ${row.pValue.toPrecision(3)} ${row.confidence}`.trimEnd();
  return `${row.metric}: ${describeMove(row, value)}, ${tested}, allowed ${(allowed * 100).toFixed(2)}% ${worseWord(row.metric)}`;
}

/** `'5%'`, `'0.5 %'` or a fraction (0.05) to a fraction; a SalvoOptionError naming `metric` otherwise. */
export function parseMargin(metric: string, margin: unknown): number {
  const text = typeof margin === 'string' ? margin.trim() : undefined;
  const match = text === undefined ? undefined : /^(\d+(?:\.\d+)?)\s*%$/.exec(text);
  const fraction = typeof margin === 'number' ? margin : match ? Number(match[1]) / 100 : Number.NaN;
  if (!Number.isFinite(fraction) || fraction < 0) {
    throw new SalvoOptionError(
      `${optionKey('margins', metric)} must be a percentage such as '5%' or a fraction such as 0.05; got ${JSON.stringify(margin)}`,
      { option: optionKey('margins', metric), value: margin },
    );
  }
  return fraction;
}

/**
 * Throws node:assert's `AssertionError` when a metric got worse by more than its allowed margin and
 * the change is significant at the chosen level (default `**`): what a jest, mocha or node:test perf
 * test calls after `runComparison`. A change within the margin, or one the runs cannot tell from
 * noise, passes.
 * @param margins allowed worsening per metric: `{ 'latency.p99': '5%', 'requests.perSecond': '3%' }`.
 */
export function assertNoRegression(
  comparison: Comparison,
  margins: Record<string, string | number>,
  options: AssertNoRegressionOptions = {},
): void {
  const level = options.confidence ?? '**';
  const alpha = ALPHA[level];
  if (alpha === undefined)
    throw new SalvoOptionError(`confidence must be '*', '**' or '***'; got ${JSON.stringify(level)}`, {
      option: 'confidence',
      value: level,
    });
  const entries = Object.entries(margins ?? {});
  if (entries.length === 0)
    throw new SalvoOptionError("margins must name at least one metric, such as { 'latency.p99': '5%' }", {
      option: 'margins',
      value: margins,
    });
  const regressions: string[] = [];
  for (const [metric, margin] of entries) {
    const allowed = parseMargin(metric, margin);
    const row = comparison.rows.find((candidate) => candidate.metric === metric);
    if (row === undefined) {
      throw new SalvoOptionError(
        `margins names ${JSON.stringify(metric)}, which the comparison did not compare (it has ${comparison.rows.map((r) => r.metric).join(', ')}); add it to metrics`,
        { option: optionKey('margins', metric), value: margin, mentions: ['metrics'] },
      );
    }
    if (regressed(row, allowed, alpha)) regressions.push(`  ${describeChange(row, allowed)}`);
  }
  if (regressions.length === 0) return;
  throw new AssertionError({
    message: `${regressions.length} metric${regressions.length === 1 ? '' : 's'} regressed (significant at ${level}, worse than allowed):\n${regressions.join('\n')}`,
    operator: 'assertNoRegression',
    stackStartFn: assertNoRegression,
  });
}
