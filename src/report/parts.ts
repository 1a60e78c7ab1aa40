import type { LoadResult } from '../shared/load-result.js';
import { COLORS, type ChartSeries, type ChartSpec } from './chart-spec.js';
import { partialLastSecond, timedLatency, timelineX } from './charts.js';
import { escapeHtml, ms, number, section, table } from './html.js';

/** A line colour per name or scenario, in order; past the palette they repeat with a dash. */
const PALETTE = [COLORS.blue, COLORS.orange, COLORS.green, COLORS.purple, COLORS.teal, COLORS.red, COLORS.grey];

function lineStyle(index: number): Pick<ChartSeries, 'color' | 'dash'> {
  const color = PALETTE[index % PALETTE.length]!;
  return index < PALETTE.length ? { color } : { color, dash: [4, 4] };
}

interface Part {
  rate?: number | undefined;
  requests: { sent: number; completed: number; perSecond: number };
  latency: { p50: number; p99: number };
  errors: { total: number };
  statusCodes: Record<string, number>;
}

function statuses(codes: Record<string, number>): string {
  const entries = Object.entries(codes);
  return entries.length === 0
    ? '–'
    : escapeHtml(entries.map(([code, count]) => `${code}: ${number(count)}`).join(', '));
}

/** A row per part; a scenario's target rate last, when some scenario has one. */
function partsTable(heading: string, parts: Record<string, Part>, id: string): string {
  const targets = Object.values(parts).some((part) => part.rate !== undefined);
  const rows = Object.entries(parts).map(([key, part]) => [
    escapeHtml(key),
    number(part.requests.perSecond),
    ms(part.latency.p50),
    ms(part.latency.p99),
    number(part.requests.sent),
    number(part.requests.completed),
    number(part.errors.total),
    statuses(part.statusCodes),
    ...(targets ? [part.rate === undefined ? '–' : number(part.rate)] : []),
  ]);
  const header = [
    heading,
    'requests/s',
    'p50 (ms)',
    'p99 (ms)',
    'sent',
    'completed',
    'errors',
    'status codes',
    ...(targets ? ['target/s'] : []),
  ];
  return table(header, rows, { id, textColumns: [7] });
}

/** Whether the result has several names: one name is the run itself, with nothing more to show. */
function hasNames(result: LoadResult): result is LoadResult & { byName: NonNullable<LoadResult['byName']> } {
  return result.byName !== undefined && Object.keys(result.byName).length > 1;
}

/** The scenarios side by side, then the names: a table each, when the result has them. */
export function partsSections(result: LoadResult): string {
  const sections: string[] = [];
  if (result.byScenario !== undefined)
    sections.push(section('Scenarios', partsTable('scenario', result.byScenario, 'scenarios-table'), 'scenarios'));
  if (hasNames(result))
    sections.push(section('Requests by name', partsTable('name', result.byName, 'names-table'), 'names'));
  return sections.join('\n');
}

/**
 * Charts over time by part: each name's p99 latency and each scenario's completed requests per second,
 * on the run's seconds (a scenario that started later is placed by its start).
 */
export function partsCharts(result: LoadResult): ChartSpec[] {
  const timeline = result.timeline ?? [];
  if (timeline.length < 2) return [];
  const x = timelineX(result);
  const charts: ChartSpec[] = [];
  if (hasNames(result)) {
    const series = Object.keys(result.byName).map((name, index): ChartSeries => ({
      label: name,
      ...lineStyle(index),
      scale: 'y',
      values: timeline.map((entry) =>
        timedLatency(entry.byName?.[name]?.p99 ?? null, entry.byName?.[name]?.completed ?? 0),
      ),
      unit: ' ms',
    }));
    charts.push({ id: 'chart-names-latency', title: 'p99 latency by name', xKind: 'seconds', x, yLabel: 'ms', series });
  }
  if (result.byScenario !== undefined) {
    const share = partialLastSecond(result) ?? 1;
    const series = Object.entries(result.byScenario).map(([scenario, part], index): ChartSeries => {
      const shift = Math.round((part.startedAt - result.startedAt) / 1000);
      const values = timeline.map((entry, i) => {
        const own = part.timeline[entry.second - shift];
        if (own === undefined) return null;
        return i === timeline.length - 1 ? own.completed / share : own.completed;
      });
      return { label: scenario, ...lineStyle(index), scale: 'y', values, unit: '/s' };
    });
    charts.push({
      id: 'chart-scenarios-throughput',
      title: 'Completed per second by scenario',
      xKind: 'seconds',
      x,
      yLabel: 'requests/s',
      series,
    });
  }
  return charts;
}
