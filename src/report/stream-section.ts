import type { LatencyStats, LoadResult, StreamStats, TimelineEntry } from '../shared/load-result.js';
import { COLORS, type ChartSeries, type ChartSpec } from './chart-spec.js';
import { partialLastSecond, spectraChart, timedLatency, timelineX } from './charts.js';
import { cards, escapeHtml, ms, number, section, table } from './html.js';

/** A streamed run's `result.stream`, when the result (maybe read back from JSON) has one. */
function streamOf(result: LoadResult): StreamStats | undefined {
  const stream = (result as { stream?: unknown }).stream;
  return typeof stream === 'object' && stream !== null && typeof (stream as StreamStats).events === 'number'
    ? (stream as StreamStats)
    : undefined;
}

const tokensOf = (stream: StreamStats): boolean => stream.ttft !== undefined && stream.ttft !== null;

/** The headline numbers of the streams: time to first event (or token), the gaps (or ITL), events (or tokens) per second. */
export function streamCards(result: LoadResult): string {
  const stream = streamOf(result);
  if (stream === undefined) return '';
  const timed = (
    label: string,
    stats: LatencyStats | undefined,
    stat: 'p50' | 'p99',
    other: 'p50' | 'p99',
  ): [string, string, string] => [label, ms(stats?.[stat]), `${other} ${ms(stats?.[other])}`];
  const first = timed('first event p99', stream.firstEvent, 'p99', 'p50');
  const subscriptions = stream.subscriptions;
  if (subscriptions != null) {
    return cards([
      ['events/s', number(stream.perSecond), `${number(stream.events)} events`],
      ...(stream.delivery != null ? [timed('delivery p99', stream.delivery, 'p99', 'p50')] : []),
      [
        'subscriptions open',
        number(subscriptions.open),
        `${number(subscriptions.subscribed)} accepted, ${number(subscriptions.reconnects)} reconnections`,
      ],
      first,
      timed('gap p50', stream.gap, 'p50', 'p99'),
    ]);
  }
  if (!tokensOf(stream)) {
    return cards([
      first,
      timed('gap p50', stream.gap, 'p50', 'p99'),
      ['events/s', number(stream.perSecond), `${number(stream.eventsPerStream)} per ended stream`],
      ['streams', number(stream.streams), `${number(stream.events)} events`],
    ]);
  }
  const goodput = result.goodput;
  return cards([
    ...(goodput != null
      ? [
          [
            'goodput/s',
            number(goodput.perSecond),
            `${number(goodput.requests)} of ${number(stream.streams)} met the SLO`,
          ] as [string, string, string],
        ]
      : []),
    timed('TTFT p99', stream.ttft, 'p99', 'p50'),
    timed('ITL p50', stream.itl, 'p50', 'p99'),
    [
      'output tokens/s',
      number(stream.outputTokensPerSecond),
      `${number(stream.outputTokensPerStream)} per ended stream`,
    ],
    first,
    ['streams', number(stream.streams), `${number(stream.events)} events`],
  ]);
}

const FIELDS: ReadonlyArray<keyof LatencyStats> = ['min', 'p50', 'p75', 'p90', 'p99', 'p999', 'max', 'mean'];
const FIGURES: ReadonlyArray<[keyof StreamStats, string]> = [
  ['firstEvent', 'first event'],
  ['gap', 'gap'],
  ['duration', 'duration'],
  ['delivery', 'delivery'],
  ['ttft', 'TTFT'],
  ['itl', 'ITL'],
  ['tpot', 'TPOT'],
];

/** `result.stream` as a table, figure by figure, with its counts. */
export function streamSection(result: LoadResult): string {
  const stream = streamOf(result);
  if (stream === undefined) return '';
  const rows = FIGURES.flatMap(([key, label]) => {
    const stats = stream[key] as LatencyStats | undefined | null;
    return typeof stats === 'object' && stats !== null ? [[label, ...FIELDS.map((field) => ms(stats[field]))]] : [];
  });
  const head = [
    '<span class="visually-hidden">figure</span>',
    ...FIELDS.map((field) => (field === 'p999' ? 'p99.9' : field)),
  ];
  const subscriptions = stream.subscriptions;
  const closes = Object.entries(subscriptions?.closes ?? {}).map(([cause, count]) => `${number(count)} ${cause}`);
  const counts = [
    `${number(stream.events)} events (${number(stream.perSecond)}/s)`,
    subscriptions != null
      ? `${number(subscriptions.subscribed)} subscriptions accepted, ${number(subscriptions.open)} open at the end, ${number(subscriptions.reconnects)} reconnections${closes.length > 0 ? `, closes: ${closes.join(', ')}` : ''}`
      : `${number(stream.streams)} streams ended (${number(stream.eventsPerStream)} events each), ${number(stream.ended)} by until`,
    ...(tokensOf(stream)
      ? [
          `${number(stream.outputTokens)} output tokens (${number(stream.outputTokensPerSecond)}/s, ${number(stream.outputTokensPerStream)} per ended stream)`,
        ]
      : []),
  ];
  return section(
    `Streams (${stream.format})`,
    `<p class="meta" id="stream-counts">${escapeHtml(counts.join('; '))}</p>${table(head, rows, { className: 'numbers', id: 'stream-table' })}`,
    'stream',
  );
}

/**
 * The streams' charts: events (and output tokens) per second with the time to first event (and
 * TTFT) p99 of each second on the right axis; the first event's and the gaps' spectra (TTFT and ITL
 * beside them), from the histograms in `merge.stream`.
 */
export function streamCharts(result: LoadResult): ChartSpec[] {
  const stream = streamOf(result);
  if (stream === undefined) return [];
  const tokens = tokensOf(stream);
  const charts: ChartSpec[] = [];
  const timeline = result.timeline ?? [];
  if (timeline.length >= 2) {
    const share = partialLastSecond(result) ?? 1;
    const perSecond = (read: (entry: TimelineEntry) => number | undefined) =>
      timeline.map((entry, i) => {
        const value = read(entry);
        return typeof value === 'number' ? (i === timeline.length - 1 ? value / share : value) : null;
      });
    // A second in which no stream began has no first event: a gap, not 0.
    const latency = (read: (entry: TimelineEntry) => number | null | undefined) =>
      timeline.map((entry) => timedLatency(read(entry) ?? null, entry.stream?.events ?? 0));
    const series: ChartSeries[] = [
      { label: 'events', color: COLORS.blue, scale: 'y', values: perSecond((e) => e.stream?.events), unit: '/s' },
    ];
    if (tokens)
      series.push({
        label: 'output tokens',
        color: COLORS.green,
        scale: 'y',
        values: perSecond((e) => e.stream?.outputTokens),
        unit: '/s',
      });
    // With slo: each second's goodput, the answers that ended in it having met every objective.
    if (result.goodput !== undefined)
      series.push({
        label: 'goodput',
        color: COLORS.purple,
        scale: 'y',
        values: perSecond((e) => e.stream?.good),
        unit: '/s',
      });
    series.push({
      label: 'first event p99',
      color: COLORS.orange,
      scale: 'y2',
      values: latency((e) => e.stream?.firstEventP99),
      unit: ' ms',
    });
    if (tokens)
      series.push({
        label: 'TTFT p99',
        color: COLORS.red,
        scale: 'y2',
        values: latency((e) => e.stream?.ttftP99),
        unit: ' ms',
        dash: [4, 4],
      });
    charts.push({
      id: 'chart-stream',
      title: tokens
        ? 'Events and output tokens per second, time to first token'
        : 'Events per second and time to first event',
      xKind: 'seconds',
      x: timelineX(result),
      yLabel: 'per second',
      y2Label: 'ms',
      series,
    });
  }
  const histograms = result.merge?.stream?.histograms;
  const first = spectraChart(
    'chart-stream-first-event',
    tokens ? 'Time to first event and first token by percentile' : 'Time to first event by percentile',
    [
      { label: 'first event', color: COLORS.blue, histogram: histograms?.firstEvent },
      ...(tokens ? [{ label: 'TTFT', color: COLORS.orange, histogram: histograms?.ttft, dash: [4, 4] }] : []),
    ],
  );
  const gap = spectraChart(
    'chart-stream-gap',
    tokens ? 'Gaps between events and tokens by percentile' : 'Gaps between events by percentile',
    [
      { label: 'gap', color: COLORS.blue, histogram: histograms?.gap },
      ...(tokens ? [{ label: 'ITL', color: COLORS.orange, histogram: histograms?.itl, dash: [4, 4] }] : []),
    ],
  );
  for (const chart of [first, gap]) if (chart !== undefined) charts.push(chart);
  return charts;
}
