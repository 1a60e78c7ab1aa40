import type { LoadResult, TimelineEntry } from '../shared/load-result.js';
import { COLORS, type ChartSeries, type ChartSpec } from './chart-spec.js';
import { percentileSpectrum } from './spectrum.js';
import { wholeTarget } from '../stats/format-parts.js';
import { runWords } from './words.js';

/** A timeline field that other parts of salvo may add (the generator's CPU), when every second has it. */
function optionalSeries(timeline: TimelineEntry[], field: string): number[] | undefined {
  const values = timeline.map((entry) => (entry as unknown as Record<string, unknown>)[field]);
  return values.length > 0 && values.every((v) => typeof v === 'number') ? (values as number[]) : undefined;
}

/** A second's latency for a chart, or null (a gap) when the second timed nothing. */
export function timedLatency(ms: number | null, completed: number): number | null {
  return ms === null || Number.isNaN(ms) || completed === 0 ? null : ms;
}

/**
 * How much of a second the timeline's last entry covers, when the run ended inside it (a 3.2 s run's
 * fourth second: 0.2); undefined when every entry is a whole second.
 */
export function partialLastSecond(result: LoadResult): number | undefined {
  const last = result.timeline?.at(-1);
  if (last === undefined) return undefined;
  const share = Math.round(result.durationMs - last.second * 1000) / 1000;
  return share > 0 && share < 1 ? share : undefined;
}

/**
 * The x of each timeline point: the end of its second (a 3 s run reads 1 s, 2 s, 3 s), and for a
 * last partial second the run's end (3.2 s), where its counts are drawn per second of its length.
 */
export function timelineX(result: LoadResult): number[] {
  const timeline = result.timeline ?? [];
  const share = partialLastSecond(result);
  return timeline.map((entry, i) =>
    share !== undefined && i === timeline.length - 1 ? entry.second + share : entry.second + 1,
  );
}

function timelineCharts(result: LoadResult): ChartSpec[] {
  const timeline = result.timeline ?? [];
  // One point is no line: a run shorter than two seconds gets no charts over time.
  if (timeline.length < 2) return [];
  const words = runWords(result);
  const x = timelineX(result);
  const column = (read: (entry: TimelineEntry) => number) => timeline.map(read);
  // A second that timed nothing is a gap: NaN in memory, null from JSON, 0 in results saved before 1.0.
  const latency = (read: (entry: TimelineEntry) => number) =>
    timeline.map((entry) => timedLatency(read(entry), entry.completed));
  // A count of the last partial second, per second of its length: 200 in 0.2 s is 1,000/s, not 200/s.
  const share = partialLastSecond(result) ?? 1;
  const perSecond = (read: (entry: TimelineEntry) => number) =>
    timeline.map((entry, i) => (i === timeline.length - 1 ? read(entry) / share : read(entry)));
  const throughput: ChartSeries[] = [
    { label: words.completed, color: COLORS.blue, scale: 'y', values: perSecond((e) => e.completed), unit: '/s' },
  ];
  // A listen-only run sends nothing: a line along zero would only hide the axis.
  if (timeline.some((e) => e.sent > 0))
    throughput.push({
      label: 'sent',
      color: COLORS.grey,
      scale: 'y',
      values: perSecond((e) => e.sent),
      unit: '/s',
      dash: [4, 4],
    });
  if (wholeTarget(result) && timeline.some((entry) => entry.targetRate !== undefined)) {
    throughput.push({
      label: 'target',
      color: COLORS.green,
      scale: 'y',
      values: timeline.map((e) => e.targetRate ?? null),
      unit: '/s',
      dash: [2, 6],
    });
  }
  const overTime = (id: string, title: string, yLabel: string, series: ChartSeries[], y2Label?: string): ChartSpec => ({
    id,
    title,
    xKind: 'seconds',
    x,
    yLabel,
    series,
    ...(y2Label === undefined ? {} : { y2Label }),
  });
  const charts: ChartSpec[] = [
    overTime(
      'chart-throughput',
      words.handshakes ? 'Messages per second' : 'Requests per second',
      `${words.units}/s`,
      throughput,
    ),
    overTime('chart-latency', words.handshakes ? 'Message latency over time' : 'Latency over time', 'ms', [
      { label: 'p50', color: COLORS.blue, scale: 'y', values: latency((e) => e.p50), unit: ' ms' },
      { label: 'p99', color: COLORS.orange, scale: 'y', values: latency((e) => e.p99), unit: ' ms' },
    ]),
    overTime(
      'chart-errors',
      'Errors and open connections',
      'errors/s',
      [
        { label: 'errors', color: COLORS.red, scale: 'y', values: perSecond((e) => e.errors), unit: '/s' },
        {
          label: 'open connections',
          color: COLORS.purple,
          scale: 'y2',
          values: column((e) => e.connections),
          unit: '',
        },
      ],
      'connections',
    ),
  ];
  const cpu = optionalSeries(timeline, 'cpuPercent');
  if (cpu !== undefined) {
    const series: ChartSeries[] = [{ label: 'CPU', color: COLORS.orange, scale: 'y', values: cpu, unit: '%' }];
    const utilization = optionalSeries(timeline, 'eventLoopUtilization');
    if (utilization !== undefined) {
      series.push({
        label: 'event loop busy',
        color: COLORS.blue,
        scale: 'y',
        values: utilization.map((u) => u * 100),
        unit: '%',
      });
    }
    charts.push(overTime('chart-generator', "Load generator's CPU", '% of one core', series));
  }
  return charts;
}

/** A spectrum line per histogram, on the union of their x (1 / (1 - p)); each `null` where it has no point. */
export function spectraChart(
  id: string,
  title: string,
  lines: ReadonlyArray<{ label: string; color: string; histogram: string | undefined; dash?: number[] }>,
): ChartSpec | undefined {
  const spectra = lines.map((line) => percentileSpectrum(line.histogram));
  if (spectra.every((points) => points.length === 0)) return undefined;
  const xOf = (percentile: number) => 1 / (1 - percentile / 100);
  const byX = new Map<number, Array<number | null>>();
  spectra.forEach((points, index) => {
    for (const point of points) {
      const x = xOf(point.percentile);
      const row = byX.get(x) ?? lines.map(() => null);
      row[index] = point.valueMs;
      byX.set(x, row);
    }
  });
  const x = [...byX.keys()].sort((a, b) => a - b);
  const series: ChartSeries[] = lines.flatMap((line, index) =>
    spectra[index]!.length === 0
      ? []
      : [
          {
            label: line.label,
            color: line.color,
            scale: 'y' as const,
            values: x.map((k) => byX.get(k)![index]!),
            unit: ' ms',
            ...(line.dash ? { dash: line.dash } : {}),
          },
        ],
  );
  return { id, title, xKind: 'percentile', x, yLabel: 'ms', series };
}

/** The corrected and (when it differs) uncorrected spectra of a run. */
function spectrumChart(result: LoadResult): ChartSpec | undefined {
  const differs = result.histogramUncorrected !== undefined && result.histogramUncorrected !== result.histogram;
  return spectraChart('chart-spectrum', 'Latency by percentile', [
    { label: result.rate === undefined ? 'latency' : 'corrected', color: COLORS.blue, histogram: result.histogram },
    ...(differs
      ? [{ label: 'uncorrected', color: COLORS.grey, histogram: result.histogramUncorrected, dash: [4, 4] }]
      : []),
  ]);
}

/** Every chart over time and the spectrum, in page order. */
export function reportCharts(result: LoadResult): ChartSpec[] {
  const spectrum = spectrumChart(result);
  const charts = timelineCharts(result);
  if (spectrum !== undefined) charts.splice(Math.min(2, charts.length), 0, spectrum);
  return charts;
}
