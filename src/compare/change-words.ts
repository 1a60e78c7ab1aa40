import type { ComparisonRow } from './compare-results.js';

/** Metrics that are times: a worse one is slower. */
const TIMES =
  /^(latency|latencyUncorrected)\.|^stream\.(firstEvent|gap|duration|delivery|ttft|itl|tpot)\.|^server\.cpuPerRequestMs|Ms$/;

/**
 * What a change means, in a word: `slower`/`faster` for a time (latency, CPU per request),
 * `worse`/`better` for anything else (requests per second, errors), `unchanged` for none. A
 * percentage with a sign reads backwards for a metric where lower is better; a word does not.
 */
export function changeWord(row: Pick<ComparisonRow, 'metric' | 'improvement'>): string {
  if (row.improvement === 0 || !Number.isFinite(row.improvement)) return 'unchanged';
  const time = TIMES.test(row.metric.replace(/\{.*\}$/, ''));
  if (row.improvement < 0) return time ? 'slower' : 'worse';
  return time ? 'faster' : 'better';
}

/** The word for the way a margin allows a metric to move: `slower` for a time, `worse` otherwise. */
export function worseWord(metric: string): string {
  return changeWord({ metric, improvement: -1 });
}

/** The unit of a metric's value as a message prints it: ` ms` for a time, ` req/s`, else none. */
export function unitOf(metric: string): string {
  const bare = metric.replace(/\{.*\}$/, '');
  if (TIMES.test(bare)) return ' ms';
  if (bare === 'requests.perSecond') return ' req/s';
  return '';
}

/**
 * A change as a sentence part: `26.36% slower (21.8 -> 27.55 ms)`. The percentage is of the
 * baseline, without a sign: the word says which way.
 */
export function describeMove(
  row: Pick<ComparisonRow, 'metric' | 'improvement' | 'baseline' | 'candidate'>,
  format: (value: number) => string,
): string {
  const word = changeWord(row);
  const size = word === 'unchanged' ? 'unchanged' : `${(Math.abs(row.improvement) * 100).toFixed(2)}% ${word}`;
  return `${size} (${format(row.baseline)} -> ${format(row.candidate)}${unitOf(row.metric)})`;
}
