import type { LoadResult } from '../shared/load-result.js';

/** A stretch of a steered run between two changes, as the step figures read a stage. */
export interface SteeredStage {
  durationMs: number;
  target: number;
}

/**
 * A run steered by `startLoad`'s handle (`result.steps`), read as stages that each hold one value:
 * the rate (a rate run) or the connections (a closed loop) from one change to the next, the first
 * from the run's own. Undefined when no change was of that kind, or the result has no steps.
 */
export function steeredStages(
  result: LoadResult,
): { kind: 'connections' | 'rate'; stages: SteeredStage[]; start: number } | undefined {
  const plan = result.merge?.plan;
  const kind = plan?.rate !== undefined || result.rate !== undefined ? 'rate' : 'connections';
  const changes = (result.steps ?? []).flatMap(({ atMs, rate, connections }) => {
    const value = kind === 'rate' ? rate : connections;
    return value === undefined ? [] : [{ atMs: Math.min(atMs, result.durationMs), value }];
  });
  if (changes.length === 0) return undefined;
  const start = kind === 'rate' ? (plan?.rate ?? result.rate ?? 0) : (plan?.connections ?? result.connections);
  const stages: SteeredStage[] = [];
  let fromMs = 0;
  let target = start;
  for (const { atMs, value } of changes) {
    if (atMs > fromMs) stages.push({ durationMs: atMs - fromMs, target });
    fromMs = Math.max(fromMs, atMs);
    target = value;
  }
  stages.push({ durationMs: Math.max(0, result.durationMs - fromMs), target });
  return { kind, stages, start };
}
