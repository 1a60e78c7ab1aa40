import type { LoadResult } from '../shared/load-result.js';
import { COLORS, type ChartSpec } from './chart-spec.js';
import { bytes, escapeHtml, ms, number, section, table } from './html.js';
import type { StepFigures, StepPoint } from './steps.js';
import { runWords } from './words.js';

/** One column of the per-step table. */
interface StepColumn {
  header: string;
  cell: (step: StepPoint) => string;
}

function xName(figures: StepFigures, result: LoadResult): { label: string; unit: string } {
  if (figures.kind === 'rate') return { label: 'target rate', unit: ' req/s' };
  return runWords(result).handshakes || subscribed(result)
    ? { label: 'clients', unit: ' clients' }
    : { label: 'connections', unit: ' connections' };
}

/** SSE subscriptions (`stream.subscribe`): their steps count events, timed by their delivery. */
const subscribed = (result: LoadResult): boolean => result.stream?.subscriptions?.stages !== undefined;

/** What a step counts, in the run's words: requests, messages, or a subscription's events. */
function stepWords(result: LoadResult): {
  sent: string;
  completed: string;
  units: string;
  title: string;
  latency: string;
} {
  if (subscribed(result))
    return { sent: 'subscriptions sent', completed: 'events', units: 'events', title: 'Events', latency: 'Delivery' };
  const words = runWords(result);
  return {
    sent: `${words.units} sent`,
    completed: words.completed,
    units: words.units,
    title: words.units === 'messages' ? 'Messages' : 'Requests',
    latency: 'Latency',
  };
}

function columns(figures: StepFigures, result: LoadResult): StepColumn[] {
  const words = stepWords(result);
  const x = xName(figures, result);
  const list: StepColumn[] = [
    { header: 'stage', cell: (s) => String(s.stage) },
    // A ramp as written: from where the previous stage ended to its own target.
    {
      header: figures.kind === 'rate' ? 'target req/s' : x.label,
      cell: (s) => (s.from === s.target ? number(s.target) : `${number(s.from)} → ${number(s.target)}`),
    },
  ];
  if (figures.steps.some((s) => s.meanTarget !== undefined && s.from !== s.target))
    list.push({ header: 'mean target/s', cell: (s) => number(s.meanTarget) });
  if (figures.steps.some((s) => s.open !== undefined)) list.push({ header: 'open', cell: (s) => number(s.open) });
  list.push({ header: 'lasts', cell: (s) => `${number(s.plannedMs / 1000)} s` });
  // An HTTP step counts the whole seconds within it: a 2 s hold starting mid-second has 1.
  list.push({ header: 'measured', cell: (s) => `${number(s.durationMs / 1000)} s` });
  // A listen-only run sends nothing: a column of zeros would only say so at length.
  if (figures.steps.some((s) => s.sent > 0)) list.push({ header: words.sent, cell: (s) => number(s.sent) });
  list.push(
    { header: words.completed, cell: (s) => number(s.completed) },
    { header: `${words.units}/s`, cell: (s) => number(s.perSecond) },
    { header: 'p50', cell: (s) => ms(s.p50) },
    { header: 'p99', cell: (s) => ms(s.p99) },
    { header: 'mean', cell: (s) => ms(s.mean) },
    { header: 'errors', cell: (s) => number(s.errors) },
  );
  const stream = figures.steps.find((s) => s.stream !== undefined)?.stream;
  if (stream !== undefined) {
    list.push(
      stream.outputTokensPerSecond !== undefined
        ? { header: 'tokens/s', cell: (s) => number(s.stream?.outputTokensPerSecond) }
        : { header: 'events/s', cell: (s) => number(s.stream?.eventsPerSecond) },
      stream.ttftP99 !== undefined
        ? { header: 'TTFT p99', cell: (s) => ms(s.stream?.ttftP99) }
        : { header: 'first event p99', cell: (s) => ms(s.stream?.firstEventP99) },
    );
  }
  const has = (field: keyof StepPoint['server']) => figures.steps.some((s) => s.server[field] !== undefined);
  if (has('cpuPercent'))
    list.push({
      header: 'server CPU',
      cell: (s) => (s.server.cpuPercent === undefined ? 'n/a' : `${number(s.server.cpuPercent)}%`),
    });
  if (has('machineCpuPercent'))
    list.push({
      header: 'machine CPU',
      cell: (s) => (s.server.machineCpuPercent === undefined ? 'n/a' : `${number(s.server.machineCpuPercent)}%`),
    });
  if (has('receivedBytesPerSecond'))
    list.push({
      header: 'machine in',
      cell: (s) =>
        s.server.receivedBytesPerSecond === undefined ? 'n/a' : `${bytes(s.server.receivedBytesPerSecond)}/s`,
    });
  if (has('sentBytesPerSecond'))
    list.push({
      header: 'machine out',
      cell: (s) => (s.server.sentBytesPerSecond === undefined ? 'n/a' : `${bytes(s.server.sentBytesPerSecond)}/s`),
    });
  return list;
}

/** The per-step table: one row per step, in the order run. */
function stepsTable(figures: StepFigures, result: LoadResult): string {
  const list = columns(figures, result);
  const rows = figures.steps.map((step) => list.map((column) => column.cell(step)));
  return table(
    list.map((c) => escapeHtml(c.header)),
    rows,
    { className: 'numbers', id: 'steps-table', caption: 'One row per step, in the order run' },
  );
}

/**
 * Charts with one point per step, x = the step's clients or target rate (ascending): latency (p50,
 * p99, mean), throughput with errors on the right axis; a `stream` run's output tokens (or events)
 * per second with TTFT (or first event) p99 on the right axis; and, when `monitor` watched the
 * server, its CPU with its network (MB/s) on the right axis.
 */
export function stepCharts(result: LoadResult, figures: StepFigures | undefined): ChartSpec[] {
  if (figures === undefined || figures.steps.length === 0) return [];
  const words = stepWords(result);
  const { label, unit } = xName(figures, result);
  const sorted = [...figures.steps].sort((a, b) => a.target - b.target);
  const x = sorted.map((s) => s.target);
  const column = (read: (s: StepPoint) => number | null) => sorted.map(read);
  const perStep = (
    id: string,
    title: string,
    yLabel: string,
    series: ChartSpec['series'],
    y2Label?: string,
  ): ChartSpec => ({
    id,
    title,
    xKind: 'linear',
    x,
    xLabel: label,
    xUnit: unit,
    yLabel,
    series,
    ...(y2Label === undefined ? {} : { y2Label }),
  });
  const charts = [
    perStep('chart-steps-latency', `${words.latency} by ${label}`, 'ms', [
      { label: 'p50', color: COLORS.blue, scale: 'y', values: column((s) => s.p50), unit: ' ms', points: true },
      { label: 'p99', color: COLORS.orange, scale: 'y', values: column((s) => s.p99), unit: ' ms', points: true },
      {
        label: 'mean',
        color: COLORS.grey,
        scale: 'y',
        values: column((s) => s.mean),
        unit: ' ms',
        points: true,
        dash: [4, 4],
      },
    ]),
    perStep(
      'chart-steps-throughput',
      `${words.title} per second and errors by ${label}`,
      `${words.units}/s`,
      [
        {
          label: `${words.completed}/s`,
          color: COLORS.green,
          scale: 'y',
          values: column((s) => s.perSecond),
          unit: '/s',
          points: true,
        },
        ...(sorted.some((s) => s.meanTarget !== undefined && s.from !== s.target)
          ? [
              {
                label: 'mean target',
                color: COLORS.grey,
                scale: 'y' as const,
                values: column((s) => s.meanTarget ?? null),
                unit: '/s',
                points: true,
                dash: [2, 6],
              },
            ]
          : []),
        { label: 'errors', color: COLORS.red, scale: 'y2', values: column((s) => s.errors), unit: '', points: true },
      ],
      'errors',
    ),
  ];
  const stream = sorted.find((s) => s.stream !== undefined)?.stream;
  if (stream !== undefined) {
    const tokens = stream.outputTokensPerSecond !== undefined;
    charts.push(
      perStep(
        'chart-steps-stream',
        tokens
          ? `Output tokens per second and TTFT by ${label}`
          : `Events per second and time to first event by ${label}`,
        tokens ? 'tokens/s' : 'events/s',
        [
          {
            label: tokens ? 'output tokens/s' : 'events/s',
            color: COLORS.green,
            scale: 'y',
            values: column((s) => (tokens ? s.stream?.outputTokensPerSecond : s.stream?.eventsPerSecond) ?? null),
            unit: '/s',
            points: true,
          },
          {
            label: tokens ? 'TTFT p99' : 'first event p99',
            color: COLORS.orange,
            scale: 'y2',
            values: column((s) => (tokens ? s.stream?.ttftP99 : s.stream?.firstEventP99) ?? null),
            unit: ' ms',
            points: true,
          },
        ],
        'ms',
      ),
    );
  }
  const server = (field: keyof StepPoint['server'], scale = 1) =>
    column((s) => (s.server[field] === undefined ? null : s.server[field] / scale));
  const serverSeries: ChartSpec['series'] = [
    { label: 'server CPU', color: COLORS.red, scale: 'y', values: server('cpuPercent'), unit: '%', points: true },
    {
      label: 'machine CPU',
      color: COLORS.grey,
      scale: 'y',
      values: server('machineCpuPercent'),
      unit: '%',
      points: true,
      dash: [2, 2],
    },
    {
      label: 'network in',
      color: COLORS.blue,
      scale: 'y2',
      values: server('receivedBytesPerSecond', 1e6),
      unit: ' MB/s',
      points: true,
      dash: [4, 4],
    },
    {
      label: 'network out',
      color: COLORS.orange,
      scale: 'y2',
      values: server('sentBytesPerSecond', 1e6),
      unit: ' MB/s',
      points: true,
      dash: [4, 4],
    },
  ].filter((series) => series.values.some((v) => v !== null)) as ChartSpec['series'];
  if (serverSeries.length > 0) {
    const cpu = serverSeries.some((s) => s.scale === 'y');
    // With no CPU reading the network moves to the left axis rather than leave it empty.
    const series = cpu ? serverSeries : serverSeries.map((s) => ({ ...s, scale: 'y' as const }));
    charts.push(
      perStep(
        'chart-steps-server',
        `Server and machine by ${label}`,
        cpu ? '% of one core' : 'MB/s',
        series,
        cpu && series.length > 1 ? 'MB/s' : undefined,
      ),
    );
  }
  return charts;
}

/** The per-step section: how the steps were read, and their table. Empty for a run without stages. */
export function stepsSection(result: LoadResult, figures: StepFigures | undefined): string {
  if (figures === undefined) return '';
  if (figures.steps.length === 0) return section('Steps', '<p>No step was measured.</p>', 'steps');
  return section('Steps', `<p class="meta">${escapeHtml(figures.source)}</p>${stepsTable(figures, result)}`, 'steps');
}
