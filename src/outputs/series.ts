import type { RunningTotals, SecondSummary } from '../stats/recorder.js';
import type { LoadResult, ServerSecond } from '../shared/load-result.js';

/**
 * One sample of one of salvo's series, before the output adds its own labels (`testid`, `segment`,
 * the user's). Names follow Prometheus conventions: base units, `_total` for counters, `_ratio` for 0..1.
 */
export interface Point {
  name: string;
  /** The series' own label, when it has one (`status`, `code`, `quantile`). */
  label?: readonly [name: string, value: string];
  value: number;
}

/** What decides the series a run has: HTTP requests, or messages (WebSocket and Socket.IO); streams, with tokens and timestamps or not. */
export interface SeriesKind {
  messages: boolean;
  /** A task run: its calls have no status, so completed calls are a series of their own. */
  calls?: boolean;
  stream?: { tokens: boolean; delivery: boolean; goodput?: boolean };
}

/** The cumulative counters: live from the running totals, at the end from the merged result. */
function counters(
  kind: SeriesKind,
  { sent, completed, retried, statusCodes, errorsByCode, failed }: Omit<RunningTotals, 'errors'>,
): Point[] {
  const points: Point[] = kind.messages
    ? [
        { name: 'salvo_messages_sent_total', value: sent },
        { name: 'salvo_messages_received_total', value: completed },
      ]
    : [
        { name: 'salvo_requests_sent_total', value: sent },
        { name: 'salvo_requests_retried_total', value: retried },
        // k6's http_req_failed: errors and the statuses the run does not accept.
        { name: 'salvo_requests_failed_total', value: failed },
        ...Object.entries(statusCodes).map(([status, count]): Point => ({
          name: 'salvo_responses_total',
          label: ['status', status],
          value: count,
        })),
      ];
  if (kind.calls === true) points.push({ name: 'salvo_calls_completed_total', value: completed });
  for (const [code, count] of Object.entries(errorsByCode))
    points.push({ name: 'salvo_errors_total', label: ['code', code], value: count });
  return points;
}

/** Whether `point` is a counter (`_total`): one that `increase()` and `rate()` read from a zero before it. */
export function isCounter(point: Point): boolean {
  return point.name.endsWith('_total');
}

/** The samples of one closed second of the whole run (all workers). */
export function secondPoints(
  kind: SeriesKind,
  summary: Omit<SecondSummary, 'histogram'>,
  totals: RunningTotals,
): Point[] {
  const points = counters(kind, totals);
  // A second with nothing timed has no latency to show (0 would read as instant responses).
  if (summary.p99 > 0) {
    points.push(
      { name: 'salvo_latency_seconds', label: ['quantile', '0.5'], value: summary.p50 / 1000 },
      { name: 'salvo_latency_seconds', label: ['quantile', '0.9'], value: summary.p90 / 1000 },
      { name: 'salvo_latency_seconds', label: ['quantile', '0.99'], value: summary.p99 / 1000 },
    );
  }
  points.push(
    { name: 'salvo_connections_open', value: summary.connections },
    { name: 'salvo_generator_cpu_ratio', value: summary.cpuPercent / 100 },
  );
  if (summary.targetRate !== undefined)
    points.push({ name: 'salvo_target_rate_per_second', value: summary.targetRate });
  return points;
}

/** The final totals, from the merged result: what makes the counters exact once the run is over. */
export function resultPoints(kind: SeriesKind, result: LoadResult): Point[] {
  const { sent, completed, retried } = result.requests;
  return counters(kind, {
    sent,
    completed,
    retried,
    statusCodes: result.statusCodes,
    errorsByCode: result.errors.byCode,
    failed: result.failed.total,
  });
}

/** The server's second, from `monitor` (each field only when a source reports it): the processes as `salvo_server_*`, node_exporter as `salvo_machine_*`. */
export function serverPoints(server: ServerSecond): Point[] {
  const points: Point[] = [];
  const add = (name: string, value: number | undefined) => value !== undefined && points.push({ name, value });
  add('salvo_server_cpu_ratio', server.cpuPercent === undefined ? undefined : server.cpuPercent / 100);
  add('salvo_server_memory_bytes', server.rssBytes);
  add(
    'salvo_server_event_loop_lag_seconds',
    server.eventLoopLagMs === undefined ? undefined : server.eventLoopLagMs / 1000,
  );
  const machine = server.machine ?? {};
  add('salvo_machine_cpu_ratio', machine.cpuPercent === undefined ? undefined : machine.cpuPercent / 100);
  add('salvo_machine_memory_used_bytes', machine.usedBytes);
  add('salvo_machine_network_receive_bytes_per_second', machine.receivedBytesPerSecond);
  add('salvo_machine_network_transmit_bytes_per_second', machine.sentBytesPerSecond);
  return points;
}
