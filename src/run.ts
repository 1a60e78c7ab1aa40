import { runThread } from './workers/run-thread.js';
import { importOptionModules, planLoad } from './options.js';
import type { Plan, PlanHooks } from './shared/plan.js';
import { StartGate } from './runner/start-gate.js';
import { diagnose } from './stats/diagnose.js';
import { assertFileLimit } from './stats/file-limit.js';
import { mergeShards } from './stats/merge.js';
import { progressEvent, type OnRolledSecond } from './stats/progress-event.js';
import { compileThresholds, judgeThresholds } from './stats/thresholds.js';
import type { LoadOptions } from './shared/load-options.js';
import type { LoadResult } from './shared/load-result.js';
import type { LiveOutputs } from './outputs/live.js';
import { runWorkers } from './workers/pool.js';
import { segmentPlan } from './workers/shard.js';
import { watchServer } from './monitor/watch.js';
import { runScenarios } from './scenarios.js';

/** Who hears of each closed second of the whole run: `onProgress` and the outputs. */
function secondListener({ onProgress }: PlanHooks, outputs: LiveOutputs | undefined): OnRolledSecond | undefined {
  if (typeof onProgress !== 'function') return outputs?.onSecond;
  return (summary, totals) => {
    outputs?.onSecond(summary, totals);
    try {
      onProgress(progressEvent(summary, totals));
    } catch (error) {
      process.emitWarning(`salvo: onProgress threw: ${String(error)}`);
    }
  };
}

function runInProcess(plan: Plan, hooks: PlanHooks, start: StartGate, onSecond: OnRolledSecond | undefined) {
  return runThread(plan, {
    requests: hooks.requests,
    websocket: hooks.websocket,
    task: hooks.task,
    stream: hooks.stream,
    signal: hooks.signal,
    ready: start.wait,
    onSecond,
  });
}

/** The outputs, loaded only when some are configured. */
async function startOutputs(hooks: PlanHooks, plan: Plan): Promise<LiveOutputs | undefined> {
  if (hooks.outputs === undefined || hooks.outputs.length === 0) return undefined;
  return (await import('./outputs/live.js')).startOutputs(hooks.outputs, plan);
}

/**
 * Runs a load test and resolves with its result. Bad options reject with a SalvoOptionError or
 * SalvoRangeError naming the option; network trouble never rejects: it is counted in `errors`.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (typeof options === 'object' && options !== null && options.scenarios !== undefined) return runScenarios(options, runLoad);
  const imported = await importOptionModules(options);
  const { plan: whole, hooks } = planLoad(imported.options, imported.requestsModule, imported.task);
  const plan = whole.segment === undefined ? whole : segmentPlan(whole, whole.segment);
  assertFileLimit(plan);
  const outputs = await startOutputs(hooks, whole);
  const start = new StartGate(plan.startAtMs, plan.warmupMs, hooks.signal);
  // The monitor hands each second's server reading to onProgress: the outputs take it there too.
  const { onProgress } = hooks;
  const watch = watchServer(
    plan,
    outputs === undefined || plan.monitor === undefined
      ? hooks
      : {
          ...hooks,
          onProgress: (event) => {
            if (event.server !== undefined) outputs.onServer(event.second, event.server);
            if (typeof onProgress === 'function') onProgress(event);
          },
        },
    start,
  );
  const onSecond = secondListener(watch.hooks, outputs);
  let shards;
  try {
    shards = plan.workers > 1 ? await runWorkers(plan, watch.hooks, start, onSecond) : [await runInProcess(plan, watch.hooks, start, onSecond)];
  } catch (error) {
    await outputs?.abandon();
    throw error;
  } finally {
    watch.stop();
  }
  const result = mergeShards(plan, shards, false, whole);
  start.warn(result.warnings);
  await watch.attach(result);
  diagnose(result, plan);
  judgeThresholds(result, whole.thresholds && compileThresholds(whole.thresholds.parsed));
  await outputs?.finish(result);
  return result;
}
