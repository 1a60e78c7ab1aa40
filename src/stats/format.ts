import {
  type GeneratorStats,
  type LatencyStats,
  type LoadResult,
  type MessageStats,
  type PhaseStats,
  type ServerStats,
  type StreamStats,
  type WebSocketStageStats,
} from '../shared/load-result.js';
import { partTables } from './format-parts.js';
import { rateStagesText, targetRateRange } from './format-rate.js';
import { countsMessages, resultKind } from '../shared/run-kind.js';
import { socketIoExchange, socketIoNothingSent } from './socketio-words.js';
import {
  alignColumns,
  COUNT,
  formatBytes,
  formatDuration,
  formatMs,
  formatPercent,
  plural,
  RATIO,
  row,
  TWO_DECIMALS,
} from './format-numbers.js';
import { checks, thresholds } from './format-thresholds.js';

// The threshold words live in format-thresholds.ts; the gate, the reports and capacity search import them from here.
export { formatThresholdActual, formatThresholdWindows, thresholdLabel } from './format-thresholds.js';

const LATENCY_COLUMNS: ReadonlyArray<[keyof LatencyStats, string]> = [
  ['p50', 'p50'],
  ['p75', 'p75'],
  ['p90', 'p90'],
  ['p99', 'p99'],
  ['p999', 'p99.9'],
  ['mean', 'mean'],
  ['stddev', 'stddev'],
  ['max', 'max'],
];

const PHASE_COLUMNS: ReadonlyArray<keyof PhaseStats> = ['min', 'p50', 'p90', 'p99', 'max', 'mean'];

/**
 * A compact plain-text summary of a run, in the spirit of wrk and autocannon: a header line, the
 * latency table (corrected and uncorrected rows when they differ), requests/s, throughput, totals,
 * status codes, errors, checks and thresholds. No colours, so it can go straight into a log file.
 */
export function formatResult(result: LoadResult): string {
  const lines: string[] = [headerLine(result), '', ...latencyTable(result), '', ...phasesTable(result)];
  const seconds = result.durationMs / 1000;
  const received = result.bytes.received;
  const throughput = row(
    'Throughput',
    `${formatBytes(seconds > 0 ? received / seconds : 0)}/s ` +
      `(${formatBytes(received)} received, ${formatBytes(result.bytes.sent)} sent)`,
  );
  const { messages, websocket } = result;
  const exchange = socketIoExchange(result);
  if (messages !== undefined) {
    lines.push(
      row('Messages/s', TWO_DECIMALS.format(messages.perSecond)),
      throughput,
      ...(exchange === undefined ? [] : [row('Socket.IO', exchange)]),
      row('Messages', messagesLine(result, messages)),
      // A Socket.IO connection counts as opened (101) once its namespace accepted it.
      row(exchange === undefined ? 'Handshakes' : 'Connects', handshakes(result.statusCodes)),
      row('Close codes', statusCodes(websocket?.closeCodes ?? {})),
    );
  } else if (resultKind(result) === 'task') {
    // A task's calls have no bytes and no status: what they did is counted, timed, or an error.
    lines.push(
      row('Calls/s', TWO_DECIMALS.format(result.requests.perSecond)),
      row(
        'Calls',
        `${COUNT.format(result.requests.sent)} sent, ${COUNT.format(result.requests.completed)} completed, ${COUNT.format(result.requests.missed)} missed` +
          (result.requests.unfinished
            ? `, ${COUNT.format(result.requests.unfinished)} unfinished (still running at the end)`
            : '') +
          warmupNote(result),
      ),
    );
  } else {
    lines.push(
      row('Requests/s', TWO_DECIMALS.format(result.requests.perSecond)),
      throughput,
      row(
        'Requests',
        `${COUNT.format(result.requests.sent)} sent, ${COUNT.format(result.requests.completed)} completed, ` +
          `${COUNT.format(result.requests.missed)} missed, ${COUNT.format(result.requests.retried ?? 0)} retried` +
          (result.requests.redirects ? `, ${COUNT.format(result.requests.redirects)} redirects followed` : '') +
          (result.requests.unfinished
            ? `, ${COUNT.format(result.requests.unfinished)} unfinished (${result.stream?.subscriptions !== undefined ? 'subscriptions open at the end' : 'no answer by the end'})`
            : '') +
          warmupNote(result),
      ),
      row('Status codes', statusCodes(result.statusCodes)),
    );
  }
  lines.push(row('Errors', errors(result.errors)), ...errorSamples(result.errors.samples));
  if (messages === undefined && result.failed !== undefined) lines.push(row('Failed', failed(result)));
  if (result.stream !== undefined) lines.push('', ...streamTable(result.stream), ...goodputRow(result), '');
  lines.push(...partTables(result));
  if (websocket?.stages !== undefined) lines.push('', ...stagesTable(websocket.stages), '');
  if (result.generator !== undefined) lines.push(row('Generator', generator(result.generator)));
  if (result.server !== undefined) lines.push(...serverRows(result.server, countsMessages(resultKind(result))));
  if (result.checks !== undefined) lines.push(...checks(result.checks));
  if (result.thresholds !== undefined && result.thresholds.length > 0) {
    lines.push(...thresholds(result.thresholds));
  }
  for (const warning of result.warnings ?? []) lines.push(`Warning ${warning.code}: ${warning.message}`);
  return lines.join('\n');
}

/** The run's warm-up as `2 s warm-up`; undefined without one (or in a result saved without its plan). */
function warmupText(result: LoadResult): string | undefined {
  const warmupMs = result.merge?.plan?.warmupMs ?? 0;
  return warmupMs > 0 ? `${RATIO.format(warmupMs / 1000)} s warm-up` : undefined;
}

/** The warm-up's requests, which are in no other count. */
function warmupNote(result: LoadResult): string {
  const { warmup } = result.requests;
  if (warmup === undefined) return '';
  return `; ${COUNT.format(warmup)} more sent in the ${warmupText(result) ?? 'warm-up'}, not measured`;
}

function headerLine(result: LoadResult): string {
  const messages = result.messages !== undefined;
  const task = resultKind(result) === 'task';
  const noun = messages ? 'client' : 'connection';
  const most = Math.max(...(result.merge?.plan?.stages ?? []).map((stage) => stage.connections ?? 0));
  const parts = task
    ? [`concurrency ${COUNT.format(result.connections)}`]
    : [
        `transport ${result.transport}`,
        most > result.connections
          ? `${COUNT.format(result.connections)} to ${plural(most, noun)} in stages`
          : plural(result.connections, noun),
      ];
  // Requests in flight per connection, in the protocol's words.
  const depth = result.merge?.plan?.pipelining ?? 1;
  if (depth > 1)
    parts.push(
      result.transport === 'h2' ? `${COUNT.format(depth)} streams per connection` : `pipelining ${COUNT.format(depth)}`,
    );
  const warmup = warmupText(result);
  parts.push(
    plural(result.workers, 'worker'),
    `${formatDuration(result.durationMs)}${warmup === undefined ? '' : ` after a ${warmup}`}`,
  );
  const range = targetRateRange(result);
  const stages = rateStagesText(result);
  const unit = task ? 'calls/s' : messages ? 'msg/s' : 'req/s';
  if (stages !== undefined) parts.push(`rate ${stages.replaceAll('/s', ` ${unit}`)}`);
  else if (range !== undefined)
    parts.push(
      range[0] === range[1]
        ? `rate ${COUNT.format(range[0])} ${unit}`
        : `rate ${COUNT.format(range[0])} to ${COUNT.format(range[1])} ${unit} in stages`,
    );
  if (result.aborted) parts.push('aborted');
  return `${result.url}: ${parts.join(', ')}`;
}

/** Why a run has no latency, in its own words: no response, or messages none of which was timed. */
export function noLatencyReason(result: LoadResult): string {
  if (result.messages !== undefined && result.messages.received > 0) {
    return `none of the ${COUNT.format(result.messages.received)} messages received was timed (see warning NOT_TIMED)`;
  }
  const subscriptions = result.stream?.subscriptions;
  if (subscriptions !== undefined && subscriptions.open > 0) {
    return `no subscription ended: ${COUNT.format(subscriptions.open)} held open to the end, ${COUNT.format(result.stream!.events)} events received (see Stream)`;
  }
  return result.messages !== undefined ? 'no messages received' : 'no responses';
}

function latencyTable(result: LoadResult): string[] {
  if (!(result.latency.count > 0) && !(result.latency.p50 > 0)) return [row('Latency', noLatencyReason(result))];
  const rows: string[][] = [['Latency (ms)', ...LATENCY_COLUMNS.map(([, title]) => title)]];
  const cells = (stats: LatencyStats): string[] => LATENCY_COLUMNS.map(([key]) => formatMs(stats[key]));
  // Closed-loop runs measure both from the actual write, so a second row would only repeat the first.
  const differs = LATENCY_COLUMNS.some(([key]) => result.latency[key] !== result.latencyUncorrected[key]);
  if (result.rate !== undefined || differs) {
    rows.push(['corrected', ...cells(result.latency)], ['uncorrected', ...cells(result.latencyUncorrected)]);
  } else {
    rows.push(['latency', ...cells(result.latency)]);
  }
  return alignColumns(rows);
}

/** The phases measured (a phase never measured, such as tls on http:, is left out), then a blank line. */
function phasesTable(result: LoadResult): string[] {
  const phases =
    result.phases === undefined ? [] : Object.entries(result.phases).filter(([, stats]) => stats.count > 0);
  if (phases.length === 0) return [];
  const rows: string[][] = [['Phases (ms)', 'count', ...PHASE_COLUMNS]];
  for (const [name, stats] of phases)
    rows.push([name, COUNT.format(stats.count), ...PHASE_COLUMNS.map((key) => formatMs(stats[key]))]);
  return [...alignColumns(rows), ''];
}

const STREAM_ROWS: ReadonlyArray<[keyof StreamStats, string]> = [
  ['firstEvent', 'first event'],
  ['gap', 'gap'],
  ['duration', 'duration'],
  ['delivery', 'delivery'],
  ['ttft', 'TTFT'],
  ['answerTtft', 'answer TTFT'],
  ['itl', 'ITL'],
  ['tpot', 'TPOT'],
];

/** `result.goodput`: the streams that met every objective of `slo`. */
function goodputRow({ goodput }: LoadResult): string[] {
  if (goodput === undefined) return [];
  const slo = Object.entries(goodput.slo).map(([name, ms]) => `${name} <= ${String(ms)} ms`);
  const share = `${TWO_DECIMALS.format(goodput.rate * 100)}% of the streams`;
  return [
    row(
      'Goodput',
      `${COUNT.format(goodput.requests)} (${share}), ${TWO_DECIMALS.format(goodput.perSecond)}/s; ${slo.join(', ')}`,
    ),
  ];
}

/** `result.stream`: its figures' distributions, then its counts and rates. */
function streamTable(stream: StreamStats): string[] {
  const rows: string[][] = [[`Stream ${stream.format} (ms)`, ...LATENCY_COLUMNS.map(([, title]) => title)]];
  for (const [key, title] of STREAM_ROWS) {
    const stats = stream[key] as LatencyStats | undefined;
    if (stats !== undefined && (key !== 'answerTtft' || (stream.reasoningTokens ?? 0) > 0))
      rows.push([title, ...LATENCY_COLUMNS.map(([column]) => formatMs(stats[column]))]);
  }
  const lines = [
    ...alignColumns(rows),
    row(
      'Events',
      `${COUNT.format(stream.events)}, ${TWO_DECIMALS.format(stream.perSecond)}/s; ${COUNT.format(stream.streams)} streams ended (${TWO_DECIMALS.format(stream.eventsPerStream)} events each), ${COUNT.format(stream.ended)} by until`,
    ),
  ];
  if (stream.outputTokens !== undefined) {
    lines.push(
      row(
        'Tokens',
        `${COUNT.format(stream.outputTokens)} output tokens, ${TWO_DECIMALS.format(stream.outputTokensPerSecond ?? 0)}/s, ${TWO_DECIMALS.format(stream.outputTokensPerStream ?? 0)} per ended stream${(stream.reasoningTokens ?? 0) > 0 ? `, ${COUNT.format(stream.reasoningTokens!)} reasoning` : ''}${(stream.usageStreams ?? 0) > 0 ? `; the server's usage: ${COUNT.format(stream.usageStreams!)} streams, ${TWO_DECIMALS.format(stream.inputTokensPerStream ?? 0)} input tokens each` : ''}`,
      ),
    );
  }
  const subscriptions = stream.subscriptions;
  if (subscriptions !== undefined) {
    const closes = Object.entries(subscriptions.closes).map(([cause, count]) => `${cause} ${COUNT.format(count)}`);
    lines.push(
      row(
        'Subscriptions',
        `${COUNT.format(subscriptions.open)} open, ${COUNT.format(subscriptions.subscribed)} subscribed, ${COUNT.format(subscriptions.reconnects)} reconnects` +
          (closes.length > 0 ? `; closed: ${closes.join(', ')}` : ''),
      ),
    );
    // Its stages' p50 and p99 are the events' delivery times (none without `timestamp`).
    if (subscriptions.stages !== undefined) lines.push('', ...stagesTable(subscriptions.stages, 'events/s'));
  }
  return lines;
}

/** A WebSocket run's (or SSE subscriptions') connection stages, one row each. */
function stagesTable(stages: readonly WebSocketStageStats[], rate = 'msg/s'): string[] {
  const rows: string[][] = [['Stage', 'connections', 'open', rate, 'p50 (ms)', 'p99 (ms)']];
  for (const stage of stages) {
    rows.push([
      `${stage.stage} (${formatDuration(stage.durationMs)})`,
      COUNT.format(stage.connections),
      COUNT.format(stage.open),
      TWO_DECIMALS.format(stage.perSecond),
      formatMs(stage.p50),
      formatMs(stage.p99),
    ]);
  }
  return alignColumns(rows);
}

function generator(stats: GeneratorStats): string {
  const parts = [
    `CPU ${formatPercent(stats.cpuPercent)} of a core`,
    `event loop ${formatPercent(stats.eventLoopUtilization * 100)} busy`,
    `delay p99 ${formatMs(stats.eventLoopDelayP99Ms)} ms`,
  ];
  const lag = stats.sendLag;
  if (lag !== undefined)
    parts.push(`send lag p50 ${formatMs(lag.p50)} / p99 ${formatMs(lag.p99)} / max ${formatMs(lag.max)} ms`);
  if (stats.saturated) parts.push('SATURATED');
  if (stats.prewarm !== undefined)
    parts.push(
      `pre-warmed in ${COUNT.format(stats.prewarm.durationMs)} ms (CPU ${COUNT.format(stats.prewarm.cpuMs)} ms, ${COUNT.format(stats.prewarm.requests)} requests to a loopback server)`,
    );
  return parts.join(', ');
}

/**
 * `monitor`'s findings: the processes as `Server`, the machine (node_exporter) as `Machine`, never one
 * for the other; what no source gave is left out; sources that failed or repeat a process are named.
 */
function serverRows(stats: ServerStats, messages: boolean): string[] {
  const parts: string[] = [];
  if (stats.cpuPercent !== undefined) parts.push(`CPU ${formatPercent(stats.cpuPercent)} of a core`);
  if (stats.cpuPerRequestMs !== undefined)
    parts.push(`${formatMs(stats.cpuPerRequestMs)} ms CPU per ${messages ? 'message' : 'request'}`);
  if (stats.memory !== undefined)
    parts.push(`RSS ${formatBytes(stats.memory.rssBytes)} (peak ${formatBytes(stats.memory.peakRssBytes)})`);
  if (stats.eventLoopLagMs !== undefined) parts.push(`event-loop lag up to ${formatMs(stats.eventLoopLagMs)} ms`);
  const machine: string[] = [];
  const { cpuPercent, cores, memory, network } = stats.machine ?? {};
  if (cpuPercent !== undefined)
    machine.push(
      `CPU ${formatPercent(cpuPercent)} of a core${cores === undefined ? '' : ` (${cores} core${cores === 1 ? '' : 's'})`}`,
    );
  if (memory !== undefined)
    machine.push(`memory in use ${formatBytes(memory.usedBytes)} (peak ${formatBytes(memory.peakUsedBytes)})`);
  if (network !== undefined)
    machine.push(
      `network in ${formatBytes(network.receivedBytesPerSecond)}/s, out ${formatBytes(network.sentBytesPerSecond)}/s (the monitor's scrapes left out)`,
    );
  const notes = [
    ...stats.sources.filter((source) => !source.answered).map((source) => `not always answering: ${source.source}`),
    ...stats.sources
      .filter((source) => source.sameProcessAs !== undefined)
      .map((source) => `${source.source} is ${source.sameProcessAs}'s process, counted once`),
  ];
  const processes = stats.sources.some((source) => source.scope === 'process');
  const rows: string[] = [];
  if (processes) rows.push(row('Server', [...parts, ...notes].join(', ') || 'no source answered'));
  if (stats.machine !== undefined || stats.sources.some((source) => source.scope === 'machine')) {
    rows.push(row('Machine', [...machine, ...(processes ? [] : notes)].join(', ') || 'no source answered'));
  }
  if (rows.length === 0) rows.push(row('Server', notes.join(', ') || 'no source answered'));
  return rows;
}

function statusCodes(codes: Record<string, number>): string {
  const entries = Object.entries(codes).sort(([a], [b]) => Number(a) - Number(b));
  if (entries.length === 0) return 'none';
  return entries.map(([code, count]) => `${code}: ${COUNT.format(count)}`).join('  ');
}

/** What a message run sent and received; "listen only" only when it was meant to send nothing. */
function messagesLine(result: LoadResult, messages: MessageStats): string {
  if (messages.sent > 0) return `${COUNT.format(messages.sent)} sent, ${COUNT.format(messages.received)} received`;
  return `${COUNT.format(messages.received)} received (${socketIoNothingSent(result) ?? 'listen only: none sent'})`;
}

/** A message protocol's opening handshakes: `101` accepted them, any other code refused them. */
function handshakes(codes: Record<string, number>): string {
  const accepted = codes['101'] ?? 0;
  const refused = Object.entries(codes).filter(([code]) => code !== '101');
  return refused.length === 0
    ? `${COUNT.format(accepted)} accepted (101)`
    : `${COUNT.format(accepted)} accepted (101), refused ${statusCodes(Object.fromEntries(refused))}`;
}

function errors(errors: LoadResult['errors']): string {
  if (errors.total === 0) return '0';
  const byCode = Object.entries(errors.byCode)
    .sort(([, a], [, b]) => b - a)
    .map(([code, count]) => `${code} ${COUNT.format(count)}`);
  return `${COUNT.format(errors.total)} (${byCode.join(', ')})`;
}

/** Exceptions from the user's hooks, under the errors: where, what, how often, and the top of the stack. */
function errorSamples(samples: LoadResult['errors']['samples']): string[] {
  const lines: string[] = [];
  for (const sample of samples ?? []) {
    lines.push(`  ✗ ${sample.where ?? sample.code}: ${sample.message}`);
    for (const frame of sample.stack?.split('\n') ?? []) lines.push(`      ${frame.trim()}`);
  }
  return lines;
}

/** Failed requests beside errors: how many of the requests that ended, and which statuses. */
function failed(result: LoadResult): string {
  const { total, byStatus } = result.failed;
  if (total === 0) return '0';
  const ended = result.requests.completed + result.errors.total;
  const parts = Object.entries(byStatus)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, count]) => `status ${status} ${COUNT.format(count)}`);
  if (result.errors.total > 0) parts.push(`errors ${COUNT.format(result.errors.total)}`);
  return `${COUNT.format(total)} of ${COUNT.format(ended)} (${TWO_DECIMALS.format((total / ended) * 100)}%: ${parts.join(', ')})`;
}
