import type { StreamStats, SubscriptionStats, TimelineEntry } from '../shared/load-result.js';
import type { GoodputStats } from '../shared/llm.js';
import type {
  ShardStream,
  ShardStreamSecond,
  ShardSubscriptions,
  StreamHistograms,
  StreamMergeInfo,
} from '../shared/stream.js';
import { addEncodedInto, createHistogram, encodeHistogram, latencyStats } from './histogram.js';
import { addCounts } from './recorder.js';
import { mergeStages, stagesAsShard } from './websocket-merge.js';

type Figure = keyof StreamHistograms;
const FIGURES: readonly Figure[] = ['firstEvent', 'gap', 'duration', 'delivery', 'ttft', 'itl', 'tpot', 'answerTtft'];

/**
 * The shards' streams merged exactly: counts added, histograms added then summarised, seconds
 * added one by one onto `timeline`. Undefined when no shard streamed.
 */
export function mergeStream(
  list: ReadonlyArray<ShardStream | undefined>,
  durationMs: number,
  timeline: TimelineEntry[],
): { stream: StreamStats; info: StreamMergeInfo; goodput: GoodputStats | undefined } | undefined {
  const shards = list.filter((shard): shard is ShardStream => shard !== undefined);
  if (shards.length === 0) return undefined;
  let streams = 0,
    ended = 0,
    events = 0,
    outputTokens = 0,
    streamEvents = 0,
    streamOutputTokens = 0;
  let reasoningTokens = 0,
    inputTokens = 0,
    usageStreams = 0;
  for (const shard of shards) {
    reasoningTokens += shard.reasoningTokens ?? 0;
    inputTokens += shard.inputTokens ?? 0;
    usageStreams += shard.usageStreams ?? 0;
    streams += shard.streams;
    ended += shard.ended;
    events += shard.events;
    outputTokens += shard.outputTokens;
    streamEvents += shard.streamEvents;
    streamOutputTokens += shard.streamOutputTokens;
  }
  const histograms = {} as StreamHistograms;
  const stats = {} as Record<Figure, StreamStats['firstEvent']>;
  for (const figure of FIGURES) {
    if (!shards.some((shard) => shard.histograms[figure] !== undefined)) continue;
    const merged = createHistogram();
    for (const shard of shards) {
      const encoded = shard.histograms[figure];
      if (encoded !== undefined && encoded !== '') addEncodedInto(merged, encoded);
    }
    histograms[figure] = encodeHistogram(merged);
    stats[figure] = latencyStats(merged);
    merged.destroy();
  }
  const seconds = mergeSeconds(
    shards,
    timeline,
    stats.ttft !== undefined,
    shards.some((shard) => shard.goodput !== undefined),
  );
  const perSecond = (count: number): number => (durationMs > 0 ? count / (durationMs / 1000) : 0);
  const tokens = stats.ttft !== undefined;
  const stream: StreamStats = {
    format: shards[0]!.format,
    streams,
    ended,
    events,
    perSecond: perSecond(events),
    eventsPerStream: streams > 0 ? streamEvents / streams : 0,
    firstEvent: stats.firstEvent,
    gap: stats.gap,
    duration: stats.duration,
    ...(stats.delivery !== undefined ? { delivery: stats.delivery } : {}),
    ...(tokens
      ? {
          outputTokens,
          outputTokensPerSecond: perSecond(outputTokens),
          outputTokensPerStream: streams > 0 ? streamOutputTokens / streams : 0,
          ttft: stats.ttft,
          itl: stats.itl!,
          tpot: stats.tpot!,
          reasoningTokens,
          inputTokens,
          inputTokensPerStream: usageStreams > 0 ? inputTokens / usageStreams : 0,
          usageStreams,
          ...(stats.answerTtft !== undefined ? { answerTtft: stats.answerTtft } : {}),
        }
      : {}),
  };
  const subscriptions = mergeSubscriptions(shards.map((shard) => shard.subscriptions));
  if (subscriptions !== undefined) stream.subscriptions = subscriptions.stats;
  const info: StreamMergeInfo = {
    histograms,
    streamEvents,
    streamOutputTokens,
    seconds: seconds.firstEvent,
    ...(seconds.ttft !== undefined ? { ttftSeconds: seconds.ttft } : {}),
    ...(subscriptions?.stageHistograms !== undefined ? { stages: subscriptions.stageHistograms } : {}),
  };
  const good = shards.find((shard) => shard.goodput !== undefined)?.goodput;
  if (good === undefined) return { stream, info, goodput: undefined };
  const requests = shards.reduce((sum, shard) => sum + (shard.goodput?.requests ?? 0), 0);
  info.goodput = { requests, slo: good.slo };
  const goodput = {
    requests,
    perSecond: perSecond(requests),
    rate: streams > 0 ? requests / streams : 0,
    slo: good.slo,
  };
  return { stream, info, goodput };
}

/** The shards' subscriptions added up, their stages merged; undefined when none subscribed. */
function mergeSubscriptions(
  list: ReadonlyArray<ShardSubscriptions | undefined>,
): { stats: SubscriptionStats; stageHistograms: string[] | undefined } | undefined {
  const shards = list.filter((shard): shard is ShardSubscriptions => shard !== undefined);
  if (shards.length === 0) return undefined;
  const stats: SubscriptionStats = { subscribed: 0, open: 0, reconnects: 0, closes: {} };
  for (const shard of shards) {
    stats.subscribed += shard.subscribed;
    stats.open += shard.open;
    stats.reconnects += shard.reconnects;
    addCounts(stats.closes, shard.closes);
  }
  const stages = mergeStages(shards.map((shard) => shard.stages));
  if (stages !== undefined) stats.stages = stages.stages;
  return { stats, stageHistograms: stages?.histograms };
}

/**
 * Sets `timeline[i].stream` from the shards' seconds; returns each second's first-event histogram,
 * and with `tokens` each second's TTFT histogram. With `slo` (`goodput`), each second's good streams added up.
 */
function mergeSeconds(
  shards: readonly ShardStream[],
  timeline: TimelineEntry[],
  tokens: boolean,
  goodput: boolean,
): { firstEvent: string[]; ttft: string[] | undefined } {
  const firstEvent: string[] = [];
  const ttft: string[] | undefined = tokens ? [] : undefined;
  timeline.forEach((entry, second) => {
    let events = 0,
      outputTokens = 0,
      good = 0;
    for (const shard of shards) {
      const s = shard.seconds[second];
      if (s === undefined) continue;
      events += s.events;
      outputTokens += s.outputTokens;
      good += s.good ?? 0;
    }
    const first = mergeSecond(shards, second, 'firstEvent');
    entry.stream = { events, outputTokens, firstEventP50: first.p50, firstEventP99: first.p99 };
    if (goodput) entry.stream.good = good;
    firstEvent.push(first.histogram);
    if (ttft !== undefined) {
      const merged = mergeSecond(shards, second, 'ttft');
      entry.stream.ttftP50 = merged.p50;
      entry.stream.ttftP99 = merged.p99;
      ttft.push(merged.histogram);
    }
  });
  return { firstEvent, ttft };
}

/** One figure's histograms of second `second` over the shards: its p50 and p99 (ms; NaN for none, as the timeline's latency) and the merged encoding. */
function mergeSecond(
  shards: readonly ShardStream[],
  second: number,
  figure: 'firstEvent' | 'ttft',
): { p50: number; p99: number; histogram: string } {
  const parts: string[] = [];
  for (const shard of shards) {
    const encoded = shard.seconds[second]?.[figure];
    if (encoded !== undefined && encoded !== '') parts.push(encoded);
  }
  if (parts.length === 0) return { p50: NaN, p99: NaN, histogram: '' };
  const merged = createHistogram();
  for (const part of parts) addEncodedInto(merged, part);
  const result = {
    p50: merged.getValueAtPercentile(50) / 1000,
    p99: merged.getValueAtPercentile(99) / 1000,
    histogram: parts.length === 1 ? parts[0]! : encodeHistogram(merged),
  };
  merged.destroy();
  return result;
}

/**
 * A saved result's (or a name's) streams as the shard they came from, its seconds `secondShift`
 * later; a name's seconds are not kept (`timeline` undefined), as its timeline keeps no streams.
 */
export function streamAsShard(
  stream: StreamStats | undefined,
  info: StreamMergeInfo | undefined,
  timeline: readonly TimelineEntry[] | undefined,
  secondShift: number,
): ShardStream | undefined {
  if (stream === undefined || info === undefined) return undefined;
  const seconds: ShardStreamSecond[] = [];
  if (timeline !== undefined) {
    // The streams ended, gaps, ITLs and deliveries of each second are live figures only, not kept in the result.
    const empty = { streams: 0, gap: '', itl: '', delivery: '' };
    for (let i = 0; i < secondShift; i++)
      seconds.push({ events: 0, outputTokens: 0, firstEvent: '', ttft: '', ...empty });
    timeline.forEach((entry, index) => {
      seconds.push({
        events: entry.stream?.events ?? 0,
        outputTokens: entry.stream?.outputTokens ?? 0,
        firstEvent: info.seconds[index] ?? '',
        ttft: info.ttftSeconds?.[index] ?? '',
        ...empty,
        ...(entry.stream?.good !== undefined ? { good: entry.stream.good } : {}),
      });
    });
  }
  return {
    format: stream.format,
    streams: stream.streams,
    ended: stream.ended,
    events: stream.events,
    outputTokens: stream.outputTokens ?? 0,
    // Results saved before these counts: the means times the streams give them back (whole numbers).
    streamEvents: info.streamEvents ?? Math.round(stream.eventsPerStream * stream.streams),
    streamOutputTokens: info.streamOutputTokens ?? Math.round((stream.outputTokensPerStream ?? 0) * stream.streams),
    ...(stream.reasoningTokens !== undefined
      ? {
          reasoningTokens: stream.reasoningTokens,
          inputTokens: stream.inputTokens ?? 0,
          usageStreams: stream.usageStreams ?? 0,
        }
      : {}),
    histograms: info.histograms,
    seconds,
    ...(stream.subscriptions !== undefined
      ? { subscriptions: subscriptionsAsShard(stream.subscriptions, info.stages) }
      : {}),
    ...(info.goodput !== undefined ? { goodput: info.goodput } : {}),
  };
}

function subscriptionsAsShard(
  stats: SubscriptionStats,
  stageHistograms: readonly string[] | undefined,
): ShardSubscriptions {
  const { subscribed, open, reconnects, closes } = stats;
  return { subscribed, open, reconnects, closes, stages: stagesAsShard(stats.stages, stageHistograms) };
}
