import { compareWithEntries, DEFAULT_MARGINS, type CompareWithHistoryOptions } from '../gate/history-compare.js';
import { baselineEntries, type HistoryEntry } from '../gate/history.js';
import { metricReader } from '../stats/thresholds.js';
import type { LoadResult } from '../shared/load-result.js';
import { COLORS, type ChartSpec } from './chart-spec.js';
import { cards, escapeHtml, number, section, table } from './html.js';
import { chartGrid, renderPage } from './page.js';

/** Options of `renderTrendReport`: how each build was judged, as for `compareWithHistory`. */
export type RenderTrendReportOptions = CompareWithHistoryOptions;

/** One build on the trend: its runs' mean and range per metric, and what the gate said of it then. */
interface TrendPoint {
  entry: HistoryEntry;
  values: Map<string, { mean: number; low: number; high: number } | undefined>;
  /** The metrics it regressed on against the baseline before it; undefined when it was not compared. */
  regressed: string[] | undefined;
}

function summarise(entry: HistoryEntry, metric: string): { mean: number; low: number; high: number } | undefined {
  const reader = metricReader(metric)!;
  const values = entry.runs
    .map((run) => reader.read(run as LoadResult))
    .filter((value): value is number => value !== undefined && Number.isFinite(value));
  if (values.length === 0) return undefined;
  return {
    mean: values.reduce((sum, value) => sum + value, 0) / values.length,
    low: Math.min(...values),
    high: Math.max(...values),
  };
}

/** Each build judged as the gate would have judged it when it came: against the baseline of the entries before it. */
function trendPoints(
  testId: string,
  entries: readonly HistoryEntry[],
  metrics: string[],
  options: RenderTrendReportOptions,
): TrendPoint[] {
  return entries.map((entry, index) => {
    const judged =
      entry.runs.length < 2 ? undefined : compareWithEntries(testId, entries.slice(0, index), entry.runs, options);
    return {
      entry,
      values: new Map(metrics.map((metric) => [metric, summarise(entry, metric)])),
      regressed:
        judged === undefined || judged.skipped !== undefined
          ? undefined
          : judged.metrics.filter((row) => row.regressed).map((row) => row.metric),
    };
  });
}

const chartId = (metric: string) => `chart-trend-${metric.replace(/[^A-Za-z0-9]+/g, '-')}`;

function unitOf(metric: string): string {
  if (metric.startsWith('latency') || metric.endsWith('Ms') || metric === 'server.cpuPerRequest') return ' ms';
  if (metric === 'requests.perSecond') return '/s';
  return '';
}

/**
 * A chart per metric over the builds (x: the build's number, oldest 1): each build's mean over its
 * runs, the lowest and highest run (its interval), the mean of the current baseline drawn over the
 * builds it holds, and a red point where a build regressed against the baseline it was compared with.
 */
function trendChart(metric: string, points: readonly TrendPoint[], baseline: ReadonlySet<string>): ChartSpec {
  const unit = unitOf(metric);
  const column = (read: (value: { mean: number; low: number; high: number }) => number) =>
    points.map((point) => {
      const value = point.values.get(metric);
      return value === undefined ? null : read(value);
    });
  const pool = points.filter((point) => baseline.has(point.entry.id));
  const poolMeans = pool
    .map((point) => point.values.get(metric)?.mean)
    .filter((value): value is number => value !== undefined);
  const baselineMean =
    poolMeans.length === 0 ? null : poolMeans.reduce((sum, value) => sum + value, 0) / poolMeans.length;
  return {
    id: chartId(metric),
    title: metric,
    xKind: 'linear',
    xLabel: 'build',
    x: points.map((_, index) => index + 1),
    yLabel: unit.trim() || metric,
    series: [
      { label: 'mean', color: COLORS.blue, scale: 'y', values: column((value) => value.mean), unit, points: true },
      { label: 'lowest run', color: COLORS.grey, scale: 'y', values: column((value) => value.low), unit, dash: [2, 4] },
      {
        label: 'highest run',
        color: COLORS.grey,
        scale: 'y',
        values: column((value) => value.high),
        unit,
        dash: [2, 4],
      },
      {
        label: 'baseline',
        color: COLORS.green,
        scale: 'y',
        values: points.map((point) => (baseline.has(point.entry.id) ? baselineMean : null)),
        unit,
        dash: [6, 4],
      },
      {
        label: 'regressed',
        color: COLORS.red,
        scale: 'y',
        values: points.map((point) =>
          point.regressed?.includes(metric) ? (point.values.get(metric)?.mean ?? null) : null,
        ),
        unit,
        pointsOnly: true,
      },
    ],
  };
}

function verdictCell(point: TrendPoint, baseline: ReadonlySet<string>): string {
  const words: string[] = [];
  if (point.entry.acceptedAt !== undefined) words.push('<span class="better">accepted</span>');
  if (point.regressed === undefined) words.push('not compared');
  else if (point.regressed.length > 0)
    words.push(`<span class="worse">regressed: ${escapeHtml(point.regressed.join(', '))}</span>`);
  else words.push('passed');
  if (baseline.has(point.entry.id)) words.push('baseline');
  return words.join(' · ');
}

/**
 * An HTML trend report over a history's entries for one test (oldest first, as `readHistory` gives
 * them): per metric a chart of each build's mean and the range of its runs, the current baseline
 * marked, the builds that regressed flagged; and a table of the builds with their labels, values
 * and verdicts. Self-contained, like the run report.
 */
export function renderTrendReport(
  testId: string,
  entries: readonly HistoryEntry[],
  options: RenderTrendReportOptions = {},
): string {
  const metrics = Object.keys(options.margins ?? DEFAULT_MARGINS);
  const points = trendPoints(testId, entries, metrics, options);
  const baseline = new Set(baselineEntries(entries, options.entries ?? 10).map((entry) => entry.id));
  const charts = entries.length === 0 ? [] : metrics.map((metric) => trendChart(metric, points, baseline));
  const regressions = points.filter((point) => (point.regressed?.length ?? 0) > 0).length;
  const rows = points.map((point, index) => [
    String(index + 1),
    escapeHtml(point.entry.addedAt.slice(0, 19).replace('T', ' ')),
    `<code>${escapeHtml(point.entry.commit?.slice(0, 12) ?? '')}</code>`,
    escapeHtml([point.entry.branch, point.entry.label].filter(Boolean).join(' ')),
    String(point.entry.runs.length),
    ...metrics.map((metric) => number(point.values.get(metric)?.mean)),
    verdictCell(point, baseline),
  ]);
  const header =
    `<h1>salvo trend <span class="url">${escapeHtml(testId)}</span><span class="badge ${points.at(-1)?.regressed?.length ? 'failed' : 'passed'}">${points.at(-1)?.regressed?.length ? 'latest build regressed' : 'latest build passed'}</span></h1>` +
    `<p class="meta">${escapeHtml(`${entries.length} builds · ${baseline.size} in the baseline · ${metrics.length} metrics`)}</p>`;
  const body = [
    cards([
      ['builds', String(entries.length)],
      ['baseline', String(baseline.size), 'builds the next one is compared with'],
      ['regressed', String(regressions), 'builds, against the baseline of their day'],
    ]),
    chartGrid(charts),
    section(
      'Builds',
      table(
        [
          'build',
          'added',
          'commit',
          'branch',
          'runs',
          ...metrics.map((metric) => `<code>${escapeHtml(metric)}</code>`),
          'verdict',
        ],
        rows,
        { className: 'numbers', id: 'trend-builds', textColumns: [metrics.length + 5] },
      ),
      'builds',
    ),
  ];
  return renderPage({
    title: `salvo trend: ${testId}`,
    header,
    body: body.join('\n'),
    charts,
    footer: 'salvo trend report',
  });
}
