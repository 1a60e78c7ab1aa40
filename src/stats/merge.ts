import type { Histogram } from 'hdr-histogram-js';
import { lanesPerConnection, type Plan } from '../shared/plan.js';
import type {
  CheckStats,
  LoadResult,
  MergeInfo,
  MergePlan,
  MergeSocketIo,
  TimelineEntry,
} from '../shared/load-result.js';
import type { PlannedSocketIo } from '../shared/websocket.js';
import { addCounts, type ShardStats } from './recorder.js';
import { addEncodedInto, createHistogram, decodeHistogram, encodeHistogram, latencyStats } from './histogram.js';
import { mergeCheckStats } from './checks.js';
import { addWarning, mergeWarnings } from '../shared/warnings.js';
import { mergePhases } from './phases.js';
import { mergeGenerator } from './generator.js';
import { mergeWebSocket, messageStats } from './websocket-merge.js';
import { mergeStream } from './stream-merge.js';
import { mergeNames } from './merge-names.js';
import { mergeErrorSamples } from './error-samples.js';
import { countsMessages, transportKind } from '../shared/run-kind.js';

/** Failed requests: the errors and the responses with a status the run does not accept. */
function failedStats(errors: number, byStatus: Record<string, number>): LoadResult['failed'] {
  let total = errors;
  for (const count of Object.values(byStatus)) total += count;
  return { total, byStatus };
}

/** One merged second: its numbers, and the encoded histogram of one shard until a second adds to it. */
interface MergedSecond {
  entry: TimelineEntry;
  encoded: string;
  histogram: Histogram | undefined;
}

/** A second of the timeline with nothing in it yet. */
function emptySecond(second: number): TimelineEntry {
  return {
    second,
    sent: 0,
    completed: 0,
    errors: 0,
    retried: 0,
    p50: NaN,
    p99: NaN,
    connections: 0,
    cpuPercent: 0,
    eventLoopUtilization: 0,
  };
}

/**
 * The shards' seconds added up, second by second, and each second's merged histogram encoded again
 * (for `result.merge.timeline`); a second only one shard has keeps that shard's encoding.
 */
function mergeTimeline(shards: ShardStats[]): { timeline: TimelineEntry[]; histograms: string[] } {
  const seconds = new Map<number, MergedSecond>();
  for (const shard of shards) {
    for (const s of shard.timeline) {
      let merged = seconds.get(s.second);
      if (merged === undefined) {
        merged = {
          entry: emptySecond(s.second),
          encoded: s.histogram,
          histogram: undefined,
        };
        seconds.set(s.second, merged);
      } else if (s.histogram !== '') {
        if (merged.histogram === undefined) {
          merged.histogram = createHistogram();
          if (merged.encoded !== '') addEncodedInto(merged.histogram, merged.encoded);
        }
        addEncodedInto(merged.histogram, s.histogram);
      }
      const { entry } = merged;
      entry.sent += s.sent;
      entry.completed += s.completed;
      entry.errors += s.errors;
      entry.retried += s.retried;
      entry.connections += s.connections;
      // The busiest thread: every thread reads the same process CPU, and a second is only as free as its busiest loop.
      entry.cpuPercent = Math.max(entry.cpuPercent, s.cpuPercent);
      entry.eventLoopUtilization = Math.max(entry.eventLoopUtilization, s.eventLoopUtilization);
      if (s.targetRate !== undefined) entry.targetRate = (entry.targetRate ?? 0) + s.targetRate;
    }
  }
  const last = Math.max(-1, ...seconds.keys());
  const timeline: TimelineEntry[] = [];
  const histograms: string[] = [];
  for (let second = 0; second <= last; second++) {
    const merged = seconds.get(second);
    if (merged === undefined) {
      timeline.push(emptySecond(second));
      histograms.push('');
      continue;
    }
    const histogram = merged.histogram ?? (merged.encoded === '' ? undefined : decodeHistogram(merged.encoded));
    if (histogram !== undefined && histogram.totalCount > 0) {
      const stats = latencyStats(histogram);
      merged.entry.p50 = stats.p50;
      merged.entry.p99 = stats.p99;
      if (merged.histogram !== undefined) merged.encoded = encodeHistogram(histogram);
      histogram.destroy();
    }
    timeline.push(merged.entry);
    histograms.push(merged.encoded);
  }
  return { timeline, histograms };
}

/**
 * What a result says about the run rather than measures: from the plan in `runLoad`
 * (`planHeader`), from the results in `mergeResults`.
 */
export interface ResultHeader {
  url: string;
  transport: LoadResult['transport'];
  connections: number;
  workers: number;
  rate: number | undefined;
  merge: Omit<MergeInfo, 'timeline'>;
}

/** The whole plan, as `result.merge.plan`: what every segment of one run has in common. */
export function mergePlan(whole: Plan): MergePlan {
  return {
    kind: whole.kind,
    transport: whole.transport,
    connections: whole.connections,
    ...(whole.durationMs !== undefined ? { durationMs: whole.durationMs } : {}),
    ...(whole.amount !== undefined ? { amount: whole.amount } : {}),
    ...(whole.rate !== undefined ? { rate: whole.rate } : {}),
    ...(whole.stages !== undefined ? { stages: whole.stages } : {}),
    // The lanes per connection, as results have always said (h2's streams included).
    pipelining: lanesPerConnection(whole),
    keepAlive: whole.keepAlive,
    warmupMs: whole.warmupMs,
    requests: whole.requests.map((request) => `${request.method} ${request.path}`),
    ...(whole.socketio !== undefined ? { socketio: mergeSocketIo(whole.socketio) } : {}),
  };
}

function mergeSocketIo({ namespace, emit, rate, ack, reply, listen }: PlannedSocketIo): MergeSocketIo {
  const mode = ack ? 'ack' : reply !== undefined ? 'reply' : listen !== undefined ? 'listen' : 'none';
  const event = reply ?? listen?.event;
  return {
    namespace,
    ...(emit !== undefined ? { emit: emit.event } : {}),
    ...(rate !== undefined ? { rate } : {}),
    mode,
    ...(event !== undefined ? { event } : {}),
  };
}

/** The header of a run of `part` (a segment of `whole`, or `whole` itself). */
export function planHeader(whole: Plan, part: Plan): ResultHeader {
  return {
    url: part.url,
    transport: part.transport,
    connections: part.connections,
    workers: part.workers,
    rate: part.loop === 'open' ? (part.rate ?? 0) : undefined,
    merge: {
      ...(part.segment !== undefined ? { segment: part.segment } : {}),
      plan: mergePlan(whole),
      ...(whole.thresholds !== undefined ? { thresholds: whole.thresholds.given } : {}),
    },
  };
}

/**
 * Merges the worker shards of a run of `plan` (a segment of `whole`, or `whole` itself) into its
 * result; see `mergeStats`.
 */
export function mergeShards(plan: Plan, shards: ShardStats[], aborted: boolean, whole: Plan = plan): LoadResult {
  return mergeStats(planHeader(whole, plan), shards, aborted);
}

/**
 * The one merge: worker shards into a result (`mergeShards`), and results of segments or machines
 * into one (`mergeResults`, which turns each result back into a shard). Every number is computed from
 * the merged data (percentiles from the added histograms, never from averaging shard percentiles), so
 * one shard and many give the same kind of answer. A new mergeable field is a `ShardStats` field
 * added up here (and, for `mergeResults`, read back from a result in `resultAsShard`).
 */
export function mergeStats(header: ResultHeader, shards: ShardStats[], aborted: boolean): LoadResult {
  const corrected = createHistogram();
  const uncorrected = createHistogram();
  const statusCodes: Record<string, number> = {};
  const errorsByCode: Record<string, number> = {};
  const failedByStatus: Record<string, number> = {};
  let checks: CheckStats | undefined;
  let sent = 0,
    completed = 0,
    missed = 0,
    retried = 0,
    unfinished = 0,
    errors = 0,
    bytesSent = 0,
    bytesReceived = 0,
    durationMs = 0;
  let warmup: number | undefined;
  let redirects: number | undefined;
  let unsettled = 0;
  let startedAt = Infinity;
  for (const shard of shards) {
    sent += shard.sent;
    if (shard.warmupSent !== undefined) warmup = (warmup ?? 0) + shard.warmupSent;
    if (shard.redirects !== undefined) redirects = (redirects ?? 0) + shard.redirects;
    unsettled += shard.unsettled ?? 0;
    completed += shard.completed;
    missed += shard.missed;
    retried += shard.retried;
    unfinished += shard.unfinished;
    errors += shard.errors;
    bytesSent += shard.bytesSent;
    bytesReceived += shard.bytesReceived;
    durationMs = Math.max(durationMs, shard.durationMs);
    startedAt = Math.min(startedAt, shard.startedAt);
    addCounts(statusCodes, shard.statusCodes);
    addCounts(errorsByCode, shard.errorsByCode);
    addCounts(failedByStatus, shard.failedByStatus);
    addEncodedInto(corrected, shard.histogram);
    addEncodedInto(uncorrected, shard.histogramUncorrected);
    if (shard.checks) checks = checks ? mergeCheckStats(checks, shard.checks) : shard.checks;
    aborted ||= shard.aborted;
  }
  const errorSamples = mergeErrorSamples(shards.map((shard) => shard.errorSamples));
  const { phases, histograms: phaseHistograms } = mergePhases(shards.map((shard) => shard.phases));
  const { timeline, histograms } = mergeTimeline(shards);
  const { generator, sendLagHistogram } = mergeGenerator(shards.map((shard) => shard.generator));
  const streamed = mergeStream(
    shards.map((shard) => shard.stream),
    durationMs,
    timeline,
  );
  const webSocket = countsMessages(header.merge.plan.kind ?? transportKind(header.transport))
    ? mergeWebSocket(shards.map((shard) => shard.websocket))
    : undefined;
  const warnings = mergeWarnings(shards.map((shard) => shard.warnings));
  if (unsettled > 0) addWarning(warnings, 'TASK_IGNORED_SIGNAL', ignoredSignal(unsettled, errorsByCode.TIMEOUT ?? 0));
  const result: LoadResult = {
    url: header.url,
    transport: header.transport,
    connections: header.connections,
    workers: header.workers,
    ...(header.rate !== undefined ? { rate: header.rate } : {}),
    requests: {
      sent,
      completed,
      perSecond: durationMs > 0 ? completed / (durationMs / 1000) : 0,
      missed,
      retried,
      unfinished,
      ...(warmup !== undefined ? { warmup } : {}),
      ...(redirects !== undefined ? { redirects } : {}),
    },
    ...(webSocket !== undefined
      ? { messages: messageStats(sent, completed, durationMs), websocket: webSocket.websocket }
      : {}),
    ...(streamed !== undefined ? { stream: streamed.stream } : {}),
    ...(streamed?.goodput !== undefined ? { goodput: streamed.goodput } : {}),
    latency: latencyStats(corrected),
    latencyUncorrected: latencyStats(uncorrected),
    phases,
    phaseHistograms,
    statusCodes,
    errors: { total: errors, byCode: errorsByCode, ...(errorSamples.length > 0 ? { samples: errorSamples } : {}) },
    failed: failedStats(errors, failedByStatus),
    bytes: { sent: bytesSent, received: bytesReceived },
    durationMs,
    startedAt,
    timeline,
    aborted,
    ...(checks ? { checks } : {}),
    warnings,
    generator,
    ok: true,
    histogram: encodeHistogram(corrected),
    histogramUncorrected: encodeHistogram(uncorrected),
    merge: {
      ...header.merge,
      timeline: histograms,
      ...(sendLagHistogram !== undefined ? { sendLag: sendLagHistogram } : {}),
      ...(webSocket?.stageHistograms !== undefined ? { stages: webSocket.stageHistograms } : {}),
      ...(streamed !== undefined ? { stream: streamed.info } : {}),
    },
  };
  corrected.destroy();
  uncorrected.destroy();
  mergeNames(result, shards, (parts) => mergeStats(header, parts, aborted));
  return result;
}

/** `TASK_IGNORED_SIGNAL`: `unsettled` of the run's `timeouts` task calls had not settled by its end. */
function ignoredSignal(unsettled: number, timeouts: number): string {
  return (
    `${unsettled} of the ${timeouts} calls that passed timeout (errors.byCode.TIMEOUT) had still not settled when the run ended, ` +
    'though their ctx.signal was aborted: the task does not pass ctx.signal on to what it waits for, so each of those calls still holds what it opened ' +
    '(a socket, a pool slot) and its slot went on beside it. Pass ctx.signal to the client (or race it) so that a call past timeout ends.'
  );
}
