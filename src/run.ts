import { runThread } from './workers/run-thread.js';
import { importOptionModules, planLoad } from './options.js';
import type { Plan, PlanHooks } from './plan.js';
import { StartGate } from './engine/start-gate.js';
import { diagnose } from './stats/diagnose.js';
import { assertFileLimit } from './stats/file-limit.js';
import { mergeShards } from './stats/merge.js';
import { progressEvent } from './stats/progress-event.js';
import { compileThresholds, judgeThresholds } from './stats/thresholds.js';
import type { LoadOptions, LoadResult } from './types.js';
import { runWorkers } from './workers/pool.js';
import { segmentPlan } from './workers/shard.js';
import { watchServer } from './monitor/watch.js';

function runInProcess(plan: Plan, hooks: PlanHooks, start: StartGate) {
  const { onProgress } = hooks;
  return runThread(plan, {
    requests: hooks.requests,
    websocket: hooks.websocket,
    signal: hooks.signal,
    ready: start.wait,
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
  const imported = await importOptionModules(options);
  const { plan: whole, hooks } = planLoad(imported.options, imported.requestsModule);
  const plan = whole.segment === undefined ? whole : segmentPlan(whole, whole.segment);
  assertFileLimit(plan);
  const start = new StartGate(plan.startAtMs, plan.warmupMs, hooks.signal);
  const watch = watchServer(plan, hooks, start);
  let shards;
  try {
    shards = plan.workers > 1 ? await runWorkers(plan, watch.hooks, start) : [await runInProcess(plan, watch.hooks, start)];
  } finally {
    watch.stop();
  }
  const result = mergeShards(plan, shards, false, whole);
  start.warn(result.warnings);
  await watch.attach(result);
  diagnose(result, plan);
  judgeThresholds(result, whole.thresholds && compileThresholds(whole.thresholds.parsed));
  return result;
}
