import type { PlannedStage } from '../shared/plan.js';

/**
 * Closed-loop `stages`: the connections due `elapsedMs` into the measured run, moving linearly from
 * `initial` (the `connections` option) toward each stage's target, reached at the stage's end.
 */
export function connectionTarget(stages: readonly PlannedStage[], initial: number, elapsedMs: number): number {
  let elapsed = elapsedMs;
  let from = initial;
  for (const stage of stages) {
    const to = stage.connections!;
    if (elapsed < stage.durationMs) return Math.round(from + ((to - from) * elapsed) / stage.durationMs);
    elapsed -= stage.durationMs;
    from = to;
  }
  return from;
}
