import type { SweepPoint, SweepResult } from '../capacity/sweep-types.js';
import { COLORS, type ChartSeries, type ChartSpec } from './chart-spec.js';
import { cards, escapeHtml, ms, number, percent, section, table } from './html.js';
import { chartGrid, renderPage } from './page.js';

/** A number to draw, or null (a gap) for a figure the point lacks (NaN, `null` from JSON). */
const drawn = (value: number | null | undefined): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/** The knee as a marker: a value at the knee's point only. */
function kneeMarker(result: SweepResult, read: (point: SweepPoint) => number | null, unit: string): ChartSeries[] {
  if (result.knee === undefined) return [];
  return [
    {
      label: 'knee',
      color: COLORS.red,
      scale: 'y',
      values: result.points.map((point, index) => (index === result.knee ? read(point) : null)),
      unit,
      pointsOnly: true,
    },
  ];
}

/**
 * The sweep's charts, x = the offered load: throughput (with the offered rate and goodput), latency
 * p50/p90/p99, and for token streams TTFT, TPOT and ITL with output tokens/s; the knee marked on each.
 */
function sweepCharts(result: SweepResult): ChartSpec[] {
  const points = result.points;
  if (points.length === 0) return [];
  const rateSweep = result.over === 'rate';
  const axis = {
    xKind: 'linear' as const,
    x: points.map((point) => point.load),
    xLabel: rateSweep ? 'offered req/s' : 'connections',
    xUnit: rateSweep ? ' req/s' : ' connections',
  };
  const column = (read: (point: SweepPoint) => number | null | undefined) => points.map((point) => drawn(read(point)));
  const throughput: ChartSeries[] = [
    ...(rateSweep
      ? [
          {
            label: 'offered',
            color: COLORS.grey,
            scale: 'y' as const,
            values: column((p) => p.load),
            unit: ' req/s',
            dash: [4, 4],
          },
        ]
      : []),
    {
      label: 'throughput',
      color: COLORS.green,
      scale: 'y',
      values: column((p) => p.throughput),
      unit: ' req/s',
      points: true,
    },
  ];
  if (points.some((point) => point.goodput !== undefined)) {
    throughput.push({
      label: 'goodput',
      color: COLORS.purple,
      scale: 'y',
      values: column((p) => p.goodput),
      unit: ' req/s',
      points: true,
    });
  }
  throughput.push(
    ...kneeMarker(result, (p) => drawn(result.kneeMethod === 'goodput' ? p.goodput : p.throughput), ' req/s'),
  );
  const latency: ChartSeries[] = [
    { label: 'p50', color: COLORS.blue, scale: 'y', values: column((p) => p.p50), unit: ' ms', points: true },
    { label: 'p90', color: COLORS.teal, scale: 'y', values: column((p) => p.p90), unit: ' ms', points: true },
    { label: 'p99', color: COLORS.orange, scale: 'y', values: column((p) => p.p99), unit: ' ms', points: true },
    ...kneeMarker(result, (p) => drawn(p.p99), ' ms'),
  ];
  const values = latency.flatMap((series) => series.values.filter((v): v is number => v !== null && v > 0));
  // A saturated point's queue can be 100 times the unloaded latency: then the axis is log-scaled.
  const yLog = values.length > 0 && Math.max(...values) > 20 * Math.min(...values);
  const charts: ChartSpec[] = [
    { id: 'chart-sweep-throughput', title: 'Throughput by load', ...axis, yLabel: 'req/s', series: throughput },
    {
      id: 'chart-sweep-latency',
      title: `Latency by load${yLog ? ' (log scale)' : ''}`,
      ...axis,
      yLabel: 'ms',
      ...(yLog ? { yLog } : {}),
      series: latency,
    },
  ];
  const streams = points.map((point) => point.result.stream);
  if (streams.some((stream) => stream?.ttft != null)) {
    charts.push({
      id: 'chart-sweep-tokens',
      title: 'TTFT, TPOT and ITL by load, with output tokens per second',
      ...axis,
      yLabel: 'ms',
      y2Label: 'tokens/s',
      series: [
        {
          label: 'TTFT p50',
          color: COLORS.blue,
          scale: 'y',
          values: streams.map((s) => drawn(s?.ttft?.p50)),
          unit: ' ms',
          points: true,
        },
        {
          label: 'TTFT p99',
          color: COLORS.orange,
          scale: 'y',
          values: streams.map((s) => drawn(s?.ttft?.p99)),
          unit: ' ms',
          points: true,
        },
        {
          label: 'TPOT p50',
          color: COLORS.teal,
          scale: 'y',
          values: streams.map((s) => drawn(s?.tpot?.p50)),
          unit: ' ms',
          points: true,
        },
        {
          label: 'ITL p99',
          color: COLORS.purple,
          scale: 'y',
          values: streams.map((s) => drawn(s?.itl?.p99)),
          unit: ' ms',
          points: true,
        },
        {
          label: 'output tokens/s',
          color: COLORS.green,
          scale: 'y2',
          values: streams.map((s) => drawn(s?.outputTokensPerSecond)),
          unit: '/s',
          points: true,
          dash: [4, 4],
        },
        ...kneeMarker(result, (p) => drawn(p.result.stream?.ttft?.p99), ' ms'),
      ],
    });
  }
  return charts;
}

/** Every point, lowest load first, the knee's row marked. */
function pointsTable(result: SweepResult): string {
  const goodput = result.points.some((point) => point.goodput !== undefined);
  const tokens = result.points.some((point) => point.result.stream?.ttft != null);
  const head = [
    result.over === 'rate' ? 'offered req/s' : 'connections',
    'sent/s',
    'throughput/s',
    ...(goodput ? ['goodput/s'] : []),
    'p50',
    'p90',
    'p99',
    ...(tokens ? ['TTFT p50', 'TTFT p99', 'TPOT p50', 'ITL p99', 'tokens/s'] : []),
    'errors',
    'verdict',
  ];
  const rows = result.points.map((point, index) => {
    const stream = point.result.stream;
    return [
      number(point.load),
      number(point.sentRate),
      number(point.throughput),
      ...(goodput ? [number(point.goodput)] : []),
      ms(point.p50),
      ms(point.p90),
      ms(point.p99),
      ...(tokens
        ? [
            ms(stream?.ttft?.p50),
            ms(stream?.ttft?.p99),
            ms(stream?.tpot?.p50),
            ms(stream?.itl?.p99),
            number(stream?.outputTokensPerSecond),
          ]
        : []),
      percent(point.errorRate),
      index === result.knee
        ? '<span class="pass">knee</span>'
        : point.saturated
          ? `<span class="fail">saturated</span>${point.limitedBy === undefined ? '' : ` (${escapeHtml(point.limitedBy)})`}: ${escapeHtml(point.why ?? '')}`
          : 'kept up',
    ];
  });
  return section(
    'Load points',
    table(head, rows, {
      className: 'numbers',
      id: 'sweep-points',
      textColumns: [head.length - 1],
      caption: 'Every load point, lowest first',
    }),
    'points',
  );
}

/**
 * An HTML report of a sweep (`sweep`, `salvo sweep --html`): the knee and where the server
 * saturated; throughput (and goodput), latency p50/p90/p99, and for token streams TTFT, TPOT, ITL
 * and output tokens/s, each against the offered load with the knee marked; every point in a table.
 * One self-contained file.
 */
export function renderSweepReport(result: SweepResult): string {
  const charts = sweepCharts(result);
  const unit = result.over === 'rate' ? 'req/s' : 'connections';
  const knee = result.knee === undefined ? undefined : result.points[result.knee];
  const badge =
    knee === undefined
      ? '<span class="badge neutral">no knee found</span>'
      : `<span class="badge passed">knee at ${escapeHtml(`${number(knee.load)} ${unit}`)}</span>`;
  const header =
    `<h1>salvo sweep <span class="url">${escapeHtml(result.url)}</span>${badge}</h1>` +
    `<p class="meta">${escapeHtml(`over ${result.over === 'rate' ? 'rates' : 'connections'} ${result.loads.map(number).join(', ')} · ${result.points.length} points in ${number(result.durationMs / 1000)} s${result.aborted ? ' · aborted' : ''}`)}</p>`;
  const body = [
    cards([
      [
        'knee',
        knee === undefined ? 'none' : `${number(knee.load)} ${unit}`,
        result.kneeMethod === 'goodput'
          ? 'highest goodput'
          : result.kneeMethod === 'kneedle'
            ? 'Kneedle on throughput'
            : undefined,
      ],
      ['throughput at knee', knee === undefined ? 'n/a' : `${number(knee.throughput)}/s`],
      ['p99 at knee', ms(knee?.p99)],
      ['saturated at', result.saturatedAt === undefined ? 'not reached' : `${number(result.saturatedAt)} ${unit}`],
    ]),
    section('Outcome', `<p id="sweep-message">${escapeHtml(result.message)}</p>`, 'outcome'),
    chartGrid(charts),
    pointsTable(result),
  ];
  return renderPage({
    title: `salvo sweep: ${result.url}`,
    header,
    body: body.join('\n'),
    charts,
    footer: 'salvo sweep report',
  });
}
