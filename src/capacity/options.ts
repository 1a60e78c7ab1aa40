import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import { importOptionModules, KNOWN_OPTIONS, planLoad } from '../options.js';
import { withOneTestId } from '../outputs/test-id.js';
import { lanesPerConnection } from '../shared/plan.js';
import { durationOption, positiveInteger, rejectUnknownKeys, show } from '../shared/validate.js';
import { parseThresholds, type CompiledThreshold } from '../stats/thresholds.js';
import type { LoadOptions } from '../shared/load-options.js';
import type { Thresholds } from '../shared/terms.js';
import type { FindCapacityOptions, CapacityStepEvent } from './types.js';

const DEFAULT_STEP_MS = 5000;
const DEFAULT_START = 100;
const DEFAULT_MAX = 1_000_000;
const DEFAULT_PRECISION = 0.05;
const DEFAULT_PAUSE_MS = 1000;
const DEFAULT_WARMUP_MS = 1000;

/** The search's own options; the rest are each step's `LoadOptions`. */
const SEARCH_KEYS = [
  'slo',
  'requestSlo',
  'stepDuration',
  'start',
  'max',
  'precision',
  'pause',
  'confirmDuration',
  'onStep',
] as const;

/** Options the search sets for every step, with what to use instead. */
const SET_BY_SEARCH: Record<string, string> = {
  rate: "the search sets each step's rate; give start and max",
  duration: 'give stepDuration (and confirmDuration) instead',
  amount: 'steps run for stepDuration; amount cannot be combined with a rate search',
  stages: "the search chooses each step's rate; give start and max",
  thresholds: 'give the objective as slo (same syntax)',
};

/** The options of `findCapacity`, validated once, with defaults resolved. */
export interface CapacityPlan {
  url: string;
  /** Every step's options but `rate` and `duration`. */
  stepOptions: LoadOptions;
  slo: Thresholds;
  compiledSlo: CompiledThreshold[];
  stepMs: number;
  start: number;
  max: number;
  precision: number;
  pauseMs: number;
  /** 0: no confirmation run. */
  confirmMs: number;
  /** Requests the generator can have in flight: connections × pipelining (or streams). */
  lanes: number;
  connections: number;
  onStep: ((event: CapacityStepEvent) => void) | undefined;
  signal: AbortSignal | undefined;
}

/**
 * Validates the options of `findCapacity` before any step runs: the search's own (errors name
 * them) and, through `runLoad`'s own validation, every step's.
 */
export async function planCapacity(options: FindCapacityOptions): Promise<CapacityPlan> {
  if (typeof options !== 'object' || options === null) {
    throw new SalvoOptionError(`findCapacity options must be an object with a url and an slo; got ${String(options)}`, {
      option: 'options',
      value: options,
    });
  }
  for (const [key, instead] of Object.entries(SET_BY_SEARCH)) {
    if ((options as unknown as Record<string, unknown>)[key] !== undefined) {
      throw new SalvoOptionError(`${key} cannot be given to findCapacity: ${instead}`, {
        option: key,
        value: (options as unknown as Record<string, unknown>)[key],
      });
    }
  }
  rejectUnknownKeys(options, [...KNOWN_OPTIONS, ...SEARCH_KEYS]);
  const { slo, requestSlo, stepDuration, start, max, precision, pause, confirmDuration, onStep, ...load } = options;

  if (typeof load.url === 'string' && /^wss?:/i.test(load.url)) {
    throw new SalvoOptionError(
      `url: findCapacity searches HTTP request rates; a WebSocket url has no request rate to search (its load is connections and websocket.rate, set by you); got ${show(load.url)}`,
      { option: 'url', value: load.url },
    );
  }
  if (load.socketio !== undefined) {
    throw new SalvoOptionError(
      'socketio: findCapacity searches HTTP request rates; a Socket.IO run has no request rate to search (its load is connections and socketio.rate, set by you)',
      { option: 'socketio', value: load.socketio },
    );
  }
  if (slo === undefined) {
    throw new SalvoOptionError(
      `slo is required: the objective each step must meet, such as { 'latency.p99': '< 50', 'errors.rate': '< 0.001' }`,
      { option: 'slo', value: slo },
    );
  }
  const compiledSlo = parseSlo(slo);
  if (requestSlo === undefined && compiledSlo.some((threshold) => threshold.metric.startsWith('goodput.'))) {
    throw new SalvoOptionError(
      `requestSlo is required by the objective's goodput: each request's objectives, such as requestSlo: { ttft: 500, tpot: 50 } (ms)`,
      { option: 'requestSlo', value: requestSlo, mentions: ['slo'] },
    );
  }
  const stepMs = stepDuration === undefined ? DEFAULT_STEP_MS : durationOption('stepDuration', stepDuration);
  const startRate = start === undefined ? DEFAULT_START : positiveInteger('start', start);
  const maxRate = max === undefined ? Math.max(DEFAULT_MAX, startRate) : positiveInteger('max', max);
  if (maxRate < startRate)
    throw new SalvoRangeError(`max must be at least start (${startRate}); got ${maxRate}`, {
      option: 'max',
      value: max,
      mentions: ['start'],
    });
  if (precision !== undefined && (typeof precision !== 'number' || !(precision > 0 && precision < 1))) {
    const ErrorClass = typeof precision === 'number' ? SalvoRangeError : SalvoOptionError;
    throw new ErrorClass(`precision must be a fraction between 0 and 1 (0.05 is 5%); got ${show(precision)}`, {
      option: 'precision',
      value: precision,
    });
  }
  const pauseMs = pause === undefined ? DEFAULT_PAUSE_MS : durationOption('pause', pause, { allowZero: true });
  const confirmMs =
    confirmDuration === undefined
      ? 3 * stepMs
      : durationOption('confirmDuration', confirmDuration, { allowZero: true });
  if (onStep !== undefined && typeof onStep !== 'function') {
    throw new SalvoOptionError(`onStep must be a function; got ${show(onStep)}`, { option: 'onStep', value: onStep });
  }

  const stepOptions: LoadOptions = {
    ...load,
    warmup: load.warmup ?? DEFAULT_WARMUP_MS,
    thresholds: slo,
    ...(requestSlo === undefined ? {} : { slo: requestSlo }),
    // Every step writes to the same series: one search, one testid.
    ...(load.outputs === undefined ? {} : { outputs: withOneTestId(load.outputs) as LoadOptions['outputs'] }),
  };
  const imported = await importOptionModules({ ...stepOptions, rate: startRate, duration: stepMs });
  const { plan } = asRequestSlo(() => planLoad(imported.options, imported.requestsModule, imported.task));
  return {
    url: plan.url,
    stepOptions,
    slo,
    compiledSlo,
    stepMs,
    start: startRate,
    max: maxRate,
    precision: precision ?? DEFAULT_PRECISION,
    pauseMs,
    confirmMs,
    lanes: plan.connections * lanesPerConnection(plan),
    connections: plan.connections,
    onStep,
    signal: load.signal,
  };
}

/** A step's `slo` is the search's `requestSlo`: its errors name that (the search's own `slo` was checked before). */
function asRequestSlo<T>(plan: () => T): T {
  try {
    return plan();
  } catch (error) {
    if (!(error instanceof SalvoOptionError) || !/^slo\b/.test(error.option)) throw error;
    const rename = (text: string) => text.replace(/\bslo\b/, 'requestSlo');
    throw new SalvoOptionError(rename(error.message), {
      option: rename(error.option),
      value: error.value,
      mentions: error.mentions,
    });
  }
}

/** `parseThresholds`, its errors naming `slo` as the user wrote it. */
function parseSlo(slo: Thresholds): CompiledThreshold[] {
  try {
    const compiled = parseThresholds(slo);
    if (compiled.length === 0)
      throw new SalvoOptionError(`slo must name at least one objective, such as { 'latency.p99': '< 50' }; got {}`, {
        option: 'slo',
        value: slo,
      });
    return compiled;
  } catch (error) {
    if (!(error instanceof SalvoOptionError)) throw error;
    // Per-request objectives ({ ttft: 500 }) given as the search's objective: say where they go.
    const keys = Object.keys(slo);
    if (keys.length > 0 && keys.every((key) => ['ttft', 'tpot', 'itl', 'e2e'].includes(key)))
      throw new SalvoOptionError(
        `slo here is the search's objective, such as { 'goodput.rate': '>= 0.95' }; give each request's objectives (ttft, tpot, itl, e2e in ms) as requestSlo; got ${show(slo)}`,
        { option: 'slo', value: slo, mentions: ['requestSlo'] },
      );
    const rename = (text: string) => text.replace(/^thresholds/, 'slo');
    throw new SalvoOptionError(rename(error.message), {
      option: rename(error.option),
      value: error.value,
      mentions: error.mentions,
    });
  }
}
