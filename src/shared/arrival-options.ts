import type { ArrivalDistribution, PlannedArrivals } from './arrivals.js';
import { SalvoOptionError, SalvoRangeError } from './errors.js';
import { show } from './validate.js';

const KEYS = ['distribution', 'shape', 'seed'];
const DISTRIBUTIONS: readonly ArrivalDistribution[] = ['constant', 'poisson', 'gamma'];

/**
 * Validates `arrivals` for a run whose open loop is `open` (a `rate` or rate stages), with its whole
 * rates. Undefined for even spacing (no option, or `'constant'`).
 */
export function planArrivals(
  value: unknown,
  run: { open: boolean; rate: number | undefined; stageRates: number[] | undefined },
): PlannedArrivals | undefined {
  if (value === undefined) return undefined;
  const given = typeof value === 'string' ? { distribution: value } : value;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new SalvoOptionError(
      `arrivals must be 'constant', 'poisson' or { distribution, shape?, seed? }; got ${show(value)}`,
      { option: 'arrivals', value },
    );
  }
  const unknown = Object.keys(given).find((key) => !KEYS.includes(key));
  if (unknown !== undefined) {
    throw new SalvoOptionError(`arrivals has an unknown key ${show(unknown)}; it takes { distribution, shape, seed }`, {
      option: `arrivals.${unknown}`,
      value: (given as Record<string, unknown>)[unknown],
    });
  }
  const { distribution, shape, seed } = given as { distribution?: unknown; shape?: unknown; seed?: unknown };
  if (!DISTRIBUTIONS.includes(distribution as ArrivalDistribution)) {
    throw new SalvoOptionError(
      `arrivals.distribution must be one of ${DISTRIBUTIONS.map((name) => `'${name}'`).join(', ')}; got ${show(distribution)}`,
      { option: 'arrivals.distribution', value: distribution },
    );
  }
  if (distribution === 'gamma') {
    if (typeof shape !== 'number' || !Number.isFinite(shape) || shape <= 0) {
      throw new (typeof shape === 'number' ? SalvoRangeError : SalvoOptionError)(
        `arrivals.shape must be a number more than 0 for gamma arrivals (below 1 is burstier than Poisson); got ${show(shape)}`,
        { option: 'arrivals.shape', value: shape },
      );
    }
  } else if (shape !== undefined) {
    throw new SalvoOptionError(`arrivals.shape is gamma's; got shape ${show(shape)} with ${show(distribution)}`, {
      option: 'arrivals.shape',
      value: shape,
      mentions: ['arrivals.distribution'],
    });
  }
  if (seed !== undefined && (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)) {
    throw new (typeof seed === 'number' ? SalvoRangeError : SalvoOptionError)(
      `arrivals.seed must be an integer from 0 to 4294967295; got ${show(seed)}`,
      { option: 'arrivals.seed', value: seed },
    );
  }
  if (!run.open) {
    throw new SalvoOptionError(
      `arrivals spaces an open loop's requests: give rate (or rate stages); got arrivals ${show(value)} and no rate`,
      { option: 'arrivals', value, mentions: ['rate'] },
    );
  }
  if (distribution === 'constant') return undefined;
  return {
    distribution: distribution as 'poisson' | 'gamma',
    shape: distribution === 'gamma' ? (shape as number) : 1,
    seed: (seed as number | undefined) ?? 0,
    stride: 1,
    wholeRate: run.rate,
    wholeStageRates: run.stageRates,
  };
}
