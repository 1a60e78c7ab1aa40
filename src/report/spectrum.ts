import { decodeHistogram } from '../stats/histogram.js';

/** One point of a latency percentile spectrum. */
export interface SpectrumPoint {
  /** Percentile, 0..100. */
  percentile: number;
  /** Latency at that percentile, ms. */
  valueMs: number;
}

/** Points per halving of the distance to 100%, as HdrHistogram's percentile output prints them. */
const TICKS_PER_HALF_DISTANCE = 5;
const US_PER_MS = 1000;

/**
 * The latency at HdrHistogram's reporting percentiles (0, 10, 20 ... 50, 55 ... 75, 77.5 ... : five
 * points per halving of the distance to 100%), up to the percentile the sample count still resolves,
 * then the maximum. Plotted against 1 / (1 - percentile) on a log axis this is the "percentile
 * spectrum" HdrHistogram's plotter draws: the tail gets as much room as the median. An empty or
 * undecodable histogram gives no points.
 */
export function percentileSpectrum(encoded: string | undefined): SpectrumPoint[] {
  if (typeof encoded !== 'string' || encoded === '') return [];
  let histogram;
  try {
    histogram = decodeHistogram(encoded);
  } catch {
    return [];
  }
  try {
    const count = histogram.totalCount;
    if (count === 0) return [];
    const points: SpectrumPoint[] = [];
    // Past 1 - 1/count every percentile is the maximum: the sample cannot resolve a finer tail.
    const lastResolved = 100 * (1 - 1 / count);
    for (let halvings = 0; ; halvings++) {
      const from = 100 - 100 / 2 ** halvings;
      const step = 100 / 2 ** (halvings + 1) / TICKS_PER_HALF_DISTANCE;
      for (let tick = 0; tick < TICKS_PER_HALF_DISTANCE; tick++) {
        const percentile = from + tick * step;
        if (percentile >= lastResolved) {
          points.push({ percentile: lastResolved, valueMs: histogram.maxValue / US_PER_MS });
          return points;
        }
        points.push({ percentile, valueMs: histogram.getValueAtPercentile(percentile) / US_PER_MS });
      }
    }
  } finally {
    histogram.destroy();
  }
}
