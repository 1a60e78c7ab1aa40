import type { AssertNoRegressionOptions } from '../compare/assert-no-regression.js';
import {
  compareResults,
  type Comparison,
  type ComparisonRow,
  type ConfidenceLevel,
} from '../compare/compare-results.js';
import type { ComparisonRuns } from '../compare/run-comparison.js';
import { addEncodedInto, createHistogram, encodeHistogram } from '../stats/histogram.js';
import type { LoadResult } from '../shared/load-result.js';
import { COLORS } from './chart-spec.js';
import { spectraChart } from './charts.js';
import { cards, escapeHtml, number, section, table } from './html.js';
import { chartGrid, renderPage } from './page.js';
import { comparisonVerdict, type RowVerdict } from './verdict.js';

/** Options of `renderComparisonReport`: the margins a regression is judged by, as `assertNoRegression` takes them. */
export interface RenderComparisonReportOptions extends AssertNoRegressionOptions {
  /** Allowed worsening per metric, `{ 'latency.p99': '5%' }`: the verdict says whether any was passed. */
  margins?: Record<string, string | number>;
}

const LEVELS: readonly ConfidenceLevel[] = ['95', '99', '99.9'];
const SIGNED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2, signDisplay: 'exceptZero' });

/** All runs of a side in one histogram: the side's latency spectrum. */
function sideHistogram(runs: readonly LoadResult[]): string | undefined {
  const encoded = runs.map((run) => run.histogram).filter((h): h is string => typeof h === 'string' && h !== '');
  if (encoded.length === 0) return undefined;
  const histogram = createHistogram();
  try {
    for (const h of encoded) addEncodedInto(histogram, h);
    return encodeHistogram(histogram);
  } catch {
    return undefined;
  } finally {
    histogram.destroy();
  }
}

function signedPercent(fraction: number): string {
  return Number.isFinite(fraction) ? `${SIGNED.format(fraction * 100)}%` : 'n/a';
}

/** The interval of candidate - baseline at one level, in the metric's unit; `data-low`/`data-high` carry the exact values. */
function intervalCell(row: ComparisonRow, level: ConfidenceLevel): string {
  const [low, high] = row.intervals![level];
  return `<span class="interval" data-level="${level}" data-low="${low}" data-high="${high}">${level}%: ${SIGNED.format(low)} to ${SIGNED.format(high)}</span>`;
}

/**
 * The three intervals drawn around a zero line, nested (95% darkest), scaled to the row's widest
 * bound: whether they cross zero is what it shows. Green when the 95% one is all on the better
 * side, red when all on the worse side.
 */
function intervalBars(row: ComparisonRow): string {
  const intervals = row.intervals;
  if (intervals === null || intervals === undefined) return '';
  const scale = Math.max(...LEVELS.flatMap((level) => intervals[level].map(Math.abs)));
  if (scale === 0) return '<span class="ci" aria-hidden="true"><span class="ci-zero"></span></span>';
  const [low, high] = intervals['95'];
  const better = row.higherIsBetter ? low > 0 : high < 0;
  const worse = row.higherIsBetter ? high < 0 : low > 0;
  const color = better ? COLORS.green : worse ? COLORS.red : COLORS.grey;
  const position = (value: number) => 50 + (value / scale) * 48;
  const bars = [...LEVELS].reverse().map((level, index) => {
    const [from, to] = intervals[level].map(position) as [number, number];
    return `<span class="ci-bar" style="left:${from.toFixed(2)}%;width:${Math.max(0.5, to - from).toFixed(2)}%;background:${color};opacity:${[0.25, 0.5, 1][index]}"></span>`;
  });
  return `<span class="ci" aria-hidden="true">${bars.join('')}<span class="ci-zero"></span></span>`;
}

const VERDICT_WORDS: Record<RowVerdict, string> = {
  better: 'better',
  worse: 'worse',
  same: 'no significant change',
  regressed: 'regressed',
};

function rowsTable(comparison: Comparison, verdicts: ReadonlyMap<string, RowVerdict>): string {
  const head = [
    'metric',
    'baseline',
    'candidate',
    'improvement',
    'p-value',
    'stars',
    'intervals of the difference',
    'verdict',
  ];
  const rows = comparison.rows.map((row) => {
    const verdict = verdicts.get(row.metric) ?? 'same';
    return [
      `<code>${escapeHtml(row.metric)}</code>`,
      number(row.baseline),
      number(row.candidate),
      signedPercent(row.improvement),
      row.pValue < 0.0001 ? '< 0.0001' : row.pValue.toFixed(4),
      `<span aria-label="${row.confidence === '' ? 'not significant' : `significant at ${row.confidence}`}">${row.confidence || '–'}</span>`,
      row.intervals === null || row.intervals === undefined
        ? 'n/a'
        : intervalBars(row) + LEVELS.map((level) => intervalCell(row, level)).join(''),
      `<span class="${verdict === 'better' ? 'better' : verdict === 'same' ? '' : 'worse'}">${VERDICT_WORDS[verdict]}</span>`,
    ];
  });
  const note = `<p class="meta">Improvement is positive when the candidate is better. The intervals are of the difference of means, candidate − baseline, in the metric's unit, at 95, 99 and 99.9% confidence (Welch's t-test on per-run values); the bars draw them around zero, nested, the 95% one darkest: an interval that does not cross zero is a change. Stars: * p &lt; 0.05, ** p &lt; 0.01, *** p &lt; 0.001.</p>`;
  return section(
    'Metrics',
    note +
      table(head, rows, {
        className: 'numbers comparison',
        id: 'comparison-rows',
        caption: `${comparison.runs.baseline} baseline and ${comparison.runs.candidate} candidate runs`,
      }),
    'metrics',
  );
}

/** What a report can be given: runs with their comparison, runs alone (compared here), or a bare comparison. */
export type ComparisonReportInput =
  | ComparisonRuns
  | Comparison
  | { baseline: LoadResult | LoadResult[]; candidate: LoadResult | LoadResult[]; comparison?: Comparison };

function runsOf(input: ComparisonReportInput): {
  comparison: Comparison;
  baseline: LoadResult[];
  candidate: LoadResult[];
} {
  if ('rows' in input) return { comparison: input, baseline: [], candidate: [] };
  const baseline = input.baseline === undefined ? [] : ([] as LoadResult[]).concat(input.baseline);
  const candidate = input.candidate === undefined ? [] : ([] as LoadResult[]).concat(input.candidate);
  // Runs without their comparison (saved results): compared here, with compareResults' defaults.
  return { comparison: input.comparison ?? compareResults(baseline, candidate), baseline, candidate };
}

/**
 * An HTML report of a comparison (`runComparison`'s result or `salvo compare --json`'s; a bare
 * `compareResults` comparison has no runs, so no spectra): the latency spectra of both sides
 * overlaid (each side's runs added into one histogram), each metric's means, improvement, p-value,
 * stars and intervals at 95/99/99.9% with a bar of the 99% one, and the verdict: with `margins`,
 * whether `assertNoRegression` would pass; without, what got significantly better or worse.
 */
export function renderComparisonReport(
  input: ComparisonReportInput,
  options: RenderComparisonReportOptions = {},
): string {
  const { comparison, baseline, candidate } = runsOf(input);
  const verdict = comparisonVerdict(comparison, options);
  const spectra = spectraChart('chart-comparison-spectrum', 'Latency by percentile, both sides', [
    { label: 'baseline', color: COLORS.blue, histogram: sideHistogram(baseline) },
    { label: 'candidate', color: COLORS.orange, histogram: sideHistogram(candidate) },
  ]);
  const charts = spectra === undefined ? [] : [spectra];
  const urls = [...new Set([...baseline, ...candidate].map((run) => run.url))];
  const header =
    `<h1>salvo compare${urls.length === 0 ? '' : ` <span class="url">${escapeHtml(urls.join(' vs '))}</span>`}<span class="badge ${verdict.tone}">${escapeHtml(verdict.badge)}</span></h1>` +
    `<p class="meta">${escapeHtml(`${comparison.runs.baseline} baseline and ${comparison.runs.candidate} candidate runs · ${comparison.rows.length} metrics`)}</p>`;
  const counts = (kind: RowVerdict) => [...verdict.rows.values()].filter((v) => v === kind).length;
  const body = [
    cards([
      ['verdict', verdict.badge],
      ['better', String(counts('better')), `significant at ${verdict.level}`],
      ['worse', String(counts('worse') + counts('regressed')), `significant at ${verdict.level}`],
      ['no significant change', String(counts('same'))],
    ]),
    section('Verdict', `<p id="verdict">${escapeHtml(verdict.sentence)}</p>`, 'verdict-section'),
    chartGrid(charts),
    spectra === undefined
      ? '<p class="meta" id="no-spectra">No latency histograms in this comparison (a bare compareResults result has no runs): no spectra.</p>'
      : '',
    rowsTable(comparison, verdict.rows),
  ];
  return renderPage({
    title: 'salvo compare',
    header,
    body: body.join('\n'),
    charts,
    footer: 'salvo comparison report',
  });
}
