import type { LoadResult } from '../shared/load-result.js';
import { wholeTarget } from './format-parts.js';

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const RATIO = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 });

/**
 * The lowest and highest target rate of a rate run, req/s, undefined in closed loop. With rate
 * stages `rate` is where they start (0 without one), and the seconds' targets give the range.
 */
export function targetRateRange(result: LoadResult): [number, number] | undefined {
  if (result.rate === undefined || !wholeTarget(result)) return undefined;
  // The stages as written (a ramp's seconds hold its means: a ramp to 1,000/s has no second at 1,000).
  const stages = result.merge?.plan?.stages?.flatMap((stage) => (stage.rate === undefined ? [] : [stage.rate]));
  if (stages !== undefined && stages.length > 0)
    return [Math.min(result.rate, ...stages), Math.max(result.rate, ...stages)];
  const targets = result.timeline.flatMap((second) => (second.targetRate === undefined ? [] : [second.targetRate]));
  return [Math.min(result.rate, ...targets), Math.max(result.rate, ...targets)];
}

/**
 * A run's rate stages as the user wrote them, each from where the previous one ended (the run's
 * `rate`, 0 without): `0 → 200/s in 2 s → 600/s in 2 s`, a stage that keeps the rate `then holds 2 s`;
 * undefined without rate stages.
 */
export function rateStagesText(result: LoadResult): string | undefined {
  const stages = result.merge?.plan?.stages;
  if (
    result.rate === undefined ||
    stages === undefined ||
    stages.length === 0 ||
    stages.some((stage) => stage.rate === undefined)
  )
    return undefined;
  const seconds = (ms: number) => `${RATIO.format(ms / 1000)} s`;
  let previous = result.rate;
  const parts = [`${COUNT.format(previous)}/s`];
  for (const { rate, durationMs } of stages) {
    parts.push(
      rate === previous ? `then holds ${seconds(durationMs)}` : `→ ${COUNT.format(rate!)}/s in ${seconds(durationMs)}`,
    );
    previous = rate!;
  }
  return parts.join(' ');
}
