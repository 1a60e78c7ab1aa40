import { isMetric, KNOWN_METRICS, parseMargin, SalvoOptionError, type Thresholds } from '../index.js';
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
    throw new UsageError(
      `${flag} must be seconds (a bare number) or a string like '500ms', '10s', '1m'; got ${JSON.stringify(text)}`,
    );
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
  if (!(value >= min))
    throw new UsageError(`${flag} must be an integer of at least ${min}; got ${JSON.stringify(text)}`);
  return value;
}

/** Throws a UsageError naming `flag` and quoting `value` when `metric` names no metric. */
export function checkMetric(flag: string, value: string, metric: string): void {
  if (isMetric(metric)) return;
  const what =
    value === metric
      ? `${flag} ${JSON.stringify(value)}`
      : `${flag} ${JSON.stringify(value)}: ${JSON.stringify(metric)}`;
  throw new UsageError(`${what} names no metric; known: ${KNOWN_METRICS}`);
}

/**
 * `--threshold 'latency.p99<50'` (repeated) as runLoad's thresholds, each checked here (metric,
 * operator, number) so that an error names the flag and quotes the value as typed. A trailing
 * `every 10s` judges every window of that length (`{ threshold, window }`).
 */
export function thresholdFlags(flag: string, values: string[] | undefined): Thresholds | undefined {
  if (values === undefined) return undefined;
  const result: Record<string, Array<string | { threshold: string; window: string }>> = {};
  for (const value of values) {
    const windowed = /^(.*\S)\s+every\s+(\S+)\s*$/i.exec(value);
    const check = windowed?.[1] ?? value;
    // A metric may select a name with spaces in it: latency.p99{name:GET /search}<50.
    const match = /^\s*([^<>=!]*[^<>=!\s])\s*((?:<=|>=|==|!=|<|>).*)$/.exec(check);
    const expression = match?.[2]!.trim();
    if (match === null || !THRESHOLD_EXPRESSION.test(expression!)) {
      const unit =
        expression !== undefined && /\d\s*[a-z%]+$/i.test(expression)
          ? '; the number has no unit (latency is in ms, rates are fractions)'
          : '';
      throw new UsageError(
        `--${flag} ${JSON.stringify(value)} must look like 'latency.p99<50' (metric, comparison, number)${unit}`,
      );
    }
    checkMetric(`--${flag}`, value, match[1]!);
    if (windowed !== null && !/^\d+(s|m|h)?$/.test(windowed[2]!)) {
      throw new UsageError(
        `--${flag} ${JSON.stringify(value)}: every takes whole seconds (the timeline's), such as 'every 10s'`,
      );
    }
    (result[match[1]!] ??= []).push(
      windowed === null ? expression! : { threshold: expression!, window: durationFlag(`--${flag}`, windowed[2]!) },
    );
  }
  return result;
}

/** The levels `--confidence` takes: p < 0.05, 0.01, 0.001. */
export type ConfidenceFlag = '*' | '**' | '***';

/** `--confidence` checked as typed. */
export function confidenceFlag(text: string): ConfidenceFlag {
  if (text !== '*' && text !== '**' && text !== '***') {
    throw new UsageError(
      `--confidence must be '*', '**' or '***' (p < 0.05, 0.01, 0.001); got ${JSON.stringify(text)}`,
    );
  }
  return text;
}

/**
 * `--fail 'latency.p99=5%'` (repeated) as assertNoRegression's margins, each checked as typed: its
 * syntax, its metric (one of `compared` when that is given), one margin a metric, the margin a
 * percentage or a fraction (0.05).
 */
export function marginFlags(values: readonly string[], compared?: readonly string[]): Record<string, string | number> {
  const margins: Record<string, string | number> = {};
  for (const value of values) {
    const equals = value.lastIndexOf('=');
    if (equals <= 0) throw new UsageError(`--fail ${JSON.stringify(value)} must look like 'latency.p99=5%'`);
    const metric = value.slice(0, equals).trim();
    const text = value.slice(equals + 1).trim();
    checkMetric('--fail', value, metric);
    if (compared !== undefined && !compared.includes(metric)) {
      throw new UsageError(
        `--fail ${JSON.stringify(value)}: ${metric} is not compared (compared: ${compared.join(', ')}); add --metric ${metric}`,
      );
    }
    if (metric in margins) throw new UsageError(`--fail names ${metric} twice; give each metric one margin`);
    const margin = /^\d+(\.\d+)?$/.test(text) ? Number(text) : text;
    try {
      parseMargin(metric, margin);
    } catch (error) {
      if (!(error instanceof SalvoOptionError)) throw error;
      throw new UsageError(
        `--fail ${JSON.stringify(value)}: the margin must be a percentage such as '5%' or a fraction such as 0.05; got ${JSON.stringify(text)}`,
      );
    }
    margins[metric] = margin;
  }
  return margins;
}
