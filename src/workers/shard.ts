import type { Plan, PlannedStage } from '../shared/plan.js';

/**
 * How many worker threads a run can use: every worker needs at least one connection, and, when the
 * run has them, at least one request of `amount` and 1 request/s of `rate`. A worker with none of
 * those would open a thread that never sends (or, with a zero rate and an amount, never ends).
 */
export function usableWorkers(
  requested: number,
  limits: { connections: number; amount: number | undefined; rate: number | undefined },
): number {
  // A share of a split rate may be fractional (1,000/s over 3 segments): whole requests/s count.
  return Math.max(
    1,
    Math.min(requested, limits.connections, limits.amount ?? Infinity, Math.floor(limits.rate ?? Infinity)),
  );
}

/** `total` split into `parts` integers that differ by at most one; the first ones take the remainder. */
export function splitEvenly(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  const remainder = total - base * parts;
  return Array.from({ length: parts }, (_, index) => base + (index < remainder ? 1 : 0));
}

/**
 * The integer `total` split in proportion to `weights` so that the parts sum to `total` exactly
 * (largest remainder; ties go to the earlier part). When `total` is at least the number of parts,
 * every part gets at least one, taken from the largest part.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
  const quotas = weights.map((weight) => (total * weight) / weightSum);
  const parts = quotas.map(Math.floor);
  let left = total - parts.reduce((sum, part) => sum + part, 0);
  const byRemainder = quotas
    .map((quota, index) => ({ index, remainder: quota - Math.floor(quota) }))
    .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of byRemainder) {
    if (left === 0) break;
    parts[index]!++;
    left--;
  }
  if (total >= parts.length) {
    for (let index = 0; index < parts.length; index++) {
      if (parts[index]! > 0) continue;
      const largest = parts.indexOf(Math.max(...parts));
      parts[largest]!--;
      parts[index] = 1;
    }
  }
  return parts;
}

/**
 * Splits a plan into `count` shares that together do exactly what the plan asks: connections split
 * evenly (5 over 2 is 3 + 2). A closed loop's `amount` is split in proportion to each share's
 * connections.
 *
 * An open loop is split by slots, not by connections: share j of w of a plan whose own phase is p
 * runs at rate / w (rate stages scaled the same way) with phase (p + j) / w, so that it sends the
 * slots j, j + w, j + 2w, ... of the whole schedule, whatever its connections; its `amount` is its
 * share of the first `amount` slots (splitEvenly). Worker j of segment i of n (phase i / n) gets
 * (i + j n) / (n w), the slots i + j n + k n w: every worker of every segment takes its own turn in
 * the one schedule, the arrivals are as even as one generator's, and the slots before any moment add
 * up to the whole schedule's exactly. This one split serves both worker threads and segments (`segment: { index, count }`, one process
 * or machine each), so the two compose.
 */
export function splitPlan(plan: Plan, count: number): Plan[] {
  const connections = splitEvenly(plan.connections, count);
  const openLoop = plan.loop === 'open';
  const amounts =
    plan.amount === undefined
      ? undefined
      : openLoop
        ? splitEvenly(plan.amount, count)
        : apportion(plan.amount, connections);
  const stageConnections = plan.stages?.map((stage) =>
    stage.connections === undefined ? undefined : splitEvenly(stage.connections, count),
  );
  const phased = openLoop && (count > 1 || plan.ratePhase !== undefined);
  const maxConnections = plan.maxConnections === undefined ? undefined : splitEvenly(plan.maxConnections, count);
  return connections.map((shareConnections, index): Plan => {
    const stages = plan.stages?.map((stage, stageIndex): PlannedStage => {
      const scaled: PlannedStage = { durationMs: stage.durationMs };
      if (stage.rate !== undefined) scaled.rate = stage.rate / count;
      const split = stageConnections?.[stageIndex];
      if (split !== undefined) scaled.connections = split[index]!;
      return scaled;
    });
    return {
      ...plan,
      workers: 1,
      connections: shareConnections,
      amount: amounts?.[index],
      rate: plan.rate === undefined ? undefined : plan.rate / count,
      stages,
      ...(phased ? { ratePhase: ((plan.ratePhase ?? 0) + index) / count } : {}),
      // Split as the handle's setConnections splits a count, so a share's part never exceeds its lanes.
      ...(maxConnections !== undefined ? { maxConnections: maxConnections[index]! } : {}),
      ...(plan.arrivals !== undefined ? { arrivals: { ...plan.arrivals, stride: plan.arrivals.stride * count } } : {}),
      // Prompts are dealt as rate slots are: share `index` takes every `count`-th of its parent's.
      ...(plan.llm !== undefined
        ? { llm: { ...plan.llm, offset: plan.llm.offset + index * plan.llm.stride, stride: plan.llm.stride * count } }
        : {}),
      // Journeys (and their feed rows) are numbered as the slots are: share j of w takes j, j + w, ...
      ...(plan.journey !== undefined
        ? {
            journey: {
              ...plan.journey,
              first: plan.journey.first + index * plan.journey.stride,
              stride: plan.journey.stride * count,
            },
          }
        : {}),
    };
  });
}

/**
 * One plan per worker thread (see `splitPlan`). The number of shards is
 * `usableWorkers(plan.workers, plan)`, so it never exceeds the connections.
 */
export function shardPlan(plan: Plan): Plan[] {
  return splitPlan(plan, usableWorkers(plan.workers, plan));
}

/**
 * The `index`-th of `count` shares of the plan, as a plan of its own that keeps the whole plan's
 * `workers` (as many as the share can use): a segment's worker threads split its share further.
 */
export function segmentPlan(plan: Plan, segment: { index: number; count: number }): Plan {
  const share = splitPlan(plan, segment.count)[segment.index]!;
  return { ...share, workers: usableWorkers(plan.workers, share) };
}
