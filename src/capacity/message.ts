import type { CapacityPlan } from './options.js';
import type { CapacityLimit, CapacityStep } from './types.js';
import { saturatedCpu } from './judge.js';

/** The search so far: what the result and its message are built from. */
export interface SearchState {
  plan: CapacityPlan;
  steps: CapacityStep[];
  /** The lowest rate the server failed. */
  lowestFailed: number | undefined;
  /** Confirmation rates the server failed, in order. */
  failedConfirmations: number[];
}

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const MS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

function rate(value: number): string {
  return `${COUNT.format(value)} req/s`;
}

function seconds(ms: number): string {
  return `${MS.format(ms / 1000)} s`;
}

/**
 * The highest rate a step passed below the lowest rate the server failed: a rate that passed a
 * short step but failed a longer confirmation run does not count.
 */
export function highestPassed({ steps, lowestFailed }: SearchState): number | undefined {
  let highest: number | undefined;
  for (const step of steps) {
    if (step.passed && step.rate < (lowestFailed ?? Infinity)) highest = Math.max(highest ?? 0, step.rate);
  }
  return highest;
}

/** The outcome of a search in words: the answer and how sure it is, or what stopped it and what to do. */
export function outcomeMessage(
  state: SearchState,
  limitedBy: CapacityLimit,
  capacity: number | undefined,
  confirmed: boolean,
): string {
  const { plan, steps, lowestFailed, failedConfirmations } = state;
  const last = steps.at(-1);
  const passed = highestPassed(state);
  const sustained = passed === undefined ? '' : ` The highest rate that met the SLO was ${rate(passed)}.`;
  switch (limitedBy) {
    case 'aborted':
      return `Aborted after ${steps.length} step${steps.length === 1 ? '' : 's'}, before the search concluded.${sustained}`;
    case 'connections':
      return connectionsMessage(last!, plan.connections) + sustained;
    case 'generator':
      return (
        `At ${rate(last!.rate)} the load generator itself fell behind its schedule, twice (its CPU or event loop ` +
        'was the limit, not the server), so no capacity is claimed. Give it more workers, or a machine of its own.' +
        sustained
      );
    case 'max':
      return `Every rate up to max, ${rate(plan.max)}, met the SLO${confirmed ? `, confirmed by a ${seconds(plan.confirmMs)} run` : ''}: the capacity is at least that. Raise max to search further.`;
    case 'server':
    case 'server-cpu':
      break;
  }
  if (capacity === undefined && failedConfirmations.length === 0) {
    return (
      `Even the lowest rate tried, start = ${rate(plan.start)}, failed the SLO on the server ` +
      `(${last!.failures.join('; ')}): the server does not meet it at any rate tried. Lower start, or review the SLO.`
    );
  }
  const saturated =
    limitedBy === 'server-cpu'
      ? steps.find((step) => step.rate === lowestFailed && step.limitedBy === 'server-cpu')
      : undefined;
  const cpu = saturated === undefined ? undefined : saturatedCpu(saturated.result);
  const bracket = `${rate(lowestFailed!)} failed it${cpu === undefined ? '' : ` with the ${cpu.scope}'s CPU saturated (${COUNT.format(cpu.cpuPercent)}% of ${cpu.cores} core${cpu.cores === 1 ? '' : 's'})`}`;
  if (capacity === undefined) {
    return (
      `Short steps met the SLO up to ${rate(failedConfirmations[0]!)}, but ${seconds(plan.confirmMs)} confirmation runs ` +
      `failed at ${failedConfirmations.map(rate).join(', ')}: the server does not hold that rate for long. ` +
      `Search again with a longer stepDuration.${sustained}`
    );
  }
  const stepped =
    failedConfirmations.length === 0
      ? ''
      : ` The confirmation failed at ${failedConfirmations.map(rate).join(', ')}; stepped down to ${rate(capacity)}, which held.`;
  const confirmation = confirmed
    ? `, confirmed by a ${seconds(plan.confirmMs)} run`
    : ' (not confirmed: confirmDuration is 0)';
  return `Capacity ${rate(capacity)}: it met the SLO${confirmation}, and ${bracket}.${stepped}`;
}

function connectionsMessage(step: CapacityStep, connections: number): string {
  const { result } = step;
  const inFlight = Math.ceil((step.rate * result.latencyUncorrected.mean) / 1000);
  return (
    `At ${rate(step.rate)} all ${COUNT.format(connections)} connections were busy and requests waited in the generator ` +
    `for one, while the server answered within the SLO (p99 ${MS.format(step.p99Uncorrected)} ms from the write): ` +
    `the generator was the limit, not the server, so no capacity is claimed. That rate needs about ` +
    `${COUNT.format(inFlight)} requests in flight; raise connections well above it (${COUNT.format(2 * inFlight)} or more) and search again.`
  );
}
