// The `monitor` figures of a result (`result.server`, each second's `server`) from its sources' per-second
// readings, and those readings merged over segments: plain arithmetic on JSON, shared by runLoad and mergeResults.
import type { ServerReadingSecond, ServerSecond, ServerSeries, ServerSourceStats, ServerStats, TimelineEntry, WebSocketStageStats } from '../shared/load-result.js';

type Field = 'cpuMs' | 'rssBytes' | 'receivedBytes' | 'sentBytes' | 'eventLoopLagMs';

const gave = (series: ServerSeries, field: Field) => series.seconds.some((second) => second?.[field] !== undefined);

/**
 * The sources each figure comes from: CPU and memory from the process sources (pids, prom-client
 * apps) added up, or from the machine (node_exporter) when no process source gives them; network
 * from the machine sources; event-loop lag from the apps. A source that never answered is left out.
 */
function pick(series: readonly ServerSeries[], field: Field): ServerSeries[] {
  const giving = series.filter((s) => gave(s, field));
  if (field === 'receivedBytes' || field === 'sentBytes') return giving.filter((s) => s.scope === 'machine');
  const processes = giving.filter((s) => s.scope === 'process');
  return processes.length > 0 ? processes : giving;
}

/** The sources' `field` in second `i`, added up (max for lag); undefined unless every picked source gave it. */
function combined(picked: readonly ServerSeries[], field: Field, i: number): { value: number; wallMs: number } | undefined {
  if (picked.length === 0) return undefined;
  let value = 0;
  let wallMs = 0;
  for (const series of picked) {
    const second: ServerReadingSecond | null | undefined = series.seconds[i];
    const reading = second?.[field];
    if (second == null || reading === undefined) return undefined;
    value = field === 'eventLoopLagMs' ? Math.max(value, reading) : value + reading;
    wallMs = Math.max(wallMs, second.wallMs);
  }
  return wallMs > 0 ? { value, wallMs } : undefined;
}

/** Second `i` of the server as the timeline shows it; undefined when no source gave anything for it. */
export function serverSecond(series: readonly ServerSeries[], i: number): ServerSecond | undefined {
  const cpu = combined(pick(series, 'cpuMs'), 'cpuMs', i);
  const rss = combined(pick(series, 'rssBytes'), 'rssBytes', i);
  const received = combined(pick(series, 'receivedBytes'), 'receivedBytes', i);
  const sent = combined(pick(series, 'sentBytes'), 'sentBytes', i);
  const lag = combined(pick(series, 'eventLoopLagMs'), 'eventLoopLagMs', i);
  const second: ServerSecond = {
    ...(cpu !== undefined ? { cpuPercent: (cpu.value / cpu.wallMs) * 100 } : {}),
    ...(rss !== undefined ? { rssBytes: rss.value } : {}),
    ...(received !== undefined ? { receivedBytesPerSecond: (received.value / received.wallMs) * 1000 } : {}),
    ...(sent !== undefined ? { sentBytesPerSecond: (sent.value / sent.wallMs) * 1000 } : {}),
    ...(lag !== undefined ? { eventLoopLagMs: lag.value } : {}),
  };
  return Object.keys(second).length > 0 ? second : undefined;
}

/**
 * A field over the seconds (of `only`, when given) the picked sources all gave it: its sum (max for
 * lag, peak for memory), wall time, and which seconds.
 */
function overRun(picked: readonly ServerSeries[], field: Field, only?: (i: number) => boolean) {
  const length = Math.max(0, ...picked.map((s) => s.seconds.length));
  let total = 0, peak = 0, wallMs = 0, count = 0;
  const seconds: number[] = [];
  for (let i = 0; i < length; i++) {
    if (only !== undefined && !only(i)) continue;
    const at = combined(picked, field, i);
    if (at === undefined) continue;
    total += at.value;
    peak = Math.max(peak, at.value);
    wallMs += at.wallMs;
    count++;
    seconds.push(i);
  }
  return count === 0 ? undefined : { total, peak, wallMs, count, seconds };
}

function sourceStats(series: ServerSeries): ServerSourceStats {
  const one = [series];
  const cpu = overRun(one, 'cpuMs');
  const rss = overRun(one, 'rssBytes');
  const received = overRun(one, 'receivedBytes');
  const sent = overRun(one, 'sentBytes');
  const lag = overRun(one, 'eventLoopLagMs');
  return {
    source: series.source,
    scope: series.scope,
    answered: series.error === undefined && series.seconds.every((second) => second !== null),
    ...(series.error !== undefined ? { error: series.error } : {}),
    seconds: series.seconds.filter((second) => second !== null).length,
    ...(cpu !== undefined ? { cpuPercent: (cpu.total / cpu.wallMs) * 100 } : {}),
    ...(rss !== undefined ? { rssBytes: rss.total / rss.count, peakRssBytes: rss.peak } : {}),
    ...(received !== undefined ? { receivedBytesPerSecond: (received.total / received.wallMs) * 1000 } : {}),
    ...(sent !== undefined ? { sentBytesPerSecond: (sent.total / sent.wallMs) * 1000 } : {}),
    ...(lag !== undefined ? { eventLoopLagMs: lag.peak } : {}),
  };
}

/**
 * `result.server` from the sources' seconds, over the seconds each figure's sources answered;
 * `cpuPerRequest` divides the server's CPU by the requests completed in those same seconds (all of
 * them when the sources answered throughout).
 */
export function serverStats(series: readonly ServerSeries[], timeline: readonly TimelineEntry[], completed: number): ServerStats {
  const cpu = overRun(pick(series, 'cpuMs'), 'cpuMs');
  const rss = overRun(pick(series, 'rssBytes'), 'rssBytes');
  const received = overRun(pick(series, 'receivedBytes'), 'receivedBytes');
  const sent = overRun(pick(series, 'sentBytes'), 'sentBytes');
  const lag = overRun(pick(series, 'eventLoopLagMs'), 'eventLoopLagMs');
  const cpuSources = pick(series, 'cpuMs');
  // Process sources on one machine share its cores: the most any of them says, not their sum.
  const cores = cpuSources.length > 0 && cpuSources.every((s) => s.cores !== undefined)
    ? (cpuSources[0]!.scope === 'machine' ? cpuSources.reduce((sum, s) => sum + s.cores!, 0) : Math.max(...cpuSources.map((s) => s.cores!)))
    : undefined;
  let cpuPerRequest: number | undefined;
  if (cpu !== undefined) {
    const whole = cpu.count >= timeline.length;
    const requests = whole ? completed : cpu.seconds.reduce((sum, i) => sum + (timeline[i]?.completed ?? 0), 0);
    if (requests > 0) cpuPerRequest = cpu.total / requests;
  }
  return {
    ...(cpu !== undefined ? { cpuPercent: (cpu.total / cpu.wallMs) * 100 } : {}),
    ...(cpuPerRequest !== undefined ? { cpuPerRequest } : {}),
    ...(rss !== undefined ? { memory: { rssBytes: rss.total / rss.count, peakRssBytes: rss.peak } } : {}),
    ...(received !== undefined && sent !== undefined
      ? { network: { receivedBytesPerSecond: (received.total / received.wallMs) * 1000, sentBytesPerSecond: (sent.total / sent.wallMs) * 1000 } }
      : {}),
    ...(lag !== undefined ? { eventLoopLagMs: lag.peak } : {}),
    ...(cores !== undefined && cpu !== undefined ? { cores } : {}),
    sources: series.map(sourceStats),
  };
}

/**
 * Segments' or machines' series as one per source, on the seconds of a run that started at
 * `startedAt`: a source several of them watched is counted once (per second, the first that read it).
 */
export function mergeSeries(lists: ReadonlyArray<readonly ServerSeries[] | undefined>, startedAt: number): ServerSeries[] {
  const bySource = new Map<string, ServerSeries>();
  for (const list of lists) {
    for (const series of list ?? []) {
      const shift = Math.round((series.startedAt - startedAt) / 1000);
      let merged = bySource.get(series.source);
      if (merged === undefined) {
        merged = { source: series.source, scope: series.scope, ...(series.cores !== undefined ? { cores: series.cores } : {}), startedAt, seconds: [] };
        bySource.set(series.source, merged);
      }
      if (series.error !== undefined) merged.error ??= series.error;
      series.seconds.forEach((second, i) => {
        const at = i + shift;
        if (at < 0) return;
        while (merged.seconds.length <= at) merged.seconds.push(null);
        merged.seconds[at] ??= second;
      });
    }
  }
  return [...bySource.values()];
}

/** The server's CPU over each WebSocket stage: the seconds whose middle falls in it. */
function stageServer(series: readonly ServerSeries[], timeline: readonly TimelineEntry[], stages: WebSocketStageStats[]): void {
  const picked = pick(series, 'cpuMs');
  let startMs = 0;
  for (const stage of stages) {
    const from = startMs;
    const to = (startMs += stage.durationMs);
    const cpu = overRun(picked, 'cpuMs', (i) => (i + 0.5) * 1000 >= from && (i + 0.5) * 1000 < to);
    if (cpu === undefined) continue;
    const received = cpu.seconds.reduce((sum, i) => sum + (timeline[i]?.completed ?? 0), 0);
    stage.server = { cpuPercent: (cpu.total / cpu.wallMs) * 100, ...(received > 0 ? { cpuPerRequest: cpu.total / received } : {}) };
  }
}

/** Puts what `monitor` read into a result: `server`, each timeline second's `server`, and the series for merging. */
export function attachServer(
  result: { server?: ServerStats; timeline: TimelineEntry[]; requests: { completed: number }; websocket?: { stages?: WebSocketStageStats[] }; merge: { server?: ServerSeries[] } },
  series: ServerSeries[],
): void {
  result.server = serverStats(series, result.timeline, result.requests.completed);
  if (result.websocket?.stages !== undefined) stageServer(series, result.timeline, result.websocket.stages);
  result.timeline.forEach((entry, i) => {
    const second = serverSecond(series, i);
    if (second !== undefined) entry.server = second;
  });
  result.merge.server = series;
}
