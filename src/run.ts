import { runThread } from './workers/run-thread.js';
import type { Plan, PlanHooks } from './shared/plan.js';
import { StartGate, wallClockMs } from './runner/start-gate.js';
import { diagnose } from './stats/diagnose.js';
import { assertFileLimit } from './stats/file-limit.js';
import { mergeShards } from './stats/merge.js';
import { sumResults } from './stats/merge-results.js';
import { progressEvent, type OnRolledSecond } from './stats/progress-event.js';
import { compileThresholds, judgeThresholds } from './stats/thresholds.js';
import type { LoadOptions } from './shared/load-options.js';
import type { LoadResult, MergePlan, ProgressEvent } from './shared/load-result.js';
import type { LiveOutputs } from './outputs/live.js';
import { runWorkers } from './workers/pool.js';
import { segmentPlan } from './workers/shard.js';
import type { ShardStats } from './stats/recorder.js';
import { ScenarioSeconds } from './workers/scenario-seconds.js';
import { watchServer, type ServerWatch } from './monitor/watch.js';
import { planRun, type RunPlan, type ScenarioPlan } from './scenarios.js';
import { prewarmLeadMs } from './engine/prewarm.js';
import { RunSteering } from './workers/run-steering.js';

/**
 * From the connections opening to the shared start of a run of scenarios: time for every scenario's
 * threads to start and connect, so that they all start on time (a late one starts at once, with `LATE_START`).
 */
const START_LEAD_MS = 750;

/** What a second's public event gets besides its numbers: its scenarios' parts. */
type Decorate = (second: number, event: ProgressEvent) => ProgressEvent;

/**
 * The one route of each closed second of the whole run: the outputs take it at once; `onProgress`
 * and the outputs' server series take it with the server's reading of it (`monitor`), in order.
 */
export function secondRoute(
  onProgress: PlanHooks['onProgress'],
  outputs: LiveOutputs | undefined,
  watch: ServerWatch,
  decorate?: Decorate,
  tap?: OnRolledSecond,
): OnRolledSecond | undefined {
  const progress = typeof onProgress === 'function' ? onProgress : undefined;
  if (progress === undefined && outputs === undefined && tap === undefined) return undefined;
  return (summary, totals) => {
    tap?.(summary, totals);
    outputs?.onSecond(summary, totals);
    const plain = progress === undefined ? undefined : progressEvent(summary, totals);
    const event = plain === undefined || decorate === undefined ? plain : decorate(summary.second, plain);
    watch.withServer(summary.second, (server) => {
      if (server !== undefined) outputs?.onServer(summary.second, server);
      if (event !== undefined) progress?.(server === undefined ? event : { ...event, server });
    });
  };
}

/** One scenario's shards: on worker threads, or in this one. */
type OnSecond = OnRolledSecond | undefined;

function runShards(
  plan: Plan,
  hooks: PlanHooks,
  start: StartGate,
  onSecond: OnSecond,
  steering?: RunSteering,
): Promise<ShardStats[]> {
  if (plan.workers > 1) return runWorkers(plan, hooks, start, onSecond, steering);
  const { requests, websocket, task, stream, signal } = hooks;
  const steered = steering?.inThisThread();
  const thread = runThread(plan, {
    requests,
    websocket,
    task,
    stream,
    signal,
    ready: start.wait,
    onSecond,
    steering: steered,
  });
  return thread.then((shard) => [shard]);
}

/** The outputs, loaded only when some are configured. */
export async function startOutputs(outputs: PlanHooks['outputs'], plan: Plan): Promise<LiveOutputs | undefined> {
  if (outputs === undefined || outputs.length === 0) return undefined;
  return (await import('./outputs/live.js')).startOutputs(outputs, plan);
}

/**
 * The run `startLoad` (and so `runLoad`) starts, steered by its handle: its result. Bad options
 * reject with a SalvoOptionError or SalvoRangeError naming the option; network trouble never
 * rejects: it is counted in `errors`.
 */
export async function runSteered(
  options: LoadOptions,
  steering: RunSteering,
  tap?: OnRolledSecond,
): Promise<LoadResult> {
  if (options.agents !== undefined) {
    const { coordinate } = await import('./agents/coordinator.js');
    return coordinate({ ...options, signal: steering.signal(options.signal) }, { secondRoute, startOutputs });
  }
  const run = await planRun(options);
  if (!run.named) return runScenario(run.scenarios[0]!, steering, tap);
  run.signal = steering.signal(run.signal);
  return runScenarios(run, tap);
}

/** The run of an agent's segment: every closed second of it, its encoded histogram too, also goes to `tap`. */
export function runLoadTapped(options: LoadOptions, tap: OnRolledSecond | undefined): Promise<LoadResult> {
  return runSteered(options, new RunSteering(options), tap);
}

/** A plain run: its one scenario, with the run's outputs, monitor and thresholds its own. */
async function runScenario(
  { plan: whole, hooks: given }: ScenarioPlan,
  steering: RunSteering,
  tap?: OnRolledSecond,
): Promise<LoadResult> {
  const plan = whole.segment === undefined ? whole : segmentPlan(whole, whole.segment);
  assertFileLimit(plan);
  const hooks = { ...given, signal: steering.signal(given.signal) };
  const outputs = await startOutputs(hooks.outputs, whole);
  const start = new StartGate(plan.startAtMs, plan.warmupMs, hooks.signal);
  const watch = watchServer(plan, start);
  steering.bind(whole, plan, start);
  let shards;
  try {
    shards = await runShards(
      plan,
      hooks,
      start,
      secondRoute(hooks.onProgress, outputs, watch, undefined, tap),
      steering,
    );
  } catch (error) {
    await outputs?.abandon();
    throw error;
  } finally {
    steering.end();
    watch.stop();
  }
  const result = mergeShards(plan, shards, false, whole);
  if (steering.steps.length > 0) result.steps = steering.steps;
  start.warn(result.warnings);
  await watch.attach(result);
  diagnose(result, plan);
  judgeThresholds(result, whole.thresholds && compileThresholds(whole.thresholds.parsed));
  await outputs?.finish(result);
  return result;
}

/** The whole run's plan in the result: what the scenarios share, and each one's own. */
function scenariosMergePlan(results: LoadResult[], run: RunPlan): MergePlan {
  const plans = results.map((result) => result.merge.plan);
  const ends = run.scenarios.map(({ startMs }, index) => {
    const durationMs = plans[index]!.durationMs;
    return durationMs === undefined ? undefined : startMs + durationMs;
  });
  const transports = new Set(plans.map((plan) => plan.transport));
  return {
    transport: transports.size === 1 ? plans[0]!.transport : results[0]!.transport,
    connections: plans.reduce((sum, plan) => sum + plan.connections, 0),
    ...(ends.every((end) => end !== undefined) ? { durationMs: Math.max(...(ends as number[])) } : {}),
    pipelining: Math.max(...plans.map((plan) => plan.pipelining)),
    keepAlive: plans.every((plan) => plan.keepAlive),
    warmupMs: Math.max(...plans.map((plan) => plan.warmupMs)),
    requests: [...new Set(plans.flatMap((plan) => plan.requests))],
    scenarios: Object.fromEntries(run.scenarios.map(({ name }, index) => [name, plans[index]!])),
  };
}

/**
 * Runs a plan of scenarios at once on one start instant and adds them up: one monitor, one set of
 * outputs and one roll-up of seconds for the whole run, its thresholds judged once on the sum. An
 * abort (the signal, an `abortOnFail` threshold in any scenario, a scenario that failed) ends them all.
 */
async function runScenarios(run: RunPlan, tap?: OnRolledSecond): Promise<LoadResult> {
  const { scenarios } = run;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  run.signal?.addEventListener('abort', onAbort, { once: true });
  if (run.signal?.aborted) controller.abort();
  // A scenario warms up before its start: the shared start leaves room for the longest warm-up.
  // A scenario's warm-up and pre-warm run before its start: the shared start leaves time for the longest.
  const warmupLeadMs = Math.max(
    0,
    ...scenarios.map(({ startMs, plan }) => plan.warmupMs + prewarmLeadMs(plan) - startMs),
  );
  const startAt = run.startAtMs ?? wallClockMs() + START_LEAD_MS + warmupLeadMs;
  const first = scenarios[0]!.plan;
  const spanMs = Math.max(...scenarios.map(({ startMs, plan }) => startMs + (plan.durationMs ?? 0)));
  const wholeSpan = { ...first, startAtMs: startAt, warmupMs: 0, durationMs: spanMs };
  const outputs = await startOutputs(run.outputs, wholeSpan);
  const watchStart = new StartGate(undefined, 0, undefined);
  const watch = watchServer({ ...wholeSpan, monitor: run.monitor }, watchStart);
  watchStart.onGo?.(startAt);
  const byScenario = new Map<number, ProgressEvent['byScenario']>();
  const withScenarios: Decorate = (second, event) => ({ ...event, byScenario: byScenario.get(second) ?? {} });
  const route = secondRoute(run.onProgress, outputs, watch, withScenarios, tap);
  const clocks = scenarios.map(({ name, startMs }) => ({ name, offsetSeconds: Math.round(startMs / 1000) }));
  const seconds =
    route &&
    new ScenarioSeconds(clocks, (summary, totals, parts) => {
      byScenario.set(summary.second, parts);
      route(summary, totals);
      byScenario.delete(summary.second);
    });
  let results: LoadResult[];
  try {
    results = await Promise.all(
      scenarios.map(async ({ plan: whole, hooks }, index) => {
        const scenarioWhole = { ...whole, startAtMs: startAt + scenarios[index]!.startMs };
        const { segment } = scenarioWhole;
        const plan = segment === undefined ? scenarioWhole : segmentPlan(scenarioWhole, segment);
        const start = new StartGate(plan.startAtMs, plan.warmupMs, controller.signal);
        let shards;
        try {
          assertFileLimit(plan);
          shards = await runShards(plan, { ...hooks, signal: controller.signal }, start, seconds?.scenario(index));
        } catch (error) {
          controller.abort();
          throw error;
        } finally {
          seconds?.finish(index);
        }
        const result = mergeShards(plan, shards, false, scenarioWhole);
        start.warn(result.warnings);
        diagnose(result, plan);
        // Its `abortOnFail` thresholds were checked while it ran; the run's are judged once, on the sum.
        delete result.merge.thresholds;
        if (result.aborted) controller.abort();
        return result;
      }),
    );
  } catch (error) {
    await outputs?.abandon();
    throw error;
  } finally {
    run.signal?.removeEventListener('abort', onAbort);
    seconds?.flush();
    watch.stop();
  }
  const firstResult = results[0]!;
  const transports = new Set(results.map((result) => result.transport));
  const rates = results.filter((result) => result.rate !== undefined);
  const result = sumResults(results, {
    url: run.url ?? firstResult.url,
    transport: transports.size === 1 ? firstResult.transport : first.transport,
    connections: results.reduce((sum, part) => sum + part.connections, 0),
    // Scenarios with one worker share this thread; the others add their worker threads.
    workers: Math.max(
      1,
      results.reduce((sum, part) => sum + (part.workers > 1 ? part.workers : 0), 0),
    ),
    rate: rates.length === 0 ? undefined : rates.reduce((sum, part) => sum + part.rate!, 0),
    merge: {
      ...(firstResult.merge.segment !== undefined ? { segment: firstResult.merge.segment } : {}),
      plan: scenariosMergePlan(results, run),
      ...(run.thresholds !== undefined ? { thresholds: run.thresholds.given } : {}),
    },
  });
  result.byScenario = Object.fromEntries(scenarios.map(({ name }, index) => [name, results[index]!]));
  await watch.attach(result);
  judgeThresholds(result, run.thresholds && compileThresholds(run.thresholds.parsed));
  await outputs?.finish(result);
  return result;
}
