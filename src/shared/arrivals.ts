// `arrivals`: how an open-loop run's requests are spaced around their mean rate. The option's
// check is arrival-options.ts; the schedule that draws the instants is runner/arrival-schedule.ts.

/** The spacing of an open loop's requests: evenly (`constant`), or drawn from a distribution. */
export type ArrivalDistribution = 'constant' | 'poisson' | 'gamma';

/**
 * `arrivals`: `'poisson'` spaces requests by exponential gaps (a Poisson process at the rate);
 * `{ distribution: 'gamma', shape }` by gamma gaps of mean 1 / rate, burstier than Poisson when
 * `shape` < 1 (coefficient of variation 1 / sqrt(shape)) and more even above 1. `seed` picks the
 * draws: the same seed gives the same instants, over any number of workers and segments.
 */
export type Arrivals = ArrivalDistribution | { distribution: ArrivalDistribution; shape?: number; seed?: number };

/** `arrivals` validated: a drawn distribution (`constant` plans to no `arrivals` at all). */
export interface PlannedArrivals {
  distribution: 'poisson' | 'gamma';
  /** Gamma's shape; 1 for Poisson (a gamma of shape 1 is the exponential). */
  shape: number;
  /** An unsigned 32-bit integer. */
  seed: number;
  /**
   * Every `stride`-th arrival of the whole run is this share's (1 unplanned; the plan's split
   * multiplies it by the shares, as it divides the rate): share k of n has arrivals k, k + n, ...
   */
  stride: number;
  /** The whole run's `rate` and rate stages: every share draws the one schedule from them. */
  wholeRate: number | undefined;
  wholeStageRates: number[] | undefined;
}
