import { isMetric, KNOWN_METRICS } from '../index.js';
import { UsageError } from './command.js';

/**
 * Values of flags checked as the command line spells them: a bare number of a duration is seconds,
 * and an error names the flag and quotes what the user typed (not a library option name, nor NaN).
 */

const DURATION = /^\s*\d+(\.\d+)?\s*(ms|s|m|h)?\s*$/;
const NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i;
/** What the library's thresholds accept after the metric: an operator and a unitless number. */
const THRESHOLD_EXPRESSION = /^(<=|>=|==|!=|<|>)\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?)$/i;

/**
 * A duration flag's text as the library takes it: a bare number is seconds (as in autocannon and
 * wrk), `500ms`/`10s`/`1m`/`1h` pass as they are. Anything else is a UsageError naming `flag`.
 */
export function durationFlag(flag: string, text: string): string {
  if (!DURATION.test(text)) {
    throw new UsageError(`${flag} must be seconds (a bare number) or a string like '500ms', '10s', '1m'; got ${JSON.stringify(text)}`);
  }
  return /^\s*\d+(\.\d+)?\s*$/.test(text) ? `${text.trim()}s` : text.trim();
}

/** A number flag's value; anything that is not a number is a UsageError quoting the text. */
export function numberFlag(flag: string, text: string, what = 'a number'): number {
  if (!NUMBER.test(text)) throw new UsageError(`${flag} must be ${what}; got ${JSON.stringify(text)}`);
  return Number(text);
}

/** An integer of at least `min`, or a UsageError quoting the text. */
export function integerFlag(flag: string, text: string, min: number): number {
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min)) throw new UsageError(`${flag} must be an integer of at least ${min}; got ${JSON.stringify(text)}`);
  return value;
}

/** Throws a UsageError naming `flag` and quoting `value` when `metric` names no metric. */
export function checkMetric(flag: string, value: string, metric: string): void {
  if (isMetric(metric)) return;
  const what = value === metric ? `${flag} ${JSON.stringify(value)}` : `${flag} ${JSON.stringify(value)}: ${JSON.stringify(metric)}`;
  throw new UsageError(`${what} names no metric; known: ${KNOWN_METRICS}`);
}

/**
 * `--threshold 'latency.p99<50'` (repeated) as runLoad's thresholds, each checked here (metric,
 * operator, number) so that an error names the flag and quotes the value as typed.
 */
export function thresholdFlags(flag: string, values: string[] | undefined): Record<string, string[]> | undefined {
  if (values === undefined) return undefined;
  const result: Record<string, string[]> = {};
  for (const value of values) {
    // A metric may select a name with spaces in it: latency.p99{name:GET /search}<50.
    const match = /^\s*([^<>=!]*[^<>=!\s])\s*((?:<=|>=|==|!=|<|>).*)$/.exec(value);
    const expression = match?.[2]!.trim();
    if (match === null || !THRESHOLD_EXPRESSION.test(expression!)) {
      const unit = expression !== undefined && /\d\s*[a-z%]+$/i.test(expression) ? '; the number has no unit (latency is in ms, rates are fractions)' : '';
      throw new UsageError(`--${flag} ${JSON.stringify(value)} must look like 'latency.p99<50' (metric, comparison, number)${unit}`);
    }
    checkMetric(`--${flag}`, value, match[1]!);
    (result[match[1]!] ??= []).push(expression!);
  }
  return result;
}
