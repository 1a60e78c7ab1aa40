import { inspect } from 'node:util';
import { optionKey, SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import type { Duration } from '../shared/load-options.js';
import type { LoadResult, ThresholdResult } from '../shared/load-result.js';
import type { PlannedThreshold, PlannedThresholds, ThresholdOperator } from '../shared/plan.js';
import type { Thresholds } from '../shared/terms.js';
import { durationOption } from '../shared/validate.js';
import { judgeWindows, windowable, WINDOWED_METRICS } from './threshold-windows.js';
import { missingScope, nameTimeline, scoped, splitScope } from './threshold-scope.js';
import { nothingSucceeded } from './failure-advice.js';
import { missingStreamFigure } from './stream-diagnose.js';
import { KNOWN_METRICS, metricReader, RENAMED_METRICS, type PartialLoadResult } from './threshold-metrics.js';

// The metrics and their readers live in threshold-metrics.ts; importers name them from here too.
export { isMetric, KNOWN_METRICS, metricReader } from './threshold-metrics.js';
export type { MetricReader, PartialLoadResult } from './threshold-metrics.js';

/** One threshold expression, ready to evaluate. */
export interface CompiledThreshold extends PlannedThreshold {
  /** Reads the metric; `undefined` when `result` lacks it, `NaN` for a rate with no samples. */
  readonly read: (result: PartialLoadResult) => number | undefined;
}

const EXPRESSION = /^(<=|>=|==|!=|<|>)\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?)$/i;

/**
 * Validates `thresholds` and compiles every expression, before anything is sent.
 * A key is a metric path into `LoadResult` (or a derived metric: `errors.rate`, `checks.rate`,
 * `statusCodes.5xx`); a value is an expression such as `'< 50'`, a list of them,
 * `{ threshold, abortOnFail, window }`, or a list of expressions and such objects.
 * @throws SalvoOptionError naming the key, such as `thresholds['latency.p99']`, and the bad part.
 */
export function parseThresholds(thresholds: unknown): CompiledThreshold[] {
  if (!isPlainObject(thresholds)) {
    throw new SalvoOptionError(
      `thresholds must be an object such as { 'latency.p99': '< 50' }; got ${show(thresholds)}`,
      { option: 'thresholds', value: thresholds },
    );
  }
  const compiled: CompiledThreshold[] = [];
  for (const [metric, spec] of Object.entries(thresholds)) {
    const option = optionKey('thresholds', metric);
    const reader = metricReader(metric);
    if (reader === undefined) {
      const renamed = RENAMED_METRICS[metric];
      if (renamed !== undefined)
        throw new SalvoOptionError(`${option}: the metric is ${show(renamed)} since 1.0`, { option, value: metric });
      throw new SalvoOptionError(`${option} names an unknown metric; known: ${KNOWN_METRICS}`, {
        option,
        value: metric,
      });
    }
    // A list may mix expressions and settings objects: a whole-run and a windowed check of one metric.
    const items: Array<[unknown, string]> =
      Array.isArray(spec) && spec.some(isPlainObject)
        ? spec.map((item, i) => [item, `${option}[${i}]`])
        : [[spec, option]];
    for (const [item, where] of items) compiled.push(...compileSpec(metric, item, where, reader));
  }
  return compiled;
}

/** One setting of a metric's thresholds: an expression, a list of them, or `{ threshold, abortOnFail, window }`. */
function compileSpec(
  metric: string,
  spec: unknown,
  option: string,
  reader: NonNullable<ReturnType<typeof metricReader>>,
): CompiledThreshold[] {
  const compiled: CompiledThreshold[] = [];
  let expressions: unknown = spec;
  let abortOnFail = false;
  let expressionsOption = option;
  let windowMs: number | undefined;
  if (isPlainObject(spec)) {
    for (const key of Object.keys(spec)) {
      if (key !== 'threshold' && key !== 'abortOnFail' && key !== 'window') {
        throw new SalvoOptionError(`${option}.${key} is not a known setting; use threshold, abortOnFail and window`, {
          option: `${option}.${key}`,
          value: spec[key],
        });
      }
    }
    if (spec.abortOnFail !== undefined && typeof spec.abortOnFail !== 'boolean') {
      throw new SalvoOptionError(`${option}.abortOnFail must be a boolean; got ${show(spec.abortOnFail)}`, {
        option: `${option}.abortOnFail`,
        value: spec.abortOnFail,
      });
    }
    abortOnFail = spec.abortOnFail === true;
    if (spec.window !== undefined) windowMs = thresholdWindow(metric, option, spec.window, abortOnFail);
    expressions = spec.threshold;
    expressionsOption = `${option}.threshold`;
  }
  const list = typeof expressions === 'string' ? [expressions] : expressions;
  if (!Array.isArray(list) || list.length === 0) {
    throw new SalvoOptionError(
      `${expressionsOption} must be an expression such as '< 50', a non-empty list of them, ` +
        `{ threshold, abortOnFail, window }, or a list of expressions and such objects; got ${show(expressions)}`,
      { option: expressionsOption, value: expressions },
    );
  }
  list.forEach((expression: unknown, i) => {
    const at = Array.isArray(expressions) ? `${expressionsOption}[${i}]` : expressionsOption;
    compiled.push({
      metric,
      ...parseExpression(expression, at),
      abortOnFail,
      ...reader,
      ...(windowMs === undefined ? {} : { windowMs }),
    });
  });
  return compiled;
}

/** A threshold's `window`, in ms: whole seconds (the timeline's resolution), on a metric the timeline keeps. */
function thresholdWindow(metric: string, option: string, window: unknown, abortOnFail: boolean): number {
  if (!windowable(splitScope(metric)?.metric ?? metric)) {
    throw new SalvoOptionError(
      `${option}.window needs a metric the timeline keeps per second (${WINDOWED_METRICS}); ${metric} is judged on the whole run only`,
      { option: `${option}.window`, value: window },
    );
  }
  if (abortOnFail) {
    throw new SalvoOptionError(
      `${option} cannot have both window and abortOnFail: a window is judged when the run is over`,
      { option: `${option}.abortOnFail`, value: true, mentions: [`${option}.window`] },
    );
  }
  const ms = durationOption(`${option}.window`, window as Duration);
  if (ms % 1000 !== 0) {
    throw new SalvoRangeError(
      `${option}.window must be whole seconds (the timeline's resolution), such as '10s'; got ${show(window)}`,
      { option: `${option}.window`, value: window },
    );
  }
  return ms;
}

/** Validates `thresholds` (see `parseThresholds`) into what a plan carries. */
export function planThresholds(thresholds: unknown): PlannedThresholds {
  const parsed = parseThresholds(thresholds).map(({ read: _read, ...threshold }): PlannedThreshold => threshold);
  return { given: thresholds as Thresholds, parsed };
}

/** Planned thresholds with their metric readers, in the thread that evaluates them. */
export function compileThresholds(parsed: readonly PlannedThreshold[]): CompiledThreshold[] {
  return parsed.map((threshold) => ({ ...threshold, read: metricReader(threshold.metric)!.read }));
}

/**
 * Evaluates every compiled threshold against a finished (merged) result. A metric with no value
 * (a rate over zero samples, `checks.*` without `expect`) fails: nothing measured cannot prove a
 * pass. The run's `ok` is `results.every((r) => r.passed)`.
 */
export function evaluateThresholds(compiled: readonly CompiledThreshold[], result: LoadResult): ThresholdResult[] {
  return compiled.map((threshold) => {
    const { metric, expression, operator, value, windowMs } = threshold;
    const { metric: unscoped, scope } = splitScope(metric)!;
    const part = scope === undefined ? result : scoped(result, scope);
    if (part === undefined)
      return { metric, expression, actual: Number.NaN, passed: false, message: missingScope(result, scope!) };
    const read = scope === undefined ? threshold.read : metricReader(unscoped)!.read;
    const judge = (judged: PartialLoadResult) => {
      const actual = read(judged) ?? Number.NaN;
      return { actual, passed: compare(actual, operator, value) };
    };
    if (windowMs === undefined)
      return {
        metric,
        expression,
        ...judge(part as PartialLoadResult),
        ...missingStreamFigure(unscoped, part as PartialLoadResult),
      };
    const upper =
      operator === '<' || operator === '<=' ? true : operator === '>' || operator === '>=' ? false : undefined;
    const windowed =
      scope?.kind === 'name' ? nameTimeline(result, scope.key, result.byName![scope.key]!) : (part as LoadResult);
    const { windows, worst } = judgeWindows(windowed, windowMs, judge, upper);
    return { metric, expression, actual: worst, passed: windows.failed.length === 0, windows };
  });
}

/**
 * Sets `result.thresholds` and `result.ok` (runLoad and mergeResults alike): `ok` is false when a
 * threshold failed or when no request succeeded (nothing measured cannot pass, thresholds or not).
 */
export function judgeThresholds(result: LoadResult, compiled: readonly CompiledThreshold[] | undefined): void {
  if (compiled !== undefined) result.thresholds = evaluateThresholds(compiled, result);
  result.ok =
    (result.thresholds?.every((threshold) => threshold.passed) ?? true) &&
    !(result.failed !== undefined && nothingSucceeded(result));
}

/**
 * True once some `abortOnFail` threshold can no longer pass, whatever the rest of the run does.
 *
 * Only a metric that never decreases during a run (a count: errors, status codes, failed checks,
 * requests, bytes; or `latency.max`) can be decided early, and only against an upper bound
 * (`<`, `<=`, `==`): once the count is past the bound it stays past it. Every other case waits for
 * the end: a lower bound on a count can still be reached; `!=` can still come true; rates, means,
 * percentiles, `perSecond` and `durationMs` can move either way (more successes dilute
 * `errors.rate`, slow tails can come or go). This is called on a running snapshot, so a wrong `true`
 * would abort a run that would have passed: when unsure, it answers false.
 * It is also sound on one worker's snapshot: a shard's counts and max are lower bounds of the
 * merged ones.
 */
export function cannotPass(compiled: readonly CompiledThreshold[], partial: PartialLoadResult): boolean {
  for (const threshold of compiled) {
    if (!threshold.abortOnFail || !threshold.monotone) continue;
    const current = threshold.read(partial);
    if (current === undefined || Number.isNaN(current)) continue;
    const { operator, value } = threshold;
    const pastBound = operator === '<' ? current >= value : current > value;
    if ((operator === '<' || operator === '<=' || operator === '==') && pastBound) return true;
  }
  return false;
}

/**
 * The `abortOnFail` stop condition of one thread: undefined when no threshold could ever abort (none
 * has `abortOnFail`, or only on metrics `cannotPass` never decides early), else a function the
 * engine calls about once per second with that thread's measured numbers so far. It is the same
 * for the in-process engine and for each worker shard, on the shard's own numbers (sound there too,
 * see `cannotPass`); a shard that stops with `aborted` should stop the others.
 */
export function abortOnFailCheck(
  thresholds: PlannedThresholds | undefined,
): ((partial: PartialLoadResult) => boolean) | undefined {
  if (thresholds === undefined) return undefined;
  const decidable = compileThresholds(thresholds.parsed.filter((t) => t.abortOnFail && t.monotone));
  return decidable.length === 0 ? undefined : (partial) => cannotPass(decidable, partial);
}

function compare(actual: number, operator: ThresholdOperator, value: number): boolean {
  if (Number.isNaN(actual)) return false;
  switch (operator) {
    case '<':
      return actual < value;
    case '<=':
      return actual <= value;
    case '>':
      return actual > value;
    case '>=':
      return actual >= value;
    case '==':
      return actual === value;
    case '!=':
      return actual !== value;
  }
}

function parseExpression(
  expression: unknown,
  option: string,
): { expression: string; operator: ThresholdOperator; value: number } {
  if (typeof expression !== 'string') {
    throw new SalvoOptionError(`${option} must be an expression string such as '< 50'; got ${show(expression)}`, {
      option,
      value: expression,
    });
  }
  const trimmed = expression.trim();
  const match = EXPRESSION.exec(trimmed);
  if (match === null) {
    throw new SalvoOptionError(
      `${option} has an invalid expression ${show(expression)}: expected an operator ` +
        `(<, <=, >, >=, ==, !=) and a number, such as '< 50'`,
      { option, value: expression },
    );
  }
  return { expression: trimmed, operator: match[1] as ThresholdOperator, value: Number(match[2]) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  return inspect(value, { depth: 1, breakLength: Infinity });
}
