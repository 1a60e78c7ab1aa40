import type { LoadResult, TimelineEntry } from '../shared/load-result.js';
import { percentileSpectrum } from './spectrum.js';

/** One line of a chart. `values` line up with the chart's `x`; `null` leaves a gap. */
export interface ChartSeries {
  label: string;
  color: string;
  /** `'y'` (left axis) or `'y2'` (right axis). */
  scale: 'y' | 'y2';
  values: Array<number | null>;
  /** Unit shown after the value in the legend. */
  unit: string;
  dash?: number[];
}

/** What the report's script draws with uPlot: one chart. */
export interface ChartSpec {
  id: string;
  title: string;
  /** `'seconds'`: x is seconds since the run began (at each second's end); `'percentile'`: x is 1 / (1 - p), log-scaled. */
  xKind: 'seconds' | 'percentile';
  x: number[];
  yLabel: string;
  y2Label?: string;
  series: ChartSeries[];
}

const COLORS = { blue: '#2563eb', orange: '#ea580c', green: '#16a34a', red: '#dc2626', grey: '#6b7280', purple: '#7c3aed' };

/** A timeline field that other parts of salvo may add (the generator's CPU), when every second has it. */
function optionalSeries(timeline: TimelineEntry[], field: string): number[] | undefined {
  const values = timeline.map((entry) => (entry as unknown as Record<string, unknown>)[field]);
  return values.length > 0 && values.every((v) => typeof v === 'number') ? (values as number[]) : undefined;
}

function timelineCharts(result: LoadResult): ChartSpec[] {
  const timeline = result.timeline ?? [];
  // One point is no line: a run shorter than two seconds gets no charts over time.
  if (timeline.length < 2) return [];
  // Each point at the end of its second: a 3 s run reads 1 s, 2 s, 3 s.
  const x = timeline.map((entry) => entry.second + 1);
  const column = (read: (entry: TimelineEntry) => number) => timeline.map(read);
  const throughput: ChartSeries[] = [
    { label: 'completed', color: COLORS.blue, scale: 'y', values: column((e) => e.completed), unit: '/s' },
    { label: 'sent', color: COLORS.grey, scale: 'y', values: column((e) => e.sent), unit: '/s', dash: [4, 4] },
  ];
  if (timeline.some((entry) => entry.targetRate !== undefined)) {
    throughput.push({ label: 'target', color: COLORS.green, scale: 'y', values: timeline.map((e) => e.targetRate ?? null), unit: '/s', dash: [2, 6] });
  }
  const overTime = (id: string, title: string, yLabel: string, series: ChartSeries[], y2Label?: string): ChartSpec => ({
    id, title, xKind: 'seconds', x, yLabel, series, ...(y2Label === undefined ? {} : { y2Label }),
  });
  const charts: ChartSpec[] = [
    overTime('chart-throughput', 'Requests per second', 'requests/s', throughput),
    overTime('chart-latency', 'Latency over time', 'ms', [
      { label: 'p50', color: COLORS.blue, scale: 'y', values: column((e) => e.p50), unit: ' ms' },
      { label: 'p99', color: COLORS.orange, scale: 'y', values: column((e) => e.p99), unit: ' ms' },
    ]),
    overTime('chart-errors', 'Errors and open connections', 'errors/s', [
      { label: 'errors', color: COLORS.red, scale: 'y', values: column((e) => e.errors), unit: '/s' },
      { label: 'open connections', color: COLORS.purple, scale: 'y2', values: column((e) => e.connections), unit: '' },
    ], 'connections'),
  ];
  const cpu = optionalSeries(timeline, 'cpuPercent');
  if (cpu !== undefined) {
    const series: ChartSeries[] = [{ label: 'CPU', color: COLORS.orange, scale: 'y', values: cpu, unit: '%' }];
    const utilization = optionalSeries(timeline, 'eventLoopUtilization');
    if (utilization !== undefined) {
      series.push({ label: 'event loop busy', color: COLORS.blue, scale: 'y', values: utilization.map((u) => u * 100), unit: '%' });
    }
    charts.push(overTime('chart-generator', "Load generator's CPU", '% of one core', series));
  }
  return charts;
}

/**
 * The corrected and (when it differs) uncorrected spectra on one x axis: the union of their
 * percentiles, each series `null` where it has no point.
 */
function spectrumChart(result: LoadResult): ChartSpec | undefined {
  const corrected = percentileSpectrum(result.histogram);
  if (corrected.length === 0) return undefined;
  const uncorrected = result.histogramUncorrected === result.histogram ? [] : percentileSpectrum(result.histogramUncorrected);
  const byX = new Map<number, [number | null, number | null]>();
  const xOf = (percentile: number) => 1 / (1 - percentile / 100);
  for (const point of corrected) byX.set(xOf(point.percentile), [point.valueMs, null]);
  for (const point of uncorrected) {
    const x = xOf(point.percentile);
    byX.set(x, [byX.get(x)?.[0] ?? null, point.valueMs]);
  }
  const x = [...byX.keys()].sort((a, b) => a - b);
  const series: ChartSeries[] = [
    { label: result.rate === undefined ? 'latency' : 'corrected', color: COLORS.blue, scale: 'y', values: x.map((k) => byX.get(k)![0]), unit: ' ms' },
  ];
  if (uncorrected.length > 0 && uncorrected.some((p, i) => p.valueMs !== corrected[i]?.valueMs)) {
    series.push({ label: 'uncorrected', color: COLORS.grey, scale: 'y', values: x.map((k) => byX.get(k)![1]), unit: ' ms', dash: [4, 4] });
  }
  return { id: 'chart-spectrum', title: 'Latency by percentile', xKind: 'percentile', x, yLabel: 'ms', series };
}

/** Every chart the report draws for `result`, in page order. */
export function reportCharts(result: LoadResult): ChartSpec[] {
  const spectrum = spectrumChart(result);
  const charts = timelineCharts(result);
  if (spectrum !== undefined) charts.splice(2, 0, spectrum);
  return charts;
}
