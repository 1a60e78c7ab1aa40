import type { LoadResult, MessageStats, WebSocketStageStats, WebSocketStats } from '../shared/load-result.js';
import { addCounts } from './recorder.js';
import { addEncodedInto, createHistogram, encodeHistogram } from './histogram.js';
import type { ShardStage, ShardWebSocket } from '../shared/websocket.js';

/** `result.messages` from the merged counts. */
export function messageStats(sent: number, received: number, durationMs: number): MessageStats {
  return { sent, received, perSecond: durationMs > 0 ? received / (durationMs / 1000) : 0 };
}

/**
 * The WebSocket parts of several shards (or results) merged exactly: close codes added, each
 * stage's counts added and its latency histograms added before the percentiles are read.
 */
export function mergeWebSocket(list: ReadonlyArray<ShardWebSocket | undefined>): {
  websocket: WebSocketStats;
  stageHistograms: string[] | undefined;
} {
  const closeCodes: Record<string, number> = {};
  for (const shard of list) if (shard !== undefined) addCounts(closeCodes, shard.closeCodes);
  const merged = mergeStages(list.map((shard) => shard?.stages));
  if (merged === undefined) return { websocket: { closeCodes }, stageHistograms: undefined };
  return { websocket: { closeCodes, stages: merged.stages }, stageHistograms: merged.histograms };
}

/**
 * Connection stages of several shards merged exactly (WebSocket runs, SSE subscriptions): counts
 * added, latency histograms added before the percentiles are read. Undefined when none has stages.
 */
export function mergeStages(
  list: ReadonlyArray<readonly ShardStage[] | undefined>,
): { stages: WebSocketStageStats[]; histograms: string[] } | undefined {
  let merged: Array<ShardStage & { stage: number }> | undefined;
  const histograms: Array<ReturnType<typeof createHistogram>> = [];
  for (const shardStages of list) {
    shardStages?.forEach((stage, index) => {
      merged ??= [];
      const into = (merged[index] ??= {
        stage: index,
        durationMs: 0,
        connections: 0,
        open: 0,
        sent: 0,
        received: 0,
        histogram: '',
      });
      into.durationMs = Math.max(into.durationMs, stage.durationMs);
      into.connections += stage.connections;
      into.open += stage.open;
      into.sent += stage.sent;
      into.received += stage.received;
      const histogram = (histograms[index] ??= createHistogram());
      if (stage.histogram !== '') addEncodedInto(histogram, stage.histogram);
    });
  }
  if (merged === undefined) return undefined;
  const stages: WebSocketStageStats[] = merged.map(({ stage, durationMs, connections, open, sent, received }) => {
    const histogram = histograms[stage]!;
    return {
      stage,
      durationMs,
      connections,
      open,
      sent,
      received,
      perSecond: durationMs > 0 ? received / (durationMs / 1000) : 0,
      p50: histogram.getValueAtPercentile(50) / 1000,
      p99: histogram.getValueAtPercentile(99) / 1000,
    };
  });
  return {
    stages,
    histograms: histograms.map((histogram) => {
      const encoded = encodeHistogram(histogram);
      histogram.destroy();
      return encoded;
    }),
  };
}

/** Stages of a saved result as a shard's, their histograms from `histograms` (`merge.stages` or `merge.stream.stages`). */
export function stagesAsShard(
  stages: readonly WebSocketStageStats[] | undefined,
  histograms: readonly string[] | undefined,
): ShardStage[] | undefined {
  return stages?.map((stage, index) => ({
    durationMs: stage.durationMs,
    // A result saved before 1.0 may have only the old name, clients.
    connections: stage.connections ?? (stage as { clients?: number }).clients!,
    open: stage.open,
    sent: stage.sent,
    received: stage.received,
    histogram: histograms?.[index] ?? '',
  }));
}

/** A WebSocket result's own parts as a shard's, for `mergeResults`. */
export function resultWebSocket(result: LoadResult): ShardWebSocket | undefined {
  const { websocket } = result;
  if (websocket === undefined) return undefined;
  return { closeCodes: websocket.closeCodes, stages: stagesAsShard(websocket.stages, result.merge.stages) };
}
