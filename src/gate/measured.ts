import { SalvoOptionError } from '../shared/errors.js';
import type { LoadResult } from '../shared/load-result.js';

/**
 * What a build's runs measured, as a history entry records it: the target and the shape of the
 * load. Two builds are comparable only when these agree; the host and port are left out (a CI job
 * may start its service on another port each time).
 */
export interface Measured {
  /** The run's `url` as given. */
  url: string;
  /** Its path and query (`/api?x=1`), or the whole `url` when it is not an http(s) one (`task:query`). */
  target: string;
  /** `METHOD /path` of each request of the sequence. */
  requests?: string[];
  /** The scenarios' names, when the run had `scenarios`. */
  scenarios?: string[];
  transport: string;
  connections: number;
  /** Requests per second asked for (rate mode). */
  rate?: number;
  /** The planned length, ms (not the measured one, which varies). */
  durationMs?: number;
  /** The planned number of requests. */
  amount?: number;
}

/** The shape of a stored run or a result: only the fields it has (a stored run lacks the plan). */
type Source = Pick<LoadResult, 'url' | 'transport' | 'connections' | 'rate'> & {
  merge?: Pick<LoadResult['merge'], 'plan'>;
  byScenario?: Record<string, unknown>;
};

function targetOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' || parsed.protocol.startsWith('ws')
      ? `${parsed.pathname}${parsed.search}`
      : url;
  } catch {
    return url;
  }
}

/** What a run measured, as far as it tells. */
export function measuredOf(run: Source): Measured {
  const plan = run.merge?.plan;
  const scenarios =
    plan?.scenarios !== undefined
      ? Object.keys(plan.scenarios)
      : run.byScenario !== undefined
        ? Object.keys(run.byScenario)
        : undefined;
  return {
    url: run.url,
    target: targetOf(run.url),
    ...(plan?.requests !== undefined ? { requests: plan.requests } : {}),
    ...(scenarios !== undefined ? { scenarios: scenarios.sort() } : {}),
    transport: run.transport,
    connections: run.connections,
    ...(run.rate !== undefined ? { rate: run.rate } : {}),
    ...(plan?.durationMs !== undefined ? { durationMs: plan.durationMs } : {}),
    ...(plan?.amount !== undefined ? { amount: plan.amount } : {}),
  };
}

const LABELS: ReadonlyArray<[keyof Measured, string]> = [
  ['target', 'target'],
  ['requests', 'requests'],
  ['scenarios', 'scenarios'],
  ['transport', 'transport'],
  ['connections', 'connections'],
  ['rate', 'rate'],
  ['durationMs', 'duration (ms)'],
  ['amount', 'amount'],
];

const show = (value: unknown) =>
  value === undefined ? 'none' : Array.isArray(value) ? value.join(', ') : String(value);

/**
 * How `b` differs from `a`, one phrase per field: `target /work -> /api`. A field one side does not
 * record (an entry stored before entries recorded it) is not compared.
 */
export function differences(a: Measured, b: Measured): string[] {
  const found: string[] = [];
  for (const [field, label] of LABELS) {
    const [x, y] = [a[field], b[field]];
    // Absent is "none" for these when both sides were read from a plan; a rate is on every result.
    const optional =
      field === 'rate' ||
      ((field === 'durationMs' || field === 'amount') && a.requests !== undefined && b.requests !== undefined);
    const known = optional || (x !== undefined && y !== undefined);
    if (known && show(x) !== show(y)) found.push(`${label} ${show(x)} -> ${show(y)}`);
  }
  return found;
}

/**
 * Refuses to compare runs of one thing with a baseline of another: the first baseline entry that
 * measured something else (or a candidate run unlike the first) is named with what differs.
 * @throws SalvoOptionError (option `testId`) saying what differs and what to do.
 */
export function checkSameMeasurement(
  testId: string,
  baseline: ReadonlyArray<{ id: string; measured?: Measured; runs: readonly Source[] }>,
  candidate: readonly Source[],
): void {
  const measured = candidate.map(measuredOf);
  const mine = measured[0];
  if (mine === undefined) return;
  for (const [index, other] of measured.entries()) {
    const found = differences(mine, other);
    if (found.length > 0) {
      throw new SalvoOptionError(
        `the runs to compare measured different things: run ${index + 1} differs from run 1 (${found.join('; ')}); a build's runs must repeat one load test`,
        { option: 'results', value: testId },
      );
    }
  }
  for (const entry of baseline) {
    const theirs = entry.measured ?? (entry.runs[0] === undefined ? undefined : measuredOf(entry.runs[0]));
    if (theirs === undefined) continue;
    const found = differences(theirs, mine);
    if (found.length > 0) {
      throw new SalvoOptionError(
        `test ${testId}'s baseline measured something else than these runs (${found.join('; ')}; entry ${entry.id}): comparing them would say nothing about this build. ` +
          'Give this load test an id of its own, or, if the test was changed on purpose, add this build and accept it (salvo history add, then salvo history accept; acceptInHistory) so that the baseline starts there',
        { option: 'testId', value: testId },
      );
    }
  }
}
