// The metrics thresholds (and comparisons) can name, and how each is read from a result or from the
// partial counts of a running test.
import type { LatencyStats, LoadResult } from '../shared/load-result.js';
import { scoped, splitScope } from './threshold-scope.js';

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/**
 * What `cannotPass` reads during a run: any part of a `LoadResult`, counting measured requests only
 * (no warm-up). Fields left out are treated as unknown, never as zero.
 */
export type PartialLoadResult = DeepPartial<LoadResult>;

const LATENCY_STATS: ReadonlyArray<keyof LatencyStats> = [
  'min',
  'mean',
  'stddev',
  'max',
  'p50',
  'p75',
  'p90',
  'p95',
  'p99',
  'p999',
];

/** What `monitor` adds to a result (`result.server`), as metric paths. */
const SERVER_METRICS = [
  'server.cpuPercent',
  'server.cpuPerRequestMs',
  'server.memory.rssBytes',
  'server.memory.peakRssBytes',
  'server.eventLoopLagMs',
  'server.machine.cpuPercent',
  'server.machine.memory.usedBytes',
  'server.machine.memory.peakUsedBytes',
  'server.machine.network.receivedBytesPerSecond',
  'server.machine.network.sentBytesPerSecond',
] as const;

/** Metric paths of 0.x, renamed for 1.0: a threshold naming one is told the new name. */
export const RENAMED_METRICS: Record<string, string> = {
  'server.cpuPerRequest': 'server.cpuPerRequestMs',
  'server.network.receivedBytesPerSecond': 'server.machine.network.receivedBytesPerSecond',
  'server.network.sentBytesPerSecond': 'server.machine.network.sentBytesPerSecond',
};

/** `result.stream`'s latency-shaped figures, its counts (never decreasing) and its rates. */
const STREAM_FIGURES = ['firstEvent', 'gap', 'duration', 'delivery', 'ttft', 'answerTtft', 'itl', 'tpot'] as const;

const STREAM_COUNTS = [
  'streams',
  'ended',
  'events',
  'outputTokens',
  'reasoningTokens',
  'inputTokens',
  'usageStreams',
] as const;

const STREAM_RATES = [
  'perSecond',
  'eventsPerStream',
  'outputTokensPerSecond',
  'outputTokensPerStream',
  'inputTokensPerStream',
] as const;

/** `stream.subscriptions.<count>`: `open` is a level, the others only grow. */
const SUBSCRIPTION_COUNTS = ['subscribed', 'open', 'reconnects'] as const;

export const KNOWN_METRICS =
  `latency.<stat> and latencyUncorrected.<stat> (stat: ${LATENCY_STATS.join(', ')}), ` +
  'requests.sent, requests.completed, requests.perSecond, requests.missed, requests.retried, requests.unfinished, bytes.sent, ' +
  'bytes.received, failed.total, failed.rate, errors.total, errors.rate, errors.byCode.<CODE>, statusCodes.<code>, ' +
  'statusCodes.<n>xx, checks.passed, checks.failed, checks.rate, messages.sent, messages.received, messages.perSecond ' +
  `(WebSocket), goodput.requests, goodput.perSecond, goodput.rate (slo), durationMs, ${SERVER_METRICS.join(', ')} (monitor); ` +
  'any but the server ones for one request name or scenario: latency.p99{name:checkout}, errors.rate{scenario:browse}';

export interface MetricReader {
  monotone: boolean;
  read: (result: PartialLoadResult) => number | undefined;
}

/** Whether `path` names a metric that thresholds (and comparisons) can read: `'latency.p99'`, `'errors.byCode.TIMEOUT'`. */
export function isMetric(path: string): boolean {
  return metricReader(path) !== undefined;
}

/** The reader for a metric path, or undefined when the path names no metric. */
export function metricReader(metric: string): MetricReader | undefined {
  const split = splitScope(metric);
  if (split?.scope !== undefined) {
    const { scope } = split;
    // The server is the run's, not a name's or a scenario's.
    const base = split.metric.startsWith('server.') ? undefined : metricReader(split.metric);
    if (base === undefined) return undefined;
    return {
      monotone: base.monotone,
      read: (r) => {
        const part = scoped(r, scope);
        return part === undefined ? undefined : base.read(part);
      },
    };
  }
  if (split === undefined) return undefined;
  if ((SERVER_METRICS as readonly string[]).includes(metric)) {
    // A figure no source gave is absent from the result: it fails a threshold, never passes as 0.
    const path = metric.split('.').slice(1);
    return {
      monotone: false,
      read: (r) =>
        path.reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], r.server) as
          number | undefined,
    };
  }
  const [group, field, extra] = metric.split('.', 4);
  if (field === undefined || (extra !== undefined && group !== 'errors' && group !== 'stream')) {
    return metric === 'durationMs' ? { monotone: false, read: (r) => r.durationMs } : undefined;
  }
  switch (group) {
    case 'latency':
    case 'latencyUncorrected': {
      const stat = LATENCY_STATS.find((s) => s === field);
      if (stat === undefined) return undefined;
      // max only grows as samples are added; min shrinks but reads 0 before the first sample.
      return {
        monotone: stat === 'max',
        read: (r) => {
          // Nothing timed reads NaN in memory and null from JSON: "no data", never a pass.
          const value = r[group]?.[stat] as number | null | undefined;
          return measuredNothing(r) || r[group]?.count === 0 || value === null ? Number.NaN : value;
        },
      };
    }
    case 'requests':
      if (field === 'perSecond') return { monotone: false, read: (r) => r.requests?.perSecond };
      if (
        field === 'sent' ||
        field === 'completed' ||
        field === 'missed' ||
        field === 'retried' ||
        field === 'unfinished'
      ) {
        return { monotone: true, read: (r) => r.requests?.[field] };
      }
      return undefined;
    case 'messages':
      if (field === 'perSecond') return { monotone: false, read: (r) => r.messages?.perSecond };
      if (field === 'sent' || field === 'received') return { monotone: true, read: (r) => r.messages?.[field] };
      return undefined;
    case 'bytes':
      if (field !== 'sent' && field !== 'received') return undefined;
      return { monotone: true, read: (r) => r.bytes?.[field] };
    case 'errors':
      return errorsReader(field, extra, metric);
    case 'failed':
      if (field === 'total') return { monotone: true, read: (r) => r.failed?.total };
      // Over the requests that ended (responses and errors), as errors.rate: k6's http_req_failed.
      if (field === 'rate')
        return { monotone: false, read: (r) => ratio(r.failed?.total, r.errors?.total, r.requests?.completed) };
      return undefined;
    case 'stream':
      return streamReader(field, extra);
    case 'goodput':
      // Absent without `slo`: a threshold on it fails, saying so, rather than passing as 0.
      if (field === 'requests') return { monotone: true, read: (r) => r.goodput?.requests };
      if (field === 'perSecond' || field === 'rate') return { monotone: false, read: (r) => r.goodput?.[field] };
      return undefined;
    case 'statusCodes':
      return statusReader(field);
    case 'checks':
      if (field === 'rate') {
        return {
          monotone: false,
          read: (r) => {
            const checks = r.checks;
            if (checks?.passed === undefined || checks.failed === undefined) return undefined;
            const total = checks.passed + checks.failed;
            return total === 0 ? Number.NaN : checks.passed / total;
          },
        };
      }
      if (field !== 'passed' && field !== 'failed') return undefined;
      return { monotone: true, read: (r) => r.checks?.[field] };
    default:
      return undefined;
  }
}

/**
 * No response and no message came: the latency fields read 0, which would pass any upper bound, but
 * a latency over no samples proves nothing (a server refusing every connection).
 */
function measuredNothing(r: PartialLoadResult): boolean {
  return r.requests?.completed === 0 && (r.messages?.received ?? 0) === 0;
}

/** A figure no stream gave (no `tokens`, no event) is absent or NaN: it fails a threshold, never passes as 0. */
function streamReader(field: string, stat: string | undefined): MetricReader | undefined {
  if (field === 'subscriptions') {
    const count = SUBSCRIPTION_COUNTS.find((c) => c === stat);
    return count === undefined
      ? undefined
      : { monotone: count !== 'open', read: (r) => r.stream?.subscriptions?.[count] };
  }
  if (stat === undefined) {
    const count = STREAM_COUNTS.find((c) => c === field);
    if (count !== undefined) return { monotone: true, read: (r) => r.stream?.[count] };
    const rate = STREAM_RATES.find((c) => c === field);
    return rate === undefined ? undefined : { monotone: false, read: (r) => r.stream?.[rate] };
  }
  const figure = STREAM_FIGURES.find((f) => f === field);
  const latencyStat = LATENCY_STATS.find((s) => s === stat);
  if (figure === undefined || latencyStat === undefined) return undefined;
  const count =
    figure === 'gap' || figure === 'itl'
      ? undefined
      : figure === 'ttft' || figure === 'answerTtft' || figure === 'tpot'
        ? 'outputTokens'
        : 'events';
  return {
    monotone: latencyStat === 'max',
    read: (r) => {
      const stream = r.stream;
      if (stream === undefined || stream[figure] === undefined) return undefined;
      // No sample: the figure reads 0, which would pass any upper bound.
      if (count !== undefined && stream[count] === 0) return Number.NaN;
      return stream[figure]?.[latencyStat];
    },
  };
}

function errorsReader(field: string, extra: string | undefined, metric: string): MetricReader | undefined {
  if (extra === undefined) {
    if (field === 'total') return { monotone: true, read: (r) => r.errors?.total };
    if (field !== 'rate') return undefined;
    return {
      monotone: false,
      read: (r) => ratio(r.errors?.total, r.errors?.total, r.requests?.completed),
    };
  }
  const code = metric.slice('errors.byCode.'.length);
  if (field !== 'byCode' || !/^[A-Za-z0-9_]+$/.test(code)) return undefined;
  // A code that never occurred is absent from byCode: it counts zero.
  return {
    monotone: true,
    read: (r) => (r.errors?.byCode === undefined ? undefined : (r.errors.byCode[code] ?? 0)),
  };
}

/** `count` over the requests that ended (`errors` + `completed`); NaN over none, undefined when a part is unknown. */
function ratio(
  count: number | undefined,
  errors: number | undefined,
  completed: number | undefined,
): number | undefined {
  if (count === undefined || errors === undefined || completed === undefined) return undefined;
  return errors + completed === 0 ? Number.NaN : count / (errors + completed);
}

function statusReader(field: string): MetricReader | undefined {
  if (/^[1-5]\d\d$/.test(field)) {
    return {
      monotone: true,
      read: (r) => (r.statusCodes === undefined ? undefined : (r.statusCodes[field] ?? 0)),
    };
  }
  const statusClass = /^([1-5])xx$/.exec(field);
  if (statusClass === null) return undefined;
  const first = statusClass[1]!;
  return {
    monotone: true,
    read: (r) => {
      if (r.statusCodes === undefined) return undefined;
      let sum = 0;
      for (const [code, count] of Object.entries(r.statusCodes)) {
        if (code.length === 3 && code[0] === first) sum += count ?? 0;
      }
      return sum;
    },
  };
}
