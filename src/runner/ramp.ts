import type { Plan, PlannedStage } from '../shared/plan.js';

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

/**
 * The connection ramp of every protocol (connection `stages`): the connections in use, `connections`
 * and then each tick's target. The HTTP engine and the task runner (through the closed loop), the
 * WebSocket runner and SSE subscriptions each open, park or close their own connections on a step.
 */
export class ConnectionRamp {
  /** Connections (call slots) in use: `connections`, then the ramp's target. */
  active: number;
  readonly #plan: Plan;

  constructor(plan: Plan) {
    this.#plan = plan;
    this.active = plan.connections;
  }

  /** The run's handle set the connections: the stages no longer move them. */
  steered = false;

  /** Moves `active` to the target due at `now`; returns what it was, or undefined when it did not move (no ramp, not measuring yet). */
  step(now: number, measureAt: number): number | undefined {
    if (this.#plan.ramps !== 'connections' || now < measureAt || this.steered) return undefined;
    const target = connectionTarget(this.#plan.stages!, this.#plan.connections, now - measureAt);
    if (target === this.active) return undefined;
    const before = this.active;
    this.active = target;
    return before;
  }
}
