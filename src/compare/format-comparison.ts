import type { Comparison, ComparisonRow, ConfidenceLevel } from './compare-results.js';
import { changeWord } from './change-words.js';

const PERCENT = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const VALUE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
const LEVELS: ReadonlyArray<[ConfidenceLevel, string]> = [
  ['95', '(*)'],
  ['99', '(**)'],
  ['99.9', '(***)'],
];

/** A row's change in words: `26.36 % slower`, `3.10 % better`, `unchanged`. */
function change(row: ComparisonRow): string {
  const word = changeWord(row);
  return word === 'unchanged' ? word : `${PERCENT.format(Math.abs(row.improvement) * 100)} % ${word}`;
}

/**
 * The smallest change (a fraction of the baseline mean) that would be significant at `level` with
 * these runs' spread and count: the half-width of the interval of the difference. Undefined without
 * an interval (fewer than 2 runs with a value) or a baseline of 0.
 */
export function detectableChange(row: ComparisonRow, level: ConfidenceLevel): number | undefined {
  const interval = row.intervals?.[level];
  if (interval === undefined || row.baseline === 0) return undefined;
  return Math.abs(interval[1] - interval[0]) / 2 / Math.abs(row.baseline);
}

/** A change this large (a fraction) that is not significant is worth a word about the runs. */
const NOTABLE_CHANGE = 0.05;

/**
 * Rows that moved by a notable fraction without reaching `level`: too few runs (or too much noise)
 * to tell, with the change these runs could have detected. One line each.
 */
export function tooFewRuns(comparison: Comparison, level: ConfidenceLevel, stars: string): string[] {
  const { baseline, candidate } = comparison.runs;
  return comparison.rows.flatMap((row) => {
    const detectable = detectableChange(row, level);
    if (detectable === undefined || row.confidence.length >= stars.length || Math.abs(row.improvement) < NOTABLE_CHANGE)
      return [];
    return [
      `${row.metric} moved ${change(row)}, but with ${baseline} baseline and ${candidate} candidate runs only a change beyond ±${PERCENT.format(detectable * 100)} % is significant at ${stars}: more runs (-n) narrow that.`,
    ];
  });
}

/**
 * The accuracy at a level, as compare.R prints it: the half-width of the interval of the difference
 * relative to the baseline mean. An improvement smaller than this at `*` is within the noise.
 */
function accuracy(row: ComparisonRow, level: ConfidenceLevel): string {
  const interval = row.intervals?.[level];
  if (interval === undefined || row.baseline === 0) return 'n/a';
  return `±${PERCENT.format((Math.abs(interval[1] - interval[0]) / 2 / Math.abs(row.baseline)) * 100)} %`;
}

/**
 * A table in the spirit of Node's benchmark/compare.R: metric, baseline and candidate means,
 * improvement (positive is better), confidence stars and the accuracy at each level, followed by
 * how to read it and, when several metrics were compared, the false-positive note.
 */
export function formatComparison(comparison: Comparison): string {
  const single = comparison.runs.baseline < 2 || comparison.runs.candidate < 2;
  const header = [
    'metric',
    'baseline',
    'candidate',
    'change',
    'confidence',
    ...LEVELS.map(([, label]) => `accuracy ${label}`),
  ];
  const body = comparison.rows.map((row) => [
    row.metric,
    VALUE.format(row.baseline),
    VALUE.format(row.candidate),
    change(row),
    single ? 'n/a' : row.confidence,
    ...LEVELS.map(([level]) => accuracy(row, level)),
  ]);
  const widths = header.map((_, column) => Math.max(...[header, ...body].map((cells) => cells[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  const lines = [line(header), ...body.map(line), '', ...tooFewRuns(comparison, '95', '*')];
  if (single) {
    lines.push(
      `${comparison.runs.baseline} baseline and ${comparison.runs.candidate} candidate run${comparison.runs.candidate === 1 ? '' : 's'}: ` +
        'one run a side cannot be tested for significance (a run has no spread to test a change against), so each change is shown, not judged. ' +
        'Save several runs of each side (salvo URL --json > runs/1.json, ...) and compare the folders for a verdict.',
      'Change: how the candidate moved from the baseline, slower or faster for times, worse or better otherwise.',
    );
    return lines.join('\n');
  }
  lines.push(
    `${comparison.runs.baseline} baseline and ${comparison.runs.candidate} candidate runs; Welch's t-test on per-run values.`,
    'Change: how the candidate moved from the baseline, slower or faster for times, worse or better otherwise. Stars: * p < 0.05, ** p < 0.01, *** p < 0.001.',
  );
  const compared = comparison.rows.length;
  if (compared > 1) {
    lines.push(
      `Be aware that when doing many comparisons the risk of a false-positive result increases. ` +
        `With ${compared} metrics: about ${VALUE.format(compared * 0.05)} false positives at *, ` +
        `${VALUE.format(compared * 0.01)} at ** and ${VALUE.format(compared * 0.001)} at *** are expected by chance alone ` +
        '(several metrics of one run also move together).',
    );
  }
  return lines.join('\n');
}
