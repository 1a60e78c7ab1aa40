import { formatThresholdActual } from '../stats/format.js';
import { BUSY_UTILIZATION } from '../stats/generator.js';
import { evaluateThresholds, type CompiledThreshold } from '../stats/thresholds.js';
import type { LoadResult } from '../shared/load-result.js';
import type { CapacityPhase, CapacityStep, StepLimit } from './types.js';

/** A step passes only if it completed at least this share of its target rate. */
const ACHIEVED_SHARE = 0.9;
/** A step passes only if it missed at most this share of its slots: it must have sent its rate. */
const MISSED_TO_PASS = 0.02;
/** Requests in flight at or above this share of the lanes: every connection was (nearly) always busy. */
const BUSY_SHARE = 0.8;
/**
 * Slots missed beyond this share with lanes to spare are the server's doing; below it they can be
 * the generator's own stall just before the end.
 */
const MISSED_SHARE = 0.05;
/** Metrics that measure how much the generator sent, not how the server answered. */
const GENERATOR_METRICS = /^(?:requests\.|bytes\.|durationMs$)/;

/** What `judgeStep` needs to know about the search. */
export interface JudgeContext {
  compiledSlo: readonly CompiledThreshold[];
  /** connections × pipelining. */
  lanes: number;
  /** The steps before this one, for the server's unloaded latency. */
  earlier: readonly CapacityStep[];
}

/**
 * The verdict on one step: passed when it met the objective, completed at least 90% of its target
 * rate and sent at least 98% of its slots; otherwise what held it back. A failed step is evidence about the server only when the server
 * itself missed the objective: its own response times (measured from the write) broke it, or it
 * errored. When the server answered within the objective and the requests lost their time before
 * the write instead, waiting for a connection or for a late pacer, the generator was the limit.
 */
export function judgeStep(
  context: JudgeContext,
  phase: CapacityPhase,
  rate: number,
  result: LoadResult,
  aborted: boolean,
): CapacityStep {
  const seconds = result.durationMs / 1000;
  const { sent, completed, perSecond, missed } = result.requests;
  const failures: string[] = [];
  if (aborted) {
    failures.push('aborted before the step ended');
  } else {
    for (const threshold of result.thresholds ?? []) {
      if (threshold.passed) continue;
      failures.push(
        `${threshold.metric} ${threshold.expression} (actual ${formatThresholdActual(threshold.metric, threshold.actual)})`,
      );
    }
    // A response the run does not accept (a 503 shedding load) is no capacity: only successes count.
    const failedResponses = (result.failed?.total ?? result.errors.total) - result.errors.total;
    const succeeded = seconds > 0 ? (completed - failedResponses) / seconds : 0;
    if (failedResponses > 0 && succeeded < ACHIEVED_SHARE * rate) {
      failures.push(
        `succeeded ${succeeded.toFixed(1)}/s (${failedResponses} responses failed: ${Object.keys(result.failed.byStatus).join(', ')}), under ${ACHIEVED_SHARE * 100}% of the target`,
      );
    } else if (perSecond < ACHIEVED_SHARE * rate) {
      failures.push(`completed ${perSecond.toFixed(1)}/s, under ${ACHIEVED_SHARE * 100}% of the target`);
    }
    if (missed > MISSED_TO_PASS * (sent + missed)) {
      failures.push(`${missed} of ${sent + missed} slots never sent`);
    }
  }
  const step: CapacityStep = {
    phase,
    rate,
    passed: failures.length === 0,
    failures,
    achievedRate: perSecond,
    sentRate: seconds > 0 ? sent / seconds : 0,
    missed,
    p50: result.latency.p50,
    p99: result.latency.p99,
    p99Uncorrected: result.latencyUncorrected.p99,
    errorRate: result.errors.total + completed === 0 ? 0 : result.errors.total / (result.errors.total + completed),
    result,
  };
  if (!step.passed && !aborted) {
    const limit = blame(context, result, rate);
    step.limitedBy = limit === 'server' && saturatedCpu(result) !== undefined ? 'server-cpu' : limit;
  }
  return step;
}

/** A server's CPU at or above this share of its cores (`monitor`) was the limit of a step it failed. */
const SERVER_CPU_SATURATED = 0.9;

/**
 * The CPU `monitor` saw saturated, at 90% of all the cores its sources count: the server processes',
 * or without them the machine's (node_exporter); undefined when neither was.
 */
export function saturatedCpu(
  result: LoadResult,
): { cpuPercent: number; cores: number; scope: 'server' | 'machine' } | undefined {
  const server = result.server;
  for (const [scope, figures] of [
    ['server', server],
    ['machine', server?.machine],
  ] as const) {
    if (figures?.cpuPercent === undefined || figures.cores === undefined) continue;
    return figures.cpuPercent >= SERVER_CPU_SATURATED * 100 * figures.cores
      ? { cpuPercent: figures.cpuPercent, cores: figures.cores, scope }
      : undefined;
  }
  return undefined;
}

function blame(context: JudgeContext, result: LoadResult, rate: number): StepLimit {
  // A busy event loop also delays reading responses, so the server's own time is not to be trusted.
  if (generatorBusy(result)) return 'generator';
  // Late sends (send lag: a stall of the host, or of the pacer) are kept out of the latency from the
  // write, so a server that broke the objective on its own time is the limit whatever the lag.
  if (!serverKeptObjective(context, result)) return 'server';
  if (generatorSaturated(result)) return 'generator';
  const { sent, perSecond, missed } = result.requests;
  // Little's law: the requests in flight that the server's own latency implies at this rate.
  const inFlight = (perSecond * result.latencyUncorrected.mean) / 1000;
  if (inFlight >= BUSY_SHARE * context.lanes) return 'connections';
  // The answered requests left lanes free, yet many slots found none: requests the server never
  // answered held them (a server that stops answering leaves no slow responses to measure).
  if (missed > MISSED_SHARE * (sent + missed)) return 'server';
  // Sent on time, yet too few answered: the server holds them (a queue whose requests are each
  // slow already, as an inference engine's, need not double its median).
  if (missed <= MISSED_TO_PASS * (sent + missed) && perSecond < ACHIEVED_SHARE * rate) return 'server';
  return 'generator';
}

/**
 * Whether the server answered within the objective: the objective evaluated on the latency from
 * the actual write (the server's own time), leaving out what only the generator decides (requests
 * sent, bytes). With no latency in the objective, the server also must not have slowed down: its
 * median stays within twice its unloaded median (the lowest of any step) plus 1 ms, since a server
 * that queues holds every connection the generator gives it.
 */
function serverKeptObjective(context: JudgeContext, result: LoadResult): boolean {
  const serverSide = context.compiledSlo.filter((threshold) => !GENERATOR_METRICS.test(threshold.metric));
  const asServerSaw: LoadResult = { ...result, latency: result.latencyUncorrected };
  // An objective on one name (`latency.p99{name:checkout}`) reads that name's time from the write too.
  if (result.byName !== undefined) {
    asServerSaw.byName = Object.fromEntries(
      Object.entries(result.byName).map(([name, stats]) => [name, { ...stats, latency: stats.latencyUncorrected }]),
    );
  }
  if (!evaluateThresholds(serverSide, asServerSaw).every((threshold) => threshold.passed)) return false;
  if (serverSide.some((threshold) => threshold.metric.startsWith('latency'))) return true;
  let unloadedP50 = result.latencyUncorrected.p50;
  for (const step of context.earlier) {
    if (step.result.requests.completed > 0) unloadedP50 = Math.min(unloadedP50, step.result.latencyUncorrected.p50);
  }
  return result.latencyUncorrected.p50 <= 2 * unloadedP50 + 1;
}

/**
 * The generator's own verdict on itself (`result.generator.saturated` and its GENERATOR_SATURATED
 * warning, from the pacing work that measures its CPU and event loop). Read without relying on the
 * field's type, which lands separately.
 */
/** Its event loop was busy for the run (the first half of the saturation verdict, not send lag). */
function generatorBusy(result: LoadResult): boolean {
  const generator = (result as { generator?: { eventLoopUtilization?: unknown } }).generator;
  return typeof generator?.eventLoopUtilization === 'number' && generator.eventLoopUtilization > BUSY_UTILIZATION;
}

function generatorSaturated(result: LoadResult): boolean {
  const generator = (result as { generator?: { saturated?: unknown } }).generator;
  return generator?.saturated === true || result.warnings.some((warning) => warning.code === 'GENERATOR_SATURATED');
}
