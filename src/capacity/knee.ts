// Where a latency-throughput curve bends: the knee of a sweep, and whether a closed-loop point
// still gained throughput from its connections.

/**
 * The Kneedle point (Satopää, Albrecht, Irwin and Raghavan, 2011) of a concave, increasing curve:
 * x and y each scaled to 0..1, the index where y - x is largest (the earlier one on a tie).
 * Undefined with fewer than three points or a flat curve, which have no bend.
 */
export function kneedle(x: readonly number[], y: readonly number[]): number | undefined {
  if (x.length < 3) return undefined;
  const [xLow, xHigh] = [Math.min(...x), Math.max(...x)];
  const [yLow, yHigh] = [Math.min(...y), Math.max(...y)];
  if (xHigh === xLow || yHigh === yLow) return undefined;
  let best: number | undefined;
  let bestDifference = 0;
  x.forEach((xValue, index) => {
    const difference = (y[index]! - yLow) / (yHigh - yLow) - (xValue - xLow) / (xHigh - xLow);
    if (difference > bestDifference) [best, bestDifference] = [index, difference];
  });
  return best;
}

/** A closed-loop point saturates when its throughput rose by less than this share of the connections' rise. */
export const GAIN_SHARE = 0.5;

/**
 * Whether going from `load` to `nextLoad` connections raised throughput from `throughput` to
 * `nextThroughput` by less than GAIN_SHARE of the connections' own rise: a server that still has
 * room serves twice the requests with twice the connections (Little's law at a steady latency).
 */
export function stoppedGaining(load: number, throughput: number, nextLoad: number, nextThroughput: number): boolean {
  if (throughput <= 0) return nextThroughput <= 0;
  return nextThroughput / throughput - 1 < GAIN_SHARE * (nextLoad / load - 1);
}

/** The index of the highest value (the earlier one on a tie), or undefined when none is above 0. */
export function highest(values: ReadonlyArray<number | undefined>): number | undefined {
  let best: number | undefined;
  values.forEach((value, index) => {
    if (value !== undefined && value > 0 && (best === undefined || value > values[best]!)) best = index;
  });
  return best;
}
