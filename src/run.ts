import { runEngine } from './engine/engine.js';
import { loadPlan, type Plan, type PlanHooks } from './options.js';
import { mergeShards } from './stats/merge.js';
import type { SecondSummary } from './stats/recorder.js';
import { evaluateThresholds, parseThresholds } from './stats/thresholds.js';
import type { LoadOptions, LoadResult, ProgressEvent } from './types.js';
import { runWorkers } from './workers/pool.js';

/** The public event for one closed second. */
export function progressEvent(summary: Omit<SecondSummary, 'histogram'>, totals: ProgressEvent['totals']): ProgressEvent {
  return {
    second: summary.second,
    sent: summary.sent,
    completed: summary.completed,
    errors: summary.errors,
    p50: summary.p50,
    p99: summary.p99,
    connections: summary.connections,
    ...(summary.targetRate !== undefined ? { targetRate: summary.targetRate } : {}),
    totals,
  };
}

function runInProcess(plan: Plan, hooks: PlanHooks) {
  const { onProgress } = hooks;
  return runEngine(plan, {
    requests: hooks.requests,
    signal: hooks.signal,
    onSecond:
      typeof onProgress === 'function'
        ? (summary, totals) => {
            try {
              onProgress(progressEvent(summary, totals));
            } catch (error) {
              process.emitWarning(`salvo: onProgress threw: ${String(error)}`);
            }
          }
        : undefined,
  });
}

/**
 * Runs a load test and resolves with its result. Bad options reject with a SalvoOptionError or
 * SalvoRangeError naming the option; network trouble never rejects: it is counted in `errors`.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { plan, hooks } = await loadPlan(options);
  const thresholds = plan.thresholds === undefined ? undefined : parseThresholds(plan.thresholds);
  const shards = plan.workers > 1 ? await runWorkers(plan, hooks) : [await runInProcess(plan, hooks)];
  const result = mergeShards(plan, shards, false);
  if (thresholds !== undefined) {
    result.thresholds = evaluateThresholds(thresholds, result);
    result.ok = result.thresholds.every((threshold) => threshold.passed);
  }
  return result;
}
