import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad } from '../start-load.js';
import { openLivePage } from '../live/run-load.js';
import { renderCapacityReport } from '../report/capacity-report.js';
import { judgeStep } from './judge.js';
import { highestPassed, outcomeMessage, type SearchState } from './message.js';
import { planCapacity, type CapacityPlan } from './options.js';
import type {
  CapacityLimit,
  FindCapacityOptions,
  CapacityPhase,
  CapacityResult,
  CapacityStep,
  CapacityStepEvent,
} from './types.js';

/** How many times a failed confirmation steps down by `precision` before the search gives up. */
const CONFIRM_STEP_DOWNS = 3;

/**
 * Finds the highest open-loop rate a server sustains within its objective (`slo`): steps at `start`,
 * doubling until a step fails, bisection between the last passing and the first failing rate until
 * they are within `precision`, then a longer confirmation run at the answer (stepping down by
 * `precision` when it fails). A step that failed because the generator was the limit (every
 * connection busy while the server kept its objective, or the generator's own CPU and event loop) is
 * not evidence about the server: the search stops there and says what limited it instead of
 * reporting a capacity. Bad options reject with a SalvoOptionError or SalvoRangeError naming them.
 */
export async function findCapacity(options: FindCapacityOptions): Promise<CapacityResult> {
  const startedAt = performance.now();
  const planned = await planCapacity(options);
  // With `live`, one page draws every step, one after another, and ends as the search's report.
  const page = await openLivePage(planned.stepOptions);
  if (page === undefined) return search(planned, startedAt);
  let result: CapacityResult;
  try {
    result = await search({ ...planned, stepOptions: page.options, signal: page.options.signal }, startedAt);
  } catch (error) {
    await page.fail(error);
    throw error;
  }
  await page.finish(renderCapacityReport(result));
  return result;
}

async function search(plan: CapacityPlan, startedAt: number): Promise<CapacityResult> {
  const state: SearchState = { plan, steps: [], lowestFailed: undefined, failedConfirmations: [] };
  const finish = (limit: CapacityLimit, capacity?: number, confirmed = false): CapacityResult => {
    // The server's limit is its CPU when the lowest rate it failed saturated its cores.
    const limitedBy = limit === 'server' && lowestFailedOn(state, 'server-cpu') ? 'server-cpu' : limit;
    return {
      url: plan.url,
      capacity,
      confirmed,
      limitedBy,
      highestPassed: highestPassed(state),
      lowestFailed: state.lowestFailed,
      message: outcomeMessage(state, limitedBy, capacity, confirmed),
      slo: plan.slo,
      precision: plan.precision,
      steps: state.steps,
      aborted: limitedBy === 'aborted',
      durationMs: performance.now() - startedAt,
    };
  };

  // Grow: double from start until a step fails (or max passes).
  let rate = plan.start;
  for (;;) {
    const step = await measure(state, 'grow', rate, plan.stepMs);
    if (step === undefined) return finish('aborted');
    if (!step.passed) {
      if (!onServer(step.limitedBy)) return finish(step.limitedBy!);
      break;
    }
    if (rate >= plan.max) break;
    rate = Math.min(plan.max, rate * 2);
  }
  let low = highestPassed(state);
  let high = state.lowestFailed;
  if (low === undefined) return finish('server');

  // Bisect until the passing and the failing rate are within precision of each other.
  while (high !== undefined && high - low > plan.precision * low && high - low > 1) {
    const middle = Math.round((low + high) / 2);
    const step = await measure(state, 'bisect', middle, plan.stepMs);
    if (step === undefined) return finish('aborted');
    if (step.passed) low = middle;
    else if (onServer(step.limitedBy)) high = middle;
    else return finish(step.limitedBy!);
  }
  const reached: CapacityLimit = high === undefined ? 'max' : 'server';
  if (plan.confirmMs === 0) return finish(reached, low);

  // Confirm with a longer run; a server that cannot hold the rate that long gets a lower answer.
  let candidate = low;
  for (let attempt = 0; attempt <= CONFIRM_STEP_DOWNS; attempt++) {
    const step = await measure(state, 'confirm', candidate, plan.confirmMs);
    if (step === undefined) return finish('aborted');
    if (step.passed) return finish(state.failedConfirmations.length > 0 ? 'server' : reached, candidate, true);
    if (!onServer(step.limitedBy)) return finish(step.limitedBy!);
    state.failedConfirmations.push(candidate);
    // The next candidate sits within precision below the rate that just failed, as bisection left it.
    candidate = Math.min(candidate - 1, Math.ceil(candidate / (1 + plan.precision)));
    if (candidate < 1) break;
  }
  return finish('server');
}

/** A step failed on the server (its objective, or its CPU): evidence about its capacity. */
function onServer(limit: CapacityLimit | undefined): boolean {
  return limit === 'server' || limit === 'server-cpu';
}

function lowestFailedOn(state: SearchState, limit: CapacityLimit): boolean {
  return state.steps.some((step) => step.rate === state.lowestFailed && step.limitedBy === limit);
}

/**
 * Runs one step after the pause and judges it; a step the generator's own pace held back is run
 * once more, since a stall of the host can cause that once, while a real limit repeats.
 * Undefined when the search was aborted before or during the step.
 */
async function measure(
  state: SearchState,
  phase: CapacityPhase,
  rate: number,
  durationMs: number,
): Promise<CapacityStep | undefined> {
  let step = await runStep(state, phase, rate, durationMs);
  if (step?.limitedBy === 'generator') step = await runStep(state, phase, rate, durationMs);
  if (step === undefined || state.plan.signal?.aborted) return undefined;
  if (onServer(step.limitedBy)) state.lowestFailed = Math.min(state.lowestFailed ?? Infinity, rate);
  return step;
}

async function runStep(
  state: SearchState,
  phase: CapacityPhase,
  rate: number,
  durationMs: number,
): Promise<CapacityStep | undefined> {
  const { plan, steps } = state;
  const { signal } = plan;
  if (steps.length > 0 && plan.pauseMs > 0) {
    await sleep(plan.pauseMs, undefined, { signal }).catch(() => undefined);
  }
  if (signal?.aborted) return undefined;
  const index = steps.length;
  notify(plan, { type: 'start', index, phase, rate });
  const result = await runLoad({ ...plan.stepOptions, rate, duration: durationMs });
  const step = judgeStep(
    { compiledSlo: plan.compiledSlo, lanes: plan.lanes, earlier: steps },
    phase,
    rate,
    result,
    signal?.aborted === true,
  );
  steps.push(step);
  notify(plan, { type: 'end', index, phase, rate, step });
  return step;
}

function notify(plan: CapacityPlan, event: CapacityStepEvent): void {
  try {
    plan.onStep?.(event);
  } catch (error) {
    process.emitWarning(`salvo: onStep threw: ${String(error)}`);
  }
}
