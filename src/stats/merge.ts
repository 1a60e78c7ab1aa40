import type { Histogram } from 'hdr-histogram-js';
import type { Plan } from '../options.js';
import type { CheckStats, LatencyStats, LoadResult, TimelineEntry } from '../types.js';
import { createHistogram, decodeHistogram, encodeHistogram, type ShardStats } from './recorder.js';
import { mergeCheckStats } from './checks.js';

const US_PER_MS = 1000;

/** Percentiles and moments of a µs histogram, in ms. An empty histogram gives zeros. */
export function latencyStats(histogram: Histogram): LatencyStats {
  if (histogram.totalCount === 0) {
    return { min: 0, mean: 0, stddev: 0, max: 0, p50: 0, p75: 0, p90: 0, p95: 0, p99: 0, p999: 0 };
  }
  const at = (percentile: number) => histogram.getValueAtPercentile(percentile) / US_PER_MS;
  return {
    min: histogram.minNonZeroValue / US_PER_MS,
    mean: histogram.mean / US_PER_MS,
    stddev: histogram.stdDeviation / US_PER_MS,
    max: histogram.maxValue / US_PER_MS,
    p50: at(50),
    p75: at(75),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    p999: at(99.9),
  };
}

function addInto(target: Histogram, encoded: string): void {
  const decoded = decodeHistogram(encoded);
  target.add(decoded);
  decoded.destroy();
}

function addCounts(target: Record<string, number>, source: Record<string, number>): void {
  for (const [key, count] of Object.entries(source)) target[key] = (target[key] ?? 0) + count;
}

function mergeTimeline(shards: ShardStats[]): TimelineEntry[] {
  const seconds = new Map<number, { entry: TimelineEntry; histogram: Histogram }>();
  for (const shard of shards) {
    for (const s of shard.timeline) {
      let merged = seconds.get(s.second);
      if (merged === undefined) {
        merged = {
          entry: { second: s.second, sent: 0, completed: 0, errors: 0, p50: 0, p99: 0, connections: 0 },
          histogram: createHistogram(),
        };
        seconds.set(s.second, merged);
      }
      const { entry } = merged;
      entry.sent += s.sent;
      entry.completed += s.completed;
      entry.errors += s.errors;
      entry.connections += s.connections;
      if (s.targetRate !== undefined) entry.targetRate = (entry.targetRate ?? 0) + s.targetRate;
      addInto(merged.histogram, s.histogram);
    }
  }
  const last = Math.max(-1, ...seconds.keys());
  const timeline: TimelineEntry[] = [];
  for (let second = 0; second <= last; second++) {
    const merged = seconds.get(second);
    if (merged === undefined) {
      timeline.push({ second, sent: 0, completed: 0, errors: 0, p50: 0, p99: 0, connections: 0 });
      continue;
    }
    const stats = latencyStats(merged.histogram);
    merged.entry.p50 = stats.p50;
    merged.entry.p99 = stats.p99;
    merged.histogram.destroy();
    timeline.push(merged.entry);
  }
  return timeline;
}

/**
 * Merges the shards' counters and histograms into one result. Every number is computed from the
 * merged data (percentiles from the added histograms, never from averaging shard percentiles), so
 * one shard and many give the same kind of answer.
 */
export function mergeShards(plan: Plan, shards: ShardStats[], aborted: boolean): LoadResult {
  const corrected = createHistogram();
  const uncorrected = createHistogram();
  const statusCodes: Record<string, number> = {};
  const errorsByCode: Record<string, number> = {};
  let checks: CheckStats | undefined;
  let sent = 0, completed = 0, missed = 0, errors = 0, bytesSent = 0, bytesReceived = 0, durationMs = 0;
  for (const shard of shards) {
    sent += shard.sent;
    completed += shard.completed;
    missed += shard.missed;
    errors += shard.errors;
    bytesSent += shard.bytesSent;
    bytesReceived += shard.bytesReceived;
    durationMs = Math.max(durationMs, shard.durationMs);
    addCounts(statusCodes, shard.statusCodes);
    addCounts(errorsByCode, shard.errorsByCode);
    addInto(corrected, shard.histogram);
    addInto(uncorrected, shard.histogramUncorrected);
    if (shard.checks) checks = checks ? mergeCheckStats(checks, shard.checks) : shard.checks;
    aborted ||= shard.aborted;
  }
  const result: LoadResult = {
    url: plan.url,
    transport: plan.transport,
    connections: plan.connections,
    workers: plan.workers,
    ...(plan.rate !== undefined || plan.stages?.[0]?.rate !== undefined ? { rate: plan.rate ?? 0 } : {}),
    requests: {
      sent,
      completed,
      perSecond: durationMs > 0 ? completed / (durationMs / 1000) : 0,
      missed,
    },
    latency: latencyStats(corrected),
    latencyUncorrected: latencyStats(uncorrected),
    statusCodes,
    errors: { total: errors, byCode: errorsByCode },
    bytes: { sent: bytesSent, received: bytesReceived },
    durationMs,
    timeline: mergeTimeline(shards),
    aborted,
    ...(checks ? { checks } : {}),
    ok: true,
    histogram: encodeHistogram(corrected),
    histogramUncorrected: encodeHistogram(uncorrected),
  };
  corrected.destroy();
  uncorrected.destroy();
  return result;
}
