import type { CapacityResult, CapacityStep } from '../capacity/types.js';
import { parseThresholds, type CompiledThreshold } from '../stats/thresholds.js';
import { COLORS, type ChartSeries, type ChartSpec } from './chart-spec.js';
import { cards, escapeHtml, ms, number, percent, section, table } from './html.js';
import { chartGrid, renderPage } from './page.js';

/** The objective's expressions; an objective this version cannot parse is shown, not charted. */
function objective(result: CapacityResult): CompiledThreshold[] {
  try {
    return parseThresholds(result.slo);
  } catch {
    return [];
  }
}

function verdict(step: CapacityStep): string {
  if (step.passed) return '<span class="pass">pass</span>';
  const why = step.failures.map(escapeHtml).join('; ');
  return step.limitedBy === undefined
    ? `stopped: ${why}`
    : `<span class="fail">fail</span> (${escapeHtml(step.limitedBy)}): ${why}`;
}

/**
 * The search's charts, x = the step's number in the order run: offered (target), sent and achieved
 * rate with the capacity found as a line; p50 and p99 (and any other latency the SLO names) with
 * each latency objective as a line and the failed steps marked.
 */
function capacityCharts(result: CapacityResult, slo: readonly CompiledThreshold[]): ChartSpec[] {
  const steps = result.steps;
  if (steps.length === 0) return [];
  const x = steps.map((_, index) => index + 1);
  const column = (read: (step: CapacityStep) => number | null) => steps.map(read);
  const rates: ChartSeries[] = [
    {
      label: 'offered',
      color: COLORS.grey,
      scale: 'y',
      values: column((s) => s.rate),
      unit: ' req/s',
      points: true,
      dash: [4, 4],
    },
    {
      label: 'sent',
      color: COLORS.purple,
      scale: 'y',
      values: column((s) => s.sentRate),
      unit: ' req/s',
      points: true,
    },
    {
      label: 'achieved',
      color: COLORS.green,
      scale: 'y',
      values: column((s) => s.achievedRate),
      unit: ' req/s',
      points: true,
    },
  ];
  if (result.capacity !== undefined) {
    rates.push({
      label: 'capacity',
      color: COLORS.blue,
      scale: 'y',
      values: x.map(() => result.capacity!),
      unit: ' req/s',
      dash: [2, 6],
    });
  }
  const latency: ChartSeries[] = [
    { label: 'p50', color: COLORS.blue, scale: 'y', values: column((s) => s.p50), unit: ' ms', points: true },
    { label: 'p99', color: COLORS.orange, scale: 'y', values: column((s) => s.p99), unit: ' ms', points: true },
  ];
  for (const threshold of slo.filter((t) => /^latency(Uncorrected)?\./.test(t.metric))) {
    if (
      threshold.metric !== 'latency.p50' &&
      threshold.metric !== 'latency.p99' &&
      !latency.some((s) => s.label === threshold.metric)
    ) {
      latency.push({
        label: threshold.metric,
        color: COLORS.teal,
        scale: 'y',
        values: column((s) => (s.result === undefined ? null : (threshold.read(s.result) ?? null))),
        unit: ' ms',
        points: true,
      });
    }
    latency.push({
      label: `SLO ${threshold.metric} ${threshold.expression}`,
      color: COLORS.red,
      scale: 'y',
      values: x.map(() => threshold.value),
      unit: ' ms',
      dash: [6, 4],
    });
  }
  if (steps.some((s) => !s.passed)) {
    latency.push({
      label: 'failed step (p99)',
      color: COLORS.red,
      scale: 'y',
      values: column((s) => (s.passed ? null : s.p99)),
      unit: ' ms',
      pointsOnly: true,
    });
  }
  const byStep = { xKind: 'linear' as const, x, xLabel: 'step', xUnit: '' };
  // A failed step far above the objective would flatten the SLO line on a linear axis: then it is log-scaled.
  const objectives = latency
    .filter((s) => s.label.startsWith('SLO '))
    .flatMap((s) => s.values.filter((v): v is number => v !== null));
  const values = latency.flatMap((s) => s.values.filter((v): v is number => v !== null && v > 0));
  const yLog = objectives.length > 0 && Math.max(...values) > 5 * Math.max(...objectives);
  return [
    {
      id: 'chart-capacity-rate',
      title: 'Offered and achieved rate by step',
      ...byStep,
      yLabel: 'req/s',
      series: rates,
    },
    {
      id: 'chart-capacity-latency',
      title: `Latency by step, with the SLO${yLog ? ' (log scale)' : ''}`,
      ...byStep,
      yLabel: 'ms',
      ...(yLog ? { yLog } : {}),
      series: latency,
    },
  ];
}

/** A time figure of `stream` in ms (`stream.ttft.p99`), as an objective may name one. */
const STREAM_TIME = /^stream\.(firstEvent|gap|duration|delivery|ttft|itl|tpot)\./;

/** A number to draw, or null (a gap) for a figure the step lacks (NaN, `null` from JSON). */
const drawn = (value: number | null | undefined): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/**
 * A search over a streaming endpoint: each step's output tokens per second (events per second
 * without `tokens`) and TTFT p99 (time to first event), with each stream time objective as a line.
 */
function streamChart(result: CapacityResult, slo: readonly CompiledThreshold[]): ChartSpec | undefined {
  const streams = result.steps.map((step) => step.result?.stream);
  if (!streams.some((stream) => stream !== undefined)) return undefined;
  const tokens = streams.some((stream) => stream?.ttft != null);
  const x = streams.map((_, index) => index + 1);
  const shown = tokens ? 'stream.ttft.p99' : 'stream.firstEvent.p99';
  const series: ChartSeries[] = [
    {
      label: tokens ? 'output tokens/s' : 'events/s',
      color: COLORS.green,
      scale: 'y',
      values: streams.map((s) => drawn(tokens ? s?.outputTokensPerSecond : s?.perSecond)),
      unit: '/s',
      points: true,
    },
    {
      label: tokens ? 'TTFT p99' : 'first event p99',
      color: COLORS.orange,
      scale: 'y2',
      values: streams.map((s) => drawn(tokens ? s?.ttft?.p99 : s?.firstEvent?.p99)),
      unit: ' ms',
      points: true,
    },
  ];
  for (const threshold of slo.filter((t) => STREAM_TIME.test(t.metric))) {
    if (threshold.metric !== shown && !series.some((s) => s.label === threshold.metric)) {
      series.push({
        label: threshold.metric,
        color: COLORS.teal,
        scale: 'y2',
        values: result.steps.map((s) => (s.result === undefined ? null : drawn(threshold.read(s.result)))),
        unit: ' ms',
        points: true,
      });
    }
    series.push({
      label: `SLO ${threshold.metric} ${threshold.expression}`,
      color: COLORS.red,
      scale: 'y2',
      values: x.map(() => threshold.value),
      unit: ' ms',
      dash: [6, 4],
    });
  }
  return {
    id: 'chart-capacity-stream',
    title: tokens ? 'Output tokens per second and TTFT by step' : 'Events per second and time to first event by step',
    xKind: 'linear',
    x,
    xLabel: 'step',
    xUnit: '',
    yLabel: tokens ? 'tokens/s' : 'events/s',
    y2Label: 'ms',
    series,
  };
}

/** Every step, in the order run. */
function stepsTable(result: CapacityResult): string {
  // With `monitor`: what the server spent at each step, beside what it achieved.
  const monitored = result.steps.some((step) => step.result?.server !== undefined);
  // Over a streaming endpoint: what each step streamed (output tokens/s with `tokens`) and its time to first token.
  const streamed = result.steps.some((step) => step.result?.stream != null);
  const tokens = result.steps.some((step) => step.result?.stream?.ttft != null);
  const streamHead = streamed ? (tokens ? ['tokens/s', 'TTFT p99'] : ['events/s', 'first event p99']) : [];
  const streamCells = (step: CapacityStep) => {
    const stream = step.result?.stream;
    return !streamed
      ? []
      : tokens
        ? [number(stream?.outputTokensPerSecond), ms(stream?.ttft?.p99)]
        : [number(stream?.perSecond), ms(stream?.firstEvent?.p99)];
  };
  const head = [
    'step',
    'phase',
    'offered req/s',
    'sent/s',
    'achieved/s',
    'p50',
    'p99',
    'p99 from write',
    ...streamHead,
    'errors',
    'missed',
    ...(monitored ? ['server CPU', 'CPU per request', 'machine CPU'] : []),
    'verdict',
  ];
  const cpu = (percent: number | undefined) => (percent === undefined ? 'n/a' : `${number(percent)}%`);
  const rows = result.steps.map((step, index) => [
    String(index + 1),
    step.phase,
    number(step.rate),
    number(step.sentRate),
    number(step.achievedRate),
    ms(step.p50),
    ms(step.p99),
    ms(step.p99Uncorrected),
    ...streamCells(step),
    percent(step.errorRate),
    number(step.missed),
    ...(monitored
      ? [
          cpu(step.result?.server?.cpuPercent),
          ms(step.result?.server?.cpuPerRequestMs),
          cpu(step.result?.server?.machine?.cpuPercent),
        ]
      : []),
    verdict(step),
  ]);
  return section(
    'Steps',
    table(head, rows, {
      className: 'numbers',
      id: 'capacity-steps',
      textColumns: [head.length - 1],
      caption: 'Every step of the search, in the order run',
    }),
    'steps',
  );
}

/** The confirming run(s): the longer runs at the answer, with what each measured. */
function confirmSection(result: CapacityResult): string {
  const confirms = result.steps.flatMap((step, index) => (step.phase === 'confirm' ? [[step, index] as const] : []));
  if (confirms.length === 0)
    return section(
      'Confirming run',
      '<p>No confirming run (confirmDuration 0, or the search ended before one).</p>',
      'confirm',
    );
  const rows = confirms.map(([step, index]) => [
    String(index + 1),
    number(step.rate),
    `${number((step.result?.durationMs ?? 0) / 1000)} s`,
    number(step.achievedRate),
    ms(step.p99),
    verdict(step),
  ]);
  return section(
    'Confirming run',
    table(['step', 'rate req/s', 'measured', 'achieved/s', 'p99', 'verdict'], rows, {
      className: 'numbers',
      textColumns: [5],
    }),
    'confirm',
  );
}

function sloText(result: CapacityResult, slo: readonly CompiledThreshold[]): string {
  if (slo.length > 0) return slo.map((t) => `${t.metric} ${t.expression}`).join(', ');
  return JSON.stringify(result.slo);
}

/**
 * An HTML report of a capacity search (`findCapacity`, `salvo capacity --html`): the capacity
 * found, whether a longer run confirmed it, and what limited the search; charts of offered, sent
 * and achieved rate and of p50/p99 per step against the SLO, the failed steps marked (over a
 * streaming endpoint, output tokens/s and TTFT per step against its objective); every step in
 * a table with its verdict and why it failed; the confirming run. One self-contained file.
 */
export function renderCapacityReport(result: CapacityResult): string {
  const slo = objective(result);
  const stream = streamChart(result, slo);
  const charts = [...capacityCharts(result, slo), ...(stream === undefined ? [] : [stream])];
  const found = result.capacity === undefined ? 'none' : `${number(result.capacity)} req/s`;
  const badge =
    result.capacity === undefined
      ? '<span class="badge failed">no capacity found</span>'
      : `<span class="badge ${result.confirmed ? 'passed' : 'aborted'}">${result.confirmed ? 'confirmed' : 'not confirmed'}</span>`;
  const header =
    `<h1>salvo capacity <span class="url">${escapeHtml(result.url)}</span>${badge}</h1>` +
    `<p class="meta">${escapeHtml(`SLO ${sloText(result, slo)} · precision ${number(result.precision * 100)}% · ${result.steps.length} steps in ${number(result.durationMs / 1000)} s${result.aborted ? ' · aborted' : ''}`)}</p>`;
  const body = [
    cards([
      [
        'capacity',
        found,
        result.capacity === undefined ? undefined : result.confirmed ? 'confirmed by a longer run' : 'not confirmed',
      ],
      ['limited by', result.limitedBy],
      ['highest passed', result.highestPassed === undefined ? 'none' : `${number(result.highestPassed)} req/s`],
      [
        'lowest failed',
        result.lowestFailed === undefined ? 'none' : `${number(result.lowestFailed)} req/s`,
        'on the server',
      ],
    ]),
    section('Outcome', `<p id="capacity-message">${escapeHtml(result.message)}</p>`, 'outcome'),
    chartGrid(charts),
    stepsTable(result),
    confirmSection(result),
  ];
  return renderPage({
    title: `salvo capacity: ${result.url}`,
    header,
    body: body.join('\n'),
    charts,
    footer: 'salvo capacity search report',
  });
}
