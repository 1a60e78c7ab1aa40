// The run's plan: its scenarios. A plain run is one scenario, `default`; `scenarios` gives several
// workloads at once on the run's one clock, each planned once here (its options over the run's as
// defaults), run under one start instant (plus its `start`), with one monitor, one set of outputs, one
// roll-up of seconds and one judgement of the run's thresholds (`run.ts`).
import { SalvoOptionError, SalvoRangeError } from './shared/errors.js';
import type { LoadOptions, ScenarioOptions } from './shared/load-options.js';
import type { Plan, PlanHooks, PlannedMonitor, PlannedOutput, PlannedThresholds } from './shared/plan.js';
import type { Thresholds } from './shared/terms.js';
import { durationOption, show } from './shared/validate.js';
import { planThresholds } from './stats/thresholds.js';
import { splitScope } from './stats/threshold-scope.js';
import { planOutputs } from './outputs/options.js';
import { planMonitor } from './monitor/options.js';
import { parseStartAt } from './segment-options.js';
import { importOptionModules, planLoad, rejectUnknownOptions, runKindOf } from './options.js';
import { KNOWN_OPTIONS, OPTION_TABLE, SCENARIO_KEYS } from './shared/option-table.js';

/** The options of the whole run, never a scenario's default. */
const RUN_OPTIONS = KNOWN_OPTIONS.filter((key) => OPTION_TABLE[key].run === true);

/** Options a scenario's own option replaces, with it: a scenario with `requests` drops the run's single request. */
const REPLACES: Partial<Record<keyof ScenarioOptions, ReadonlyArray<keyof LoadOptions>>> = {
  requests: ['body', 'name'],
  body: ['requests'],
  name: ['requests'],
  path: ['requests'],
  stages: ['duration', 'rate'],
  duration: ['stages'],
  rate: ['stages'],
  url: ['socketio', 'websocket'],
};

/** One workload of the run, planned once. */
export interface ScenarioPlan {
  /** `default` for a run without `scenarios`. */
  name: string;
  /** The whole plan of this scenario (before any `segment` share is taken). */
  plan: Plan;
  hooks: PlanHooks;
  /** How long after the run's measured start this scenario's starts, ms. */
  startMs: number;
}

/** The plan of a run: its scenarios, and what the whole run does once around them. */
export interface RunPlan {
  /** One, `default`, for a run without `scenarios`. */
  scenarios: ScenarioPlan[];
  /** Whether the run was given `scenarios` (its result then has `byScenario`). */
  named: boolean;
  /** The run's own url, when it has one: the target it names. */
  url: string | undefined;
  thresholds: PlannedThresholds | undefined;
  startAtMs: number | undefined;
  monitor: PlannedMonitor | undefined;
  outputs: PlannedOutput[] | undefined;
  signal: AbortSignal | undefined;
  onProgress: PlanHooks['onProgress'];
}

/** A scenario's error, named from the run's options: `scenarios.browse.rate`. */
function scenarioError(name: string, error: unknown): unknown {
  if (!(error instanceof SalvoOptionError || error instanceof SalvoRangeError)) return error;
  const option = `scenarios.${name}${error.option === '' ? '' : `.${error.option}`}`;
  const detail = {
    option,
    value: error.value,
    mentions: error.mentions.map((mention) => `scenarios.${name}.${mention}`),
    cause: error,
  };
  const message = `scenarios.${name}: ${error.message}`;
  return error instanceof SalvoRangeError
    ? new SalvoRangeError(message, detail)
    : new SalvoOptionError(message, detail);
}

/**
 * The thresholds a scenario checks while it runs, for `abortOnFail`: the run's, and its own
 * `{scenario:...}` ones without the scope. A scenario's counts are lower bounds of the run's, so a
 * count past its bound in one scenario is past it in the run. Judged once, on the whole run, after it.
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

/** `path` against the scenario's url (its own or the run's): the url of its single request. */
function pathUrl(path: unknown, base: unknown): string {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    const message = `path must be a string starting with '/', resolved against the url; got ${show(path)}`;
    throw new SalvoOptionError(message, { option: 'path', value: path });
  }
  if (typeof base !== 'string') {
    const message = `path needs a url to resolve against (the scenario's or the run's); got url ${show(base)}`;
    throw new SalvoOptionError(message, { option: 'path', value: path, mentions: ['url'] });
  }
  return new URL(path, base).href;
}

/** One scenario's options over the run's defaults, planned as `runLoad` plans a run. */
async function planScenario(
  name: string,
  scenario: unknown,
  defaults: Record<string, unknown>,
  options: LoadOptions,
): Promise<ScenarioPlan> {
  try {
    if (typeof scenario !== 'object' || scenario === null || Array.isArray(scenario)) {
      throw new SalvoOptionError(`must be an object of options; got ${show(scenario)}`, {
        option: '',
        value: scenario,
      });
    }
    rejectUnknownOptions(scenario, SCENARIO_KEYS);
    const { start, path, ...own } = scenario as ScenarioOptions;
    const merged: Record<string, unknown> = { ...defaults };
    for (const key of Object.keys(scenario) as Array<keyof ScenarioOptions>) {
      for (const replaced of REPLACES[key] ?? []) delete merged[replaced];
    }
    if (path !== undefined) own.url = pathUrl(path, own.url ?? merged['url']);
    // The run's options are defaults: one that this scenario's kind has no use for is left out (a
    // task scenario in a run with a url), while the scenario's own options are checked as a run's.
    const kind = runKindOf({ ...merged, ...own } as LoadOptions);
    for (const key of Object.keys(merged))
      if (!(OPTION_TABLE[key as keyof LoadOptions]?.kinds.includes(kind) ?? true)) delete merged[key];
    const scenarioOptions = { ...merged, ...own } as LoadOptions;
    const aborting = abortThresholds(options.thresholds, name);
    if (aborting !== undefined) scenarioOptions.thresholds = aborting;
    if (options.segment !== undefined) scenarioOptions.segment = options.segment;
    if (options.startAt !== undefined) scenarioOptions.startAt = options.startAt;
    const imported = await importOptionModules(scenarioOptions);
    const { plan, hooks } = planLoad(imported.options, imported.requestsModule, imported.task);
    const startMs = start === undefined ? 0 : durationOption('start', start, { allowZero: true });
    return { name, plan, hooks, startMs };
  } catch (error) {
    throw scenarioError(name, error);
  }
}

/** Plans a run with `scenarios`: each scenario once, and the run's own options. */
async function planScenarios(options: LoadOptions): Promise<RunPlan> {
  rejectUnknownOptions(options);
  const { scenarios } = options;
  if (
    typeof scenarios !== 'object' ||
    scenarios === null ||
    Array.isArray(scenarios) ||
    Object.keys(scenarios).length === 0
  ) {
    throw new SalvoOptionError(
      `scenarios must be an object of scenario names to their options, such as { browse: { rate: 500 } }; got ${show(scenarios)}`,
      { option: 'scenarios', value: scenarios },
    );
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new SalvoOptionError(`signal must be an AbortSignal; got ${show(options.signal)}`, {
      option: 'signal',
      value: options.signal,
    });
  }
  // Room for setConnections, which a run of scenarios does not take (only stop()).
  if (options.maxConnections !== undefined) {
    throw new SalvoOptionError(
      `maxConnections has no meaning in a run of scenarios: its connections cannot be steered; got maxConnections ${show(options.maxConnections)}`,
      { option: 'maxConnections', value: options.maxConnections },
    );
  }
  const { options: loaded } = await importOptionModules({ onProgress: options.onProgress } as LoadOptions);
  if (loaded.onProgress !== undefined && typeof loaded.onProgress !== 'function') {
    const message = `onProgress must be a function (or a module specifier); got ${show(options.onProgress)}`;
    throw new SalvoOptionError(message, { option: 'onProgress', value: options.onProgress });
  }
  const defaults: Record<string, unknown> = { ...options };
  for (const key of RUN_OPTIONS) delete defaults[key];
  const planned: ScenarioPlan[] = [];
  for (const [name, scenario] of Object.entries(scenarios)) {
    planned.push(await planScenario(name, scenario, defaults, options));
  }
  return {
    scenarios: planned,
    named: true,
    url: typeof options.url === 'string' ? options.url : undefined,
    // Checked here, once, so that a bad threshold fails before anything starts.
    thresholds: options.thresholds === undefined ? undefined : planThresholds(options.thresholds),
    startAtMs: parseStartAt(options.startAt),
    monitor: planMonitor(options.monitor),
    outputs: planOutputs(options.outputs),
    signal: options.signal,
    onProgress: loaded.onProgress,
  };
}

/**
 * Plans a run, validating every option before anything starts: a run of `scenarios`, or a plain run
 * as its one scenario, `default`.
 */
export async function planRun(options: LoadOptions): Promise<RunPlan> {
  if (typeof options === 'object' && options !== null && options.scenarios !== undefined) return planScenarios(options);
  const imported = await importOptionModules(options);
  const { plan, hooks } = planLoad(imported.options, imported.requestsModule, imported.task);
  return {
    scenarios: [{ name: 'default', plan, hooks, startMs: 0 }],
    named: false,
    url: plan.url,
    thresholds: plan.thresholds,
    startAtMs: plan.startAtMs,
    monitor: plan.monitor,
    outputs: hooks.outputs,
    signal: hooks.signal,
    onProgress: hooks.onProgress,
  };
}
