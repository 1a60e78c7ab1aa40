// `--arrivals KIND` and `--arrivals-seed N` turned into the `arrivals` option.
import type { Arrivals } from '../index.js';
import { UsageError } from './command.js';
import { numeric } from './flag-options.js';

/**
 * `constant`, `poisson` or `gamma:SHAPE`, with `--arrivals-seed`: undefined when neither flag is
 * given. The values themselves (a shape of 0, a seed of -1) are left to runLoad to reject by name.
 */
export function arrivalsFlags(kind: string | undefined, seed: string | undefined): Arrivals | undefined {
  if (kind === undefined && seed === undefined) return undefined;
  if (kind === undefined)
    throw new UsageError('--arrivals-seed picks the draws of --arrivals poisson or gamma:SHAPE; give --arrivals too');
  const [distribution, shape, ...rest] = kind.split(':');
  if (rest.length > 0 || (shape !== undefined && distribution !== 'gamma')) {
    throw new UsageError(`--arrivals ${JSON.stringify(kind)} must be constant, poisson or gamma:SHAPE (gamma:0.5)`);
  }
  if (distribution === 'gamma' && shape === undefined) {
    throw new UsageError(
      '--arrivals gamma needs its shape: gamma:SHAPE, such as gamma:0.5 (below 1: burstier than poisson)',
    );
  }
  return {
    distribution: distribution as 'constant',
    ...(shape === undefined ? {} : { shape: numeric(shape) as number }),
    ...(seed === undefined ? {} : { seed: numeric(seed) as number }),
  };
}
