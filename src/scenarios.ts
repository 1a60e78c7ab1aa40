// `scenarios`: several workloads at once on the run's one clock. Each scenario is a run of its own
// (its plan, schedule, connections and worker threads), started at one shared wall-clock instant
// (plus its `start`) by the start gate that segments use; their results are added up by the one
// merge into the run's, and kept whole in `byScenario`.
import { SalvoOptionError, SalvoRangeError } from './shared/errors.js';
import type { LoadOptions, ScenarioOptions } from './shared/load-options.js';
import type { LoadResult } from './shared/load-result.js';
import type { Thresholds } from './shared/terms.js';
import { durationOption, rejectUnknownKeys, show } from './shared/validate.js';
import { wallClockMs } from './runner/start-gate.js';
import { sumResults } from './stats/merge-results.js';
import { compileThresholds, judgeThresholds, planThresholds } from './stats/thresholds.js';
import { splitScope } from './stats/threshold-scope.js';
import { importOptionModules, KNOWN_OPTIONS, planLoad } from './options.js';
import { prewarmLeadMs } from './engine/prewarm.js';
import { withOneTestId } from './outputs/test-id.js';

/** The options of the whole run, never a scenario's default. */
const RUN_OPTIONS = ['scenarios', 'thresholds', 'onProgress', 'outputs', 'monitor', 'signal', 'segment', 'startAt'] as const;
const SCENARIO_KEYS = [...KNOWN_OPTIONS.filter((key) => !(RUN_OPTIONS as readonly string[]).includes(key)), 'start'];

/**
 * From the connections opening to the shared start: time for every scenario's threads to start and
 * connect, so that they all start on time (a late one starts at once, with `LATE_START`).
 */
const START_LEAD_MS = 750;

/** Options a scenario's own option replaces, with it: a scenario with `requests` drops the run's single request. */
const REPLACES: Partial<Record<keyof ScenarioOptions, ReadonlyArray<keyof LoadOptions>>> = {
  requests: ['body', 'name'],
  body: ['requests'],
  name: ['requests'],
  stages: ['duration', 'rate'],
  duration: ['stages'],
  rate: ['stages'],
  url: ['socketio', 'websocket'],
};

interface PlannedScenario {
  name: string;
  options: LoadOptions;
  startMs: number;
  /** Its warm-up and pre-warm, which run before `startMs`. */
  warmupMs: number;
}

/** A scenario's error, named from the run's options: `scenarios.browse.rate`. */
function scenarioError(name: string, error: unknown): unknown {
  if (!(error instanceof SalvoOptionError || error instanceof SalvoRangeError)) return error;
  const option = `scenarios.${name}${error.option === '' ? '' : `.${error.option}`}`;
  const detail = { option, value: error.value, mentions: error.mentions.map((mention) => `scenarios.${name}.${mention}`), cause: error };
  const message = `scenarios.${name}: ${error.message}`;
  return error instanceof SalvoRangeError ? new SalvoRangeError(message, detail) : new SalvoOptionError(message, detail);
}

/** Each scenario's options over the run's, checked as `runLoad` checks a run's before anything starts. */
async function planScenarios(options: LoadOptions): Promise<PlannedScenario[]> {
  const { scenarios } = options;
  if (typeof scenarios !== 'object' || scenarios === null || Array.isArray(scenarios) || Object.keys(scenarios).length === 0) {
    throw new SalvoOptionError(`scenarios must be an object of scenario names to their options, such as { browse: { rate: 500 } }; got ${show(scenarios)}`, { option: 'scenarios', value: scenarios });
  }
  const defaults: Record<string, unknown> = { ...options };
  for (const key of RUN_OPTIONS) delete defaults[key];
  const planned: PlannedScenario[] = [];
  for (const [name, scenario] of Object.entries(scenarios)) {
    try {
      if (typeof scenario !== 'object' || scenario === null || Array.isArray(scenario)) {
        throw new SalvoOptionError(`must be an object of options; got ${show(scenario)}`, { option: '', value: scenario });
      }
      rejectUnknownKeys(scenario, SCENARIO_KEYS);
      const { start, ...own } = scenario;
      const merged: Record<string, unknown> = { ...defaults };
      for (const key of Object.keys(own) as Array<keyof ScenarioOptions>) for (const replaced of REPLACES[key] ?? []) delete merged[replaced];
      const scenarioOptions = { ...merged, ...own } as LoadOptions;
      const imported = await importOptionModules(scenarioOptions);
      const { plan } = planLoad(imported.options, imported.requestsModule, imported.task);
      planned.push({ name, options: scenarioOptions, startMs: start === undefined ? 0 : durationOption('start', start, { allowZero: true }), warmupMs: plan.warmupMs + prewarmLeadMs(plan) });
    } catch (error) {
      throw scenarioError(name, error);
    }
  }
  return planned;
}

/**
 * The thresholds a scenario checks while it runs, for `abortOnFail`: the run's, and its own
 * `{scenario:...}` ones without the scope. A scenario's counts are lower bounds of the run's, so a
 * count past its bound in one scenario is past it in the run.
 */
function abortThresholds(thresholds: Thresholds | undefined, scenario: string): Thresholds | undefined {
  if (thresholds === undefined) return undefined;
  const kept: Thresholds = {};
  for (const [metric, spec] of Object.entries(thresholds)) {
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec) || spec.abortOnFail !== true) continue;
    const split = splitScope(metric);
    if (split?.scope?.kind === 'scenario') {
      if (split.scope.key === scenario) kept[split.metric] = spec;
    } else kept[metric] = spec;
  }
  return Object.keys(kept).length === 0 ? undefined : kept;
}

/**
 * Runs `options.scenarios` at once with `run` (runLoad for one workload) and adds them up. An abort
 * (the signal, or an `abortOnFail` threshold in any scenario) ends them all.
 */
export async function runScenarios(options: LoadOptions, run: (options: LoadOptions) => Promise<LoadResult>): Promise<LoadResult> {
  rejectUnknownKeys(options, KNOWN_OPTIONS);
  const planned = await planScenarios(options);
  // Checked here, once, so that a bad threshold fails before anything starts.
  const thresholds = options.thresholds === undefined ? undefined : planThresholds(options.thresholds);
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) controller.abort();
  // A scenario warms up before its start: the shared start leaves room for the longest warm-up.
  const warmupLeadMs = Math.max(0, ...planned.map(({ startMs, warmupMs }) => warmupMs - startMs));
  const startAt = options.startAt === undefined ? wallClockMs() + START_LEAD_MS + warmupLeadMs : new Date(options.startAt).getTime();
  const { onProgress } = options;
  // One testid for every scenario's series (each starts at its own instant), told apart by a scenario label.
  const outputs = withOneTestId(options.outputs) as LoadOptions['outputs'];
  const results = await Promise.all(
    planned.map(async ({ name, options: scenario, startMs }, index) => {
      const aborting = abortThresholds(options.thresholds, name);
      const result = await run({
        ...scenario,
        ...(options.segment !== undefined ? { segment: options.segment } : {}),
        startAt: startAt + startMs,
        signal: controller.signal,
        ...(aborting !== undefined ? { thresholds: aborting } : {}),
        ...(typeof onProgress === 'function' ? { onProgress: (event) => onProgress({ ...event, scenario: name }) } : {}),
        // The server is watched once, from the first scenario: one source counted once.
        ...(index === 0 && options.monitor !== undefined ? { monitor: options.monitor } : {}),
        ...(Array.isArray(outputs) ? { outputs: outputs.map((output) => ({ ...output, labels: { ...output.labels, scenario: name } })) } : {}),
      });
      if (result.aborted) controller.abort();
      delete result.thresholds;
      result.ok = true;
      return result;
    }),
  );
  options.signal?.removeEventListener('abort', onAbort);
  const first = results[0]!;
  const plans = Object.fromEntries(planned.map(({ name }, index) => [name, results[index]!.merge.plan]));
  const rates = results.filter((result) => result.rate !== undefined);
  const result = sumResults(results, {
    url: first.url,
    transport: first.transport,
    connections: results.reduce((sum, part) => sum + part.connections, 0),
    // Scenarios with one worker share this thread; the others add their worker threads.
    workers: Math.max(1, results.reduce((sum, part) => sum + (part.workers > 1 ? part.workers : 0), 0)),
    rate: rates.length === 0 ? undefined : rates.reduce((sum, part) => sum + part.rate!, 0),
    merge: {
      ...(options.segment !== undefined ? { segment: first.merge.segment! } : {}),
      plan: { ...first.merge.plan, connections: results.reduce((sum, part) => sum + part.merge.plan.connections, 0), scenarios: plans },
      ...(options.thresholds !== undefined ? { thresholds: options.thresholds } : {}),
    },
  });
  result.byScenario = Object.fromEntries(planned.map(({ name }, index) => [name, results[index]!]));
  judgeThresholds(result, thresholds && compileThresholds(thresholds.parsed));
  return result;
}

