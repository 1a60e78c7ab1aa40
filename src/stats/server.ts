// The `monitor` figures of a result (`result.server`, each second's `server`) from its sources' per-second
// readings, and those readings merged over segments: plain arithmetic on JSON, shared by runLoad and mergeResults.
import type {
  MachineSecond,
  MachineStats,
  ServerReadingSecond,
  ServerSecond,
  ServerSeries,
  ServerSourceStats,
  ServerStats,
  TimelineEntry,
  WebSocketStageStats,
} from '../shared/load-result.js';

type Field = 'cpuMs' | 'rssBytes' | 'receivedBytes' | 'sentBytes' | 'eventLoopLagMs';
type Scope = ServerSeries['scope'];

/**
 * The sources of one scope whose `field` is counted: the processes (pids, prom-client apps; a process
 * watched twice counted once) or the machine (node_exporter). A source that never gave it is left out.
 */
function pick(series: readonly ServerSeries[], scope: Scope, field: Field): ServerSeries[] {
  return series.filter(
    (s) =>
      s.scope === scope && s.sameProcessAs === undefined && s.seconds.some((second) => second?.[field] !== undefined),
  );
}

/** The sources' `field` in second `i`, added up (max for lag); undefined unless every picked source gave it. */
function combined(
  picked: readonly ServerSeries[],
  field: Field,
  i: number,
): { value: number; wallMs: number } | undefined {
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

const perSecond = (at: { value: number; wallMs: number }) => (at.value / at.wallMs) * 1000;

/** Second `i` of the server as the timeline shows it; undefined when no source gave anything for it. */
export function serverSecond(series: readonly ServerSeries[], i: number): ServerSecond | undefined {
  const at = (scope: Scope, field: Field) => combined(pick(series, scope, field), field, i);
  const cpu = at('process', 'cpuMs');
  const rss = at('process', 'rssBytes');
  const lag = at('process', 'eventLoopLagMs');
  const machineCpu = at('machine', 'cpuMs');
  const used = at('machine', 'rssBytes');
  const received = at('machine', 'receivedBytes');
  const sent = at('machine', 'sentBytes');
  const machine: MachineSecond = {
    ...(machineCpu !== undefined ? { cpuPercent: perSecond(machineCpu) / 10 } : {}),
    ...(used !== undefined ? { usedBytes: used.value } : {}),
    ...(received !== undefined ? { receivedBytesPerSecond: perSecond(received) } : {}),
    ...(sent !== undefined ? { sentBytesPerSecond: perSecond(sent) } : {}),
  };
  const second: ServerSecond = {
    ...(cpu !== undefined ? { cpuPercent: perSecond(cpu) / 10 } : {}),
    ...(rss !== undefined ? { rssBytes: rss.value } : {}),
    ...(lag !== undefined ? { eventLoopLagMs: lag.value } : {}),
    ...(Object.keys(machine).length > 0 ? { machine } : {}),
  };
  return Object.keys(second).length > 0 ? second : undefined;
}

/**
 * A field over the seconds (of `only`, when given) the picked sources all gave it: its sum (max for
 * lag, peak for memory), wall time, and which seconds.
 */
function overRun(picked: readonly ServerSeries[], field: Field, only?: (i: number) => boolean) {
  const length = Math.max(0, ...picked.map((s) => s.seconds.length));
  let total = 0,
    peak = 0,
    wallMs = 0,
    count = 0;
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
    ...(series.sameProcessAs !== undefined ? { sameProcessAs: series.sameProcessAs } : {}),
    seconds: series.seconds.filter((second) => second !== null).length,
    ...(cpu !== undefined ? { cpuPercent: (cpu.total / cpu.wallMs) * 100 } : {}),
    ...(rss !== undefined ? { rssBytes: rss.total / rss.count, peakRssBytes: rss.peak } : {}),
    ...(received !== undefined ? { receivedBytesPerSecond: (received.total / received.wallMs) * 1000 } : {}),
    ...(sent !== undefined ? { sentBytesPerSecond: (sent.total / sent.wallMs) * 1000 } : {}),
    ...(lag !== undefined ? { eventLoopLagMs: lag.peak } : {}),
  };
}

/** The cores a scope's CPU is out of: processes on one machine share its cores, machines add theirs up. */
function coresOf(sources: readonly ServerSeries[], scope: Scope): number | undefined {
  if (sources.length === 0 || sources.some((s) => s.cores === undefined)) return undefined;
  return scope === 'machine'
    ? sources.reduce((sum, s) => sum + s.cores!, 0)
    : Math.max(...sources.map((s) => s.cores!));
}

/** What node_exporter said of the machine over the run; undefined without one. */
function machineStats(series: readonly ServerSeries[]): MachineStats | undefined {
  const cpu = overRun(pick(series, 'machine', 'cpuMs'), 'cpuMs');
  const used = overRun(pick(series, 'machine', 'rssBytes'), 'rssBytes');
  const received = overRun(pick(series, 'machine', 'receivedBytes'), 'receivedBytes');
  const sent = overRun(pick(series, 'machine', 'sentBytes'), 'sentBytes');
  const cores = coresOf(pick(series, 'machine', 'cpuMs'), 'machine');
  const machine: MachineStats = {
    ...(cpu !== undefined ? { cpuPercent: (cpu.total / cpu.wallMs) * 100 } : {}),
    ...(cores !== undefined && cpu !== undefined ? { cores } : {}),
    ...(used !== undefined ? { memory: { usedBytes: used.total / used.count, peakUsedBytes: used.peak } } : {}),
    ...(received !== undefined && sent !== undefined
      ? {
          network: {
            receivedBytesPerSecond: (received.total / received.wallMs) * 1000,
            sentBytesPerSecond: (sent.total / sent.wallMs) * 1000,
          },
        }
      : {}),
  };
  return Object.keys(machine).length > 0 ? machine : undefined;
}

/**
 * `result.server` from the sources' seconds, over the seconds each figure's sources answered;
 * `cpuPerRequestMs` divides the processes' CPU by the requests completed in those same seconds (all
 * of them when the sources answered throughout). The machine's CPU has none: it holds salvo's own.
 */
export function serverStats(
  series: readonly ServerSeries[],
  timeline: readonly TimelineEntry[],
  completed: number,
): ServerStats {
  const cpuSources = pick(series, 'process', 'cpuMs');
  const cpu = overRun(cpuSources, 'cpuMs');
  const rss = overRun(pick(series, 'process', 'rssBytes'), 'rssBytes');
  const lag = overRun(pick(series, 'process', 'eventLoopLagMs'), 'eventLoopLagMs');
  const cores = coresOf(cpuSources, 'process');
  let cpuPerRequestMs: number | undefined;
  if (cpu !== undefined) {
    const whole = cpu.count >= timeline.length;
    const requests = whole ? completed : cpu.seconds.reduce((sum, i) => sum + (timeline[i]?.completed ?? 0), 0);
    if (requests > 0) cpuPerRequestMs = cpu.total / requests;
  }
  const machine = machineStats(series);
  return {
    ...(cpu !== undefined ? { cpuPercent: (cpu.total / cpu.wallMs) * 100 } : {}),
    ...(cpuPerRequestMs !== undefined ? { cpuPerRequestMs } : {}),
    ...(rss !== undefined ? { memory: { rssBytes: rss.total / rss.count, peakRssBytes: rss.peak } } : {}),
    ...(lag !== undefined ? { eventLoopLagMs: lag.peak } : {}),
    ...(cores !== undefined && cpu !== undefined ? { cores } : {}),
    ...(machine !== undefined ? { machine } : {}),
    sources: series.map(sourceStats),
  };
}

/**
 * Segments' or machines' series as one per source, on the seconds of a run that started at
 * `startedAt`: a source several of them watched is counted once (per second, the first that read it).
 */
export function mergeSeries(
  lists: ReadonlyArray<readonly ServerSeries[] | undefined>,
  startedAt: number,
): ServerSeries[] {
  const bySource = new Map<string, ServerSeries>();
  for (const list of lists) {
    for (const series of list ?? []) {
      const shift = Math.round((series.startedAt - startedAt) / 1000);
      let merged = bySource.get(series.source);
      if (merged === undefined) {
        merged = {
          source: series.source,
          scope: series.scope,
          ...(series.cores !== undefined ? { cores: series.cores } : {}),
          ...(series.sameProcessAs !== undefined ? { sameProcessAs: series.sameProcessAs } : {}),
          startedAt,
          seconds: [],
        };
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

/** The processes' CPU over each WebSocket stage: the seconds whose middle falls in it. */
function stageServer(
  series: readonly ServerSeries[],
  timeline: readonly TimelineEntry[],
  stages: WebSocketStageStats[],
): void {
  const picked = pick(series, 'process', 'cpuMs');
  let startMs = 0;
  for (const stage of stages) {
    const from = startMs;
    const to = (startMs += stage.durationMs);
    const cpu = overRun(picked, 'cpuMs', (i) => (i + 0.5) * 1000 >= from && (i + 0.5) * 1000 < to);
    if (cpu === undefined) continue;
    const received = cpu.seconds.reduce((sum, i) => sum + (timeline[i]?.completed ?? 0), 0);
    stage.server = {
      cpuPercent: (cpu.total / cpu.wallMs) * 100,
      ...(received > 0 ? { cpuPerRequestMs: cpu.total / received } : {}),
    };
  }
}

/** Puts what `monitor` read into a result: `server`, each timeline second's `server`, and the series for merging. */
export function attachServer(
  result: {
    server?: ServerStats;
    timeline: TimelineEntry[];
    requests: { completed: number };
    websocket?: { stages?: WebSocketStageStats[] };
    merge: { server?: ServerSeries[] };
  },
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
