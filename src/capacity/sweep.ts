import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad } from '../start-load.js';
import type { LoadResult } from '../shared/load-result.js';
import { judgeStep } from './judge.js';
import { highest, kneedle, stoppedGaining } from './knee.js';
import { planSweep, type SweepPlan } from './sweep-options.js';
import type { CapacityStep } from './types.js';
import type { SweepOptions, SweepPoint, SweepResult } from './sweep-types.js';

/** More than this share of a point's requests failed: errors dominate, the server is past saturation. */
const ERRORS_DOMINATE = 0.5;

/**
 * Runs a series of loads, lowest first, each for `stepDuration` after a warm-up: open-loop rates
 * (`sweep: { rates }`) or closed-loop connections (`sweep: { connections }`), and returns each
 * point's throughput, latency (and goodput with an `slo`, stream figures with `stream`) with the
 * knee marked (see `SweepResult.knee`). It stops after the first over-saturated point (see
 * `SweepPoint.saturated`) unless `stopAtSaturation: false`. `findCapacity` searches for one rate
 * within an objective; a sweep draws the curve around it. Bad options reject with a
 * SalvoOptionError or SalvoRangeError naming them, before any point runs.
 */
export async function sweep(options: SweepOptions): Promise<SweepResult> {
  const startedAt = performance.now();
  const plan = await planSweep(options);
  const points: SweepPoint[] = [];
  const judged: CapacityStep[] = [];
  let aborted = false;
  for (const [index, load] of plan.loads.entries()) {
    if (index > 0 && plan.pauseMs > 0) {
      await sleep(plan.pauseMs, undefined, { signal: plan.signal }).catch(() => undefined);
    }
    if (plan.signal?.aborted) {
      aborted = true;
      break;
    }
    notify(plan, { type: 'start', index, load });
    const setting = plan.over === 'rate' ? { rate: load } : { connections: load };
    const result = await runLoad({ ...plan.pointOptions, ...setting, duration: plan.stepMs });
    if (plan.signal?.aborted) {
      aborted = true;
      break;
    }
    const point = measurePoint(plan, load, result, points.at(-1), judged);
    points.push(point);
    notify(plan, { type: 'end', index, load, point });
    if (point.saturated && plan.stopAtSaturation) break;
  }
  return summariseSweep(plan, points, aborted, performance.now() - startedAt);
}

function measurePoint(
  plan: SweepPlan,
  load: number,
  result: LoadResult,
  previous: SweepPoint | undefined,
  judged: CapacityStep[],
): SweepPoint {
  const seconds = result.durationMs / 1000;
  const { sent, completed } = result.requests;
  const failedResponses = (result.failed?.total ?? result.errors.total) - result.errors.total;
  const throughput = seconds > 0 ? (completed - failedResponses) / seconds : 0;
  const failures = result.errors.total + failedResponses;
  const errorRate = sent === 0 ? 0 : failures / sent;
  // Goodput lands with the LLM workload's `slo`: read without relying on the field's type.
  const goodput = (result as { goodput?: { perSecond?: unknown } }).goodput?.perSecond;
  const point: SweepPoint = {
    load,
    throughput,
    sentRate: seconds > 0 ? sent / seconds : 0,
    ...(typeof goodput === 'number' ? { goodput } : {}),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    errorRate,
    saturated: false,
    result,
  };
  if (errorRate > ERRORS_DOMINATE) {
    point.saturated = true;
    point.why = `${failures} of ${sent} requests failed`;
  } else if (plan.over === 'rate') {
    // The capacity search's verdict on a step with no objective: kept up with the rate, or what held it.
    const step = judgeStep({ compiledSlo: [], lanes: plan.lanes, earlier: judged }, 'grow', load, result, false);
    judged.push(step);
    if (!step.passed) {
      point.saturated = true;
      point.why = step.failures.join('; ');
      if (step.limitedBy !== undefined) point.limitedBy = step.limitedBy;
    }
  } else if (previous !== undefined && stoppedGaining(previous.load, previous.throughput, load, throughput)) {
    point.saturated = true;
    point.why = `throughput ${throughput.toFixed(1)}/s at ${load} connections, up ${(100 * (throughput / previous.throughput - 1)).toFixed(0)}% on ${previous.throughput.toFixed(1)}/s at ${previous.load}`;
  }
  return point;
}

/** The sweep's result from its points: the knee, where it saturated, and the outcome in words. */
export function summariseSweep(
  plan: Pick<SweepPlan, 'url' | 'over' | 'loads'>,
  points: SweepPoint[],
  aborted: boolean,
  durationMs: number,
): SweepResult {
  const firstSaturated = points.findIndex((point) => point.saturated);
  const withGoodput = points.length > 0 && points.every((point) => point.goodput !== undefined);
  let knee: number | undefined;
  let kneeMethod: SweepResult['kneeMethod'];
  if (withGoodput) {
    knee = highest(points.map((point) => point.goodput));
    kneeMethod = knee === undefined ? undefined : 'goodput';
  } else if (firstSaturated >= 0) {
    const curve = points.slice(0, firstSaturated + 1);
    knee = kneedle(
      curve.map((point) => point.load),
      curve.map((point) => point.throughput),
    );
    // Two points have no bend: the one that kept up is the knee.
    if (knee === undefined && firstSaturated > 0) knee = firstSaturated - 1;
    kneeMethod = knee === undefined ? undefined : 'kneedle';
  }
  const unit = plan.over === 'rate' ? 'req/s' : 'connections';
  const saturated = firstSaturated >= 0 ? points[firstSaturated]! : undefined;
  const parts: string[] = [];
  if (knee !== undefined) {
    const point = points[knee]!;
    parts.push(
      `Knee at ${point.load} ${unit} (${kneeMethod === 'goodput' ? `highest goodput, ${point.goodput!.toFixed(1)}/s` : `throughput ${point.throughput.toFixed(1)}/s`}, p99 ${point.p99.toFixed(2)} ms).`,
    );
  }
  if (saturated !== undefined) {
    const limit =
      saturated.limitedBy !== undefined && saturated.limitedBy !== 'server' && saturated.limitedBy !== 'server-cpu';
    parts.push(
      limit
        ? `Saturated at ${saturated.load} ${unit}, limited by the ${saturated.limitedBy === 'connections' ? 'connections (give more)' : 'load generator (give more workers)'}, not the server: ${saturated.why}.`
        : `The server saturated at ${saturated.load} ${unit}: ${saturated.why}.`,
    );
  } else if (!aborted) {
    parts.push(`The server kept up with every load up to ${plan.loads.at(-1)} ${unit}: the knee is beyond it.`);
  }
  if (aborted) parts.push(`Aborted after ${points.length} of ${plan.loads.length} points.`);
  return {
    url: plan.url,
    over: plan.over,
    loads: plan.loads,
    points,
    knee,
    kneeMethod,
    saturatedAt: saturated?.load,
    message: parts.join(' '),
    aborted,
    durationMs,
  };
}

function notify(plan: SweepPlan, event: Parameters<NonNullable<SweepPlan['onPoint']>>[0]): void {
  try {
    plan.onPoint?.(event);
  } catch (error) {
    process.emitWarning(`salvo: onPoint threw: ${String(error)}`);
  }
}
