import { addEncodedInto, createHistogram, decodeHistogram, moments } from '../stats/histogram.js';
import type { LoadResult, ServerSecond, TimelineEntry } from '../shared/load-result.js';
import { steeredStages } from './steered-stages.js';

/** One step of a ramp, as the per-step table and charts show it. */
export interface StepPoint {
  /** Index into the run's `stages`. */
  stage: number;
  /** The step's clients (connection stages) or target rate, req/s (rate stages): its x, where the stage ends. */
  target: number;
  /** Where the stage starts (the previous stage's target, or the run's `rate`/`connections`): equal to `target` when it holds. */
  from: number;
  /** Rate stages: the mean target of the seconds measured (a ramp from 0 to 200/s: about 100/s), what `perSecond` is to meet. */
  meanTarget?: number;
  /** The stage's planned length, ms. */
  plannedMs: number;
  /** Time measured in the step, ms (whole seconds within the stage, for an HTTP run). */
  durationMs: number;
  /** Connections open at the step's end (WebSocket runs). */
  open?: number;
  sent: number;
  /** Responses completed, or messages received. */
  completed: number;
  /** `completed` per second of the step. */
  perSecond: number;
  /** Errors in the timeline seconds that count for the step (see `stepFigures`). */
  errors: number;
  /** Latency of the step, ms; null when the result carries no histogram for it. */
  p50: number | null;
  p99: number | null;
  mean: number | null;
  /** The watched server (`monitor`) over the step's seconds, means of what its sources gave. */
  server: StepServer;
  /** A `stream` run's events (and output tokens) per second and first-event (and TTFT) p99 over the step's seconds. */
  stream?: StepStream;
}

/** A step's streams, from its timeline seconds and their histograms (`merge.stream`); p99 null without them. */
export interface StepStream {
  eventsPerSecond: number;
  firstEventP99: number | null;
  /** With `tokens`. */
  outputTokensPerSecond?: number;
  ttftP99?: number | null;
}

/** The server processes' CPU, the machine's CPU (100 = one core) and network (bytes/s) during a step; absent when not given. */
export interface StepServer {
  cpuPercent?: number;
  machineCpuPercent?: number;
  receivedBytesPerSecond?: number;
  sentBytesPerSecond?: number;
}

/** A run's ramp read by step. */
export interface StepFigures {
  /** `'connections'`: x is clients; `'rate'`: x is the target rate. */
  kind: 'connections' | 'rate';
  steps: StepPoint[];
  /** Where the numbers come from, in a sentence for the page. */
  source: string;
}

interface PlannedStep {
  durationMs: number;
  target: number;
}

const US_PER_MS = 1000;

/**
 * The stages as planned (`merge.plan`), or as a WebSocket run measured them when an older result
 * has no plan. Each stage's target is where it ends; `start` is where the first one starts.
 */
function plannedStages(
  result: LoadResult,
): { kind: 'connections' | 'rate'; stages: PlannedStep[]; start: number; steered?: boolean } | undefined {
  // Changes made by `startLoad`'s handle override the stages from where they were made: each holds.
  const steered = steeredStages(result);
  if (steered !== undefined) return { ...steered, steered: true };
  const plan = result.merge?.plan;
  const stages = plan?.stages;
  if (stages !== undefined && stages.length > 0) {
    if (stages[0]!.connections !== undefined) {
      return {
        kind: 'connections',
        start: plan!.connections,
        stages: stages.map((s) => ({ durationMs: s.durationMs, target: s.connections ?? 0 })),
      };
    }
    return {
      kind: 'rate',
      start: plan!.rate ?? 0,
      stages: stages.map((s) => ({ durationMs: s.durationMs, target: s.rate ?? 0 })),
    };
  }
  const measured = result.websocket?.stages;
  if (measured === undefined || measured.length === 0) return undefined;
  return {
    kind: 'connections',
    start: result.connections,
    stages: measured.map((s) => ({ durationMs: s.durationMs, target: s.connections })),
  };
}

/**
 * The stages that are steps: those that hold their count (their target is where the previous one
 * ended) when the ramp has any, so that the short stages moving between them, each step's
 * connecting period, are left out; every stage of a ramp that never holds.
 */
function stepStages(stages: readonly PlannedStep[], start: number): { indices: number[]; holding: boolean } {
  const holds = stages.flatMap((stage, index) =>
    stage.target === (index === 0 ? start : stages[index - 1]!.target) ? [index] : [],
  );
  return holds.length > 0
    ? { indices: holds, holding: true }
    : { indices: stages.map((_, index) => index), holding: false };
}

/**
 * The timeline seconds that count for the window [fromMs, toMs) of the measured run: the whole
 * seconds inside it, or, when it holds no whole second, the seconds whose middle falls in it.
 */
function secondsWithin(timeline: readonly TimelineEntry[], fromMs: number, toMs: number): number[] {
  const whole = timeline.flatMap((entry, index) =>
    entry.second * 1000 >= fromMs && (entry.second + 1) * 1000 <= toMs ? [index] : [],
  );
  if (whole.length > 0) return whole;
  return timeline.flatMap((entry, index) => {
    const middle = entry.second * 1000 + 500;
    return middle >= fromMs && middle < toMs ? [index] : [];
  });
}

const SERVER_FIELDS: Record<keyof StepServer, (second: ServerSecond) => number | undefined> = {
  cpuPercent: (second) => second.cpuPercent,
  machineCpuPercent: (second) => second.machine?.cpuPercent,
  receivedBytesPerSecond: (second) => second.machine?.receivedBytesPerSecond,
  sentBytesPerSecond: (second) => second.machine?.sentBytesPerSecond,
};

/** Each server field's mean over the seconds that have it (`timeline[i].server`, from `monitor`). */
function serverOver(timeline: readonly TimelineEntry[], seconds: readonly number[]): StepServer {
  const server: StepServer = {};
  for (const [field, read] of Object.entries(SERVER_FIELDS) as Array<
    [keyof StepServer, (second: ServerSecond) => number | undefined]
  >) {
    const values = seconds.flatMap((i) => {
      const second = timeline[i]!.server;
      const value = second === undefined ? undefined : read(second);
      return typeof value === 'number' ? [value] : [];
    });
    if (values.length > 0) server[field] = values.reduce((sum, v) => sum + v, 0) / values.length;
  }
  return server;
}

/** p50, p99 and mean (ms) of the encoded histograms added together; nulls when there are none. */
function latencyOf(encoded: ReadonlyArray<string | undefined>): Pick<StepPoint, 'p50' | 'p99' | 'mean'> {
  const none = { p50: null, p99: null, mean: null };
  if (encoded.some((h) => typeof h !== 'string')) return none;
  const histogram = createHistogram();
  try {
    for (const h of encoded) if (h !== '') addEncodedInto(histogram, h!);
    if (histogram.totalCount === 0) return none;
    return {
      p50: histogram.getValueAtPercentile(50) / US_PER_MS,
      p99: histogram.getValueAtPercentile(99) / US_PER_MS,
      mean: moments(histogram).mean / US_PER_MS,
    };
  } catch {
    return none;
  } finally {
    histogram.destroy();
  }
}

/** The streams of the timeline seconds `seconds`: their counts per second, and their first-event and TTFT histograms added. */
function streamOver(result: LoadResult, seconds: readonly number[]): StepStream {
  const timeline = result.timeline;
  const perSecond = (read: (second: NonNullable<TimelineEntry['stream']>) => number) =>
    seconds.reduce((sum, i) => sum + (timeline[i]!.stream === undefined ? 0 : read(timeline[i]!.stream!)), 0) /
    seconds.length;
  const p99 = (encoded: readonly string[] | undefined) =>
    encoded?.length === timeline.length ? latencyOf(seconds.map((i) => encoded[i])).p99 : null;
  const info = result.merge?.stream;
  return {
    eventsPerSecond: perSecond((s) => s.events),
    firstEventP99: p99(info?.seconds),
    ...(result.stream?.ttft != null
      ? { outputTokensPerSecond: perSecond((s) => s.outputTokens), ttftP99: p99(info?.ttftSeconds) }
      : {}),
  };
}

function meanOf(encoded: string | undefined): number | null {
  if (typeof encoded !== 'string' || encoded === '') return null;
  try {
    const histogram = decodeHistogram(encoded);
    const mean = histogram.totalCount === 0 ? null : moments(histogram).mean / US_PER_MS;
    histogram.destroy();
    return mean;
  } catch {
    return null;
  }
}

/**
 * Per-step numbers of a run with `stages`, undefined without. A WebSocket run's come from
 * `websocket.stages` (each stage measured on its own, its mean from `merge.stages`). An HTTP run's
 * are computed from the timeline: a step's counts add up the timeline seconds that lie wholly inside
 * its stage (or, when none does, the seconds centred in it), and its latency is read from those
 * seconds' histograms (`merge.timeline`) added together, exactly as the run's own percentiles are.
 * Errors per step, and the watched server's CPU and network (`monitor`), come from the same seconds
 * in both cases.
 */
export function stepFigures(result: LoadResult): StepFigures | undefined {
  const planned = plannedStages(result);
  if (planned === undefined) return undefined;
  const timeline = result.timeline ?? [];
  // SSE subscriptions measure their stages as a WebSocket run does (events, their delivery).
  const measured = result.websocket?.stages ?? result.stream?.subscriptions?.stages;
  const stageHistograms = result.websocket?.stages !== undefined ? result.merge?.stages : result.merge?.stream?.stages;
  const secondHistograms = result.merge?.timeline;
  const exactSeconds = Array.isArray(secondHistograms) && secondHistograms.length === timeline.length;
  const steps: StepPoint[] = [];
  let startMs = 0;
  const starts = planned.stages.map((stage) => [startMs, (startMs += stage.durationMs)] as const);
  const { indices, holding } = planned.steered
    ? { indices: planned.stages.map((_, index) => index), holding: true }
    : stepStages(planned.stages, planned.start);
  for (const index of indices) {
    const [fromMs, toMs] = starts[index]!;
    const stage = measured?.[index];
    const seconds = secondsWithin(timeline, fromMs, toMs);
    const errors = seconds.reduce((sum, i) => sum + timeline[i]!.errors, 0);
    const server = serverOver(timeline, seconds);
    const targets = seconds.flatMap((i) => (timeline[i]!.targetRate === undefined ? [] : [timeline[i]!.targetRate!]));
    const where = {
      target: planned.stages[index]!.target,
      from: planned.steered
        ? planned.stages[index]!.target
        : index === 0
          ? planned.start
          : planned.stages[index - 1]!.target,
      plannedMs: planned.stages[index]!.durationMs,
      ...(planned.kind === 'rate' && targets.length > 0
        ? { meanTarget: targets.reduce((sum, v) => sum + v, 0) / targets.length }
        : {}),
    };
    if (stage !== undefined) {
      if (stage.durationMs <= 0) continue;
      steps.push({
        stage: index,
        ...where,
        durationMs: stage.durationMs,
        open: stage.open,
        sent: stage.sent,
        completed: stage.received,
        perSecond: stage.perSecond,
        errors,
        p50: stage.received > 0 ? stage.p50 : null,
        p99: stage.received > 0 ? stage.p99 : null,
        mean: meanOf(stageHistograms?.[index]),
        server,
      });
      continue;
    }
    if (seconds.length === 0) continue;
    const sum = (read: (entry: TimelineEntry) => number) => seconds.reduce((total, i) => total + read(timeline[i]!), 0);
    const completed = sum((e) => e.completed);
    steps.push({
      stage: index,
      ...where,
      durationMs: seconds.length * 1000,
      sent: sum((e) => e.sent),
      completed,
      perSecond: completed / seconds.length,
      errors,
      server,
      ...(exactSeconds ? latencyOf(seconds.map((i) => secondHistograms[i])) : { p50: null, p99: null, mean: null }),
      ...(result.stream != null ? { stream: streamOver(result, seconds) } : {}),
    });
  }
  const which = planned.steered
    ? `Each step is a stretch between two changes made while the run went (result.steps: startLoad's set${planned.kind === 'rate' ? 'Rate' : 'Connections'}).`
    : holding
      ? 'Each step is a stage that holds its count; the stages that move between steps (their connecting periods) are left out.'
      : `The ramp never holds ${planned.kind === 'rate' ? 'a rate' : 'a count'}, so each stage is a step, from where the previous one ended to its own${planned.kind === 'rate' ? '; the mean target is what its seconds aimed at' : ''}.`;
  const how =
    measured !== undefined
      ? `A step's numbers are its stage's in ${result.websocket?.stages !== undefined ? 'websocket.stages' : 'stream.subscriptions.stages (events, timed by their delivery)'}; its errors (and the server's numbers) those of the timeline seconds within it.`
      : `A step's numbers add up the timeline seconds wholly inside it${exactSeconds ? ", and its latency comes from those seconds' histograms (merge.timeline) added together" : '; this result has no per-second histograms, so no latency per step'}.`;
  const source = `${which} ${how}`;
  return { kind: planned.kind, steps, source };
}
