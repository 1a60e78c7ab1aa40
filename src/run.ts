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
import { watchServer, type ServerWatch } from './monitor/watch.js';
import { runScenarios } from './scenarios.js';

/**
 * The one route of each closed second of the whole run: the outputs take it at once; `onProgress`
 * and the outputs' server series take it with the server's reading of it (`monitor`), in order.
 */
function secondRoute({ onProgress }: PlanHooks, outputs: LiveOutputs | undefined, watch: ServerWatch): OnRolledSecond | undefined {
  const progress = typeof onProgress === 'function' ? onProgress : undefined;
  if (progress === undefined && outputs === undefined) return undefined;
  return (summary, totals) => {
    outputs?.onSecond(summary, totals);
    const event = progress === undefined ? undefined : progressEvent(summary, totals);
    watch.withServer(summary.second, (server) => {
      if (server !== undefined) outputs?.onServer(summary.second, server);
      if (event !== undefined) progress?.(server === undefined ? event : { ...event, server });
    });
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
  const watch = watchServer(plan, start);
  const onSecond = secondRoute(hooks, outputs, watch);
  let shards;
  try {
    shards = plan.workers > 1 ? await runWorkers(plan, hooks, start, onSecond) : [await runInProcess(plan, hooks, start, onSecond)];
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
