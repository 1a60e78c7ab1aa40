import type { LoadResult, NameStats } from '../shared/load-result.js';
import { failedByDefault, type ShardStats } from './recorder.js';
import { streamAsShard } from './stream-merge.js';

/**
 * `result.byName` from the shards' `byName`: each name's shards merged by the one merge (`merge`,
 * which is `mergeStats` for the name's part), and its seconds set on the run's timeline. A name
 * keeps the order in which the shards first name it.
 */
export function mergeNames(
  result: LoadResult,
  shards: readonly ShardStats[],
  merge: (parts: ShardStats[]) => LoadResult,
): void {
  const names = new Set<string>();
  for (const shard of shards) for (const name of Object.keys(shard.byName ?? {})) names.add(name);
  if (names.size === 0) return;
  const byName: Record<string, NameStats> = {};
  for (const name of names) {
    const named = merge(shards.flatMap((shard) => (shard.byName?.[name] !== undefined ? [shard.byName[name]] : [])));
    const histograms = result.timeline.map(() => '');
    named.timeline.forEach((second, index) => {
      const entry = result.timeline[second.second];
      // A second where the name did nothing (before a scenario started, say) has no entry: zeros.
      if (entry === undefined || second.sent + second.completed + second.errors === 0) return;
      (entry.byName ??= {})[name] = {
        sent: second.sent,
        completed: second.completed,
        errors: second.errors,
        p50: second.p50,
        p99: second.p99,
      };
      histograms[second.second] = named.merge.timeline[index] ?? '';
    });
    byName[name] = {
      requests: named.requests,
      latency: named.latency,
      latencyUncorrected: named.latencyUncorrected,
      statusCodes: named.statusCodes,
      errors: named.errors,
      failed: named.failed,
      bytes: named.bytes,
      phases: named.phases,
      phaseHistograms: named.phaseHistograms,
      ...(named.checks !== undefined ? { checks: named.checks } : {}),
      ...(named.stream !== undefined ? { stream: named.stream } : {}),
      histogram: named.histogram,
      histogramUncorrected: named.histogramUncorrected,
      merge: { timeline: histograms, ...(named.merge.stream !== undefined ? { stream: named.merge.stream } : {}) },
    };
  }
  result.byName = byName;
}

/** A name of a saved result as the shard it came from (see `resultAsShard`): its seconds are `secondShift` later. */
export function nameAsShard(
  result: LoadResult,
  name: string,
  stats: NameStats,
  durationMs: number,
  secondShift: number,
): ShardStats {
  const timeline: ShardStats['timeline'] = [];
  result.timeline.forEach((entry, index) => {
    const second = entry.byName?.[name];
    if (second === undefined) return;
    timeline.push({
      second: entry.second + secondShift,
      sent: second.sent,
      completed: second.completed,
      errors: second.errors,
      retried: 0,
      connections: 0,
      targetRate: undefined,
      cpuPercent: 0,
      eventLoopUtilization: 0,
      histogram: stats.merge.timeline[index] ?? '',
    });
  });
  return {
    sent: stats.requests.sent,
    completed: stats.requests.completed,
    missed: stats.requests.missed,
    retried: stats.requests.retried,
    ...(stats.requests.redirects !== undefined ? { redirects: stats.requests.redirects } : {}),
    errors: stats.errors.total,
    errorsByCode: stats.errors.byCode,
    statusCodes: stats.statusCodes,
    // Saved before these existed: nothing unfinished, the default statuses failed.
    unfinished: stats.requests.unfinished ?? 0,
    failedByStatus: stats.failed?.byStatus ?? failedByDefault(stats.statusCodes),
    bytesSent: stats.bytes.sent,
    bytesReceived: stats.bytes.received,
    durationMs,
    startedAt: result.startedAt,
    aborted: result.aborted,
    histogram: stats.histogram,
    histogramUncorrected: stats.histogramUncorrected,
    timeline,
    checks: stats.checks,
    warnings: [],
    phases: stats.phaseHistograms,
    generator: undefined,
    stream: streamAsShard(stats.stream, stats.merge.stream, undefined, secondShift),
  };
}
