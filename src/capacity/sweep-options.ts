import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import { importOptionModules, KNOWN_OPTIONS, planLoad } from '../options.js';
import { withOneTestId } from '../outputs/test-id.js';
import { lanesPerConnection } from '../shared/plan.js';
import { durationOption, rejectUnknownKeys, show } from '../shared/validate.js';
import type { LoadOptions } from '../shared/load-options.js';
import type { SweepOptions, SweepPointEvent } from './sweep-types.js';

const DEFAULT_STEP_MS = 5000;
const DEFAULT_PAUSE_MS = 1000;
const DEFAULT_WARMUP_MS = 1000;

const SWEEP_KEYS = ['sweep', 'stepDuration', 'pause', 'stopAtSaturation', 'onPoint'] as const;

/** Options the sweep sets for every point, with what to use instead. */
const SET_BY_SWEEP: Record<string, string> = {
  rate: "the sweep sets each point's rate: give sweep: { rates: [...] }",
  duration: 'give stepDuration instead',
  amount: 'points run for stepDuration; amount cannot be combined with a sweep',
  stages: "the sweep chooses each point's load: give sweep: { rates } or { connections }",
};

/** The options of `sweep`, validated once. */
export interface SweepPlan {
  url: string;
  over: 'rate' | 'connections';
  loads: number[];
  /** Every point's options but its load and duration. */
  pointOptions: LoadOptions;
  stepMs: number;
  pauseMs: number;
  stopAtSaturation: boolean;
  /** A rate sweep's lanes: connections × pipelining (or streams). */
  lanes: number;
  onPoint: ((event: SweepPointEvent) => void) | undefined;
  signal: AbortSignal | undefined;
}

/** `sweep`'s loads, increasing whole numbers, or an error naming `sweep.<key>`. */
function planLoads(value: unknown): { over: 'rate' | 'connections'; loads: number[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SalvoOptionError(
      `sweep must be { rates: [...] }, { connections: [...] } or { from, to, steps }; got ${show(value)}`,
      { option: 'sweep', value },
    );
  }
  const given = value as Record<string, unknown>;
  const shapes = [['rates'], ['connections'], ['from', 'to', 'steps', 'over']];
  const shape = shapes.find(
    (keys) => keys.some((key) => key in given) && Object.keys(given).every((key) => keys.includes(key)),
  );
  if (shape === undefined) {
    throw new SalvoOptionError(
      `sweep takes one of { rates: [...] }, { connections: [...] } or { from, to, steps, over? }; got ${show(value)}`,
      { option: 'sweep', value },
    );
  }
  const whole = (name: string, load: unknown) => {
    if (typeof load !== 'number' || !Number.isInteger(load) || load < 1) {
      throw new (typeof load === 'number' ? SalvoRangeError : SalvoOptionError)(
        `${name} must be a whole number of at least 1; got ${show(load)}`,
        { option: name, value: load },
      );
    }
    return load;
  };
  let over: 'rate' | 'connections';
  let loads: number[];
  if (shape[0] === 'from') {
    const from = whole('sweep.from', given.from);
    const to = whole('sweep.to', given.to);
    const steps = whole('sweep.steps', given.steps);
    if (given.over !== undefined && given.over !== 'rate' && given.over !== 'connections') {
      throw new SalvoOptionError(`sweep.over must be 'rate' or 'connections'; got ${show(given.over)}`, {
        option: 'sweep.over',
        value: given.over,
      });
    }
    if (steps < 2 || to <= from) {
      throw new SalvoRangeError(
        `sweep needs to > from and at least 2 steps; got from ${from}, to ${to}, steps ${steps}`,
        {
          option: steps < 2 ? 'sweep.steps' : 'sweep.to',
          value: steps < 2 ? steps : to,
        },
      );
    }
    over = (given.over as 'rate' | 'connections' | undefined) ?? 'rate';
    loads = Array.from({ length: steps }, (_, i) => Math.round(from + ((to - from) * i) / (steps - 1)));
  } else {
    over = shape[0] === 'rates' ? 'rate' : 'connections';
    const name = `sweep.${shape[0]!}`;
    const list = given[shape[0]!];
    if (!Array.isArray(list) || list.length === 0) {
      throw new SalvoOptionError(`${name} must be a non-empty array of loads, lowest first; got ${show(list)}`, {
        option: name,
        value: list,
      });
    }
    loads = list.map((load, index) => whole(`${name}[${index}]`, load));
  }
  loads.forEach((load, index) => {
    if (index > 0 && load <= loads[index - 1]!) {
      throw new SalvoRangeError(`sweep loads must rise, lowest first; got ${loads.join(', ')}`, {
        option: 'sweep',
        value,
      });
    }
  });
  return { over, loads };
}

/**
 * Validates the options of `sweep` before any point runs: the sweep's own (errors name them) and,
 * through `runLoad`'s validation, every point's (the first point's load stands for all).
 */
export async function planSweep(options: SweepOptions): Promise<SweepPlan> {
  if (typeof options !== 'object' || options === null) {
    throw new SalvoOptionError(`sweep options must be an object with a url and sweep; got ${show(options)}`, {
      option: 'options',
      value: options,
    });
  }
  for (const [key, instead] of Object.entries(SET_BY_SWEEP)) {
    const value = (options as unknown as Record<string, unknown>)[key];
    if (value !== undefined)
      throw new SalvoOptionError(`${key} cannot be given to sweep: ${instead}`, { option: key, value });
  }
  rejectUnknownKeys(options, [...KNOWN_OPTIONS, ...SWEEP_KEYS]);
  const { sweep, stepDuration, pause, stopAtSaturation, onPoint, ...load } = options;
  const { over, loads } = planLoads(sweep);
  if (over === 'connections' && load.connections !== undefined) {
    throw new SalvoOptionError('connections cannot be given to a connection sweep: sweep.connections sets them', {
      option: 'connections',
      value: load.connections,
      mentions: ['sweep.connections'],
    });
  }
  if (onPoint !== undefined && typeof onPoint !== 'function') {
    throw new SalvoOptionError(`onPoint must be a function; got ${show(onPoint)}`, {
      option: 'onPoint',
      value: onPoint,
    });
  }
  if (stopAtSaturation !== undefined && typeof stopAtSaturation !== 'boolean') {
    throw new SalvoOptionError(`stopAtSaturation must be true or false; got ${show(stopAtSaturation)}`, {
      option: 'stopAtSaturation',
      value: stopAtSaturation,
    });
  }
  const stepMs = stepDuration === undefined ? DEFAULT_STEP_MS : durationOption('stepDuration', stepDuration);
  const pauseMs = pause === undefined ? DEFAULT_PAUSE_MS : durationOption('pause', pause, { allowZero: true });
  const pointOptions: LoadOptions = {
    ...load,
    warmup: load.warmup ?? DEFAULT_WARMUP_MS,
    ...(load.outputs === undefined ? {} : { outputs: withOneTestId(load.outputs) as LoadOptions['outputs'] }),
  };
  const first = over === 'rate' ? { rate: loads[0] } : { connections: loads[0] };
  const imported = await importOptionModules({ ...pointOptions, ...first, duration: stepMs });
  const { plan } = planLoad(imported.options, imported.requestsModule, imported.task);
  return {
    url: plan.url,
    over,
    loads,
    pointOptions,
    stepMs,
    pauseMs,
    stopAtSaturation: stopAtSaturation ?? true,
    lanes: plan.connections * lanesPerConnection(plan),
    onPoint,
    signal: load.signal,
  };
}
