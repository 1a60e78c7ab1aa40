import { inspect } from 'node:util';
import { optionKey, SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import type { Duration } from '../shared/load-options.js';
import type { LatencyStats, LoadResult, ThresholdResult } from '../shared/load-result.js';
import type { PlannedThreshold, PlannedThresholds, ThresholdOperator } from '../shared/plan.js';
import type { Thresholds } from '../shared/terms.js';
import { durationOption } from '../shared/validate.js';
import { judgeWindows, windowable, WINDOWED_METRICS } from './threshold-windows.js';
import { missingScope, nameTimeline, scoped, splitScope } from './threshold-scope.js';
import { nothingSucceeded } from './failure-advice.js'; import { missingStreamFigure } from './stream-diagnose.js';

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/**
 * What `cannotPass` reads during a run: any part of a `LoadResult`, counting measured requests only
 * (no warm-up). Fields left out are treated as unknown, never as zero.
 */
export type PartialLoadResult = DeepPartial<LoadResult>;

/** One threshold expression, ready to evaluate. */
export interface CompiledThreshold extends PlannedThreshold {
  /** Reads the metric; `undefined` when `result` lacks it, `NaN` for a rate with no samples. */
  readonly read: (result: PartialLoadResult) => number | undefined;
}

const LATENCY_STATS: ReadonlyArray<keyof LatencyStats> = [
  'min', 'mean', 'stddev', 'max', 'p50', 'p75', 'p90', 'p95', 'p99', 'p999',
];

/** What `monitor` adds to a result (`result.server`), as metric paths. */
const SERVER_METRICS = [
  'server.cpuPercent', 'server.cpuPerRequestMs', 'server.memory.rssBytes', 'server.memory.peakRssBytes', 'server.eventLoopLagMs',
  'server.machine.cpuPercent', 'server.machine.memory.usedBytes', 'server.machine.memory.peakUsedBytes',
  'server.machine.network.receivedBytesPerSecond', 'server.machine.network.sentBytesPerSecond',
] as const;
/** Metric paths of 0.x, renamed for 1.0: a threshold naming one is told the new name. */
const RENAMED_METRICS: Record<string, string> = {
  'server.cpuPerRequest': 'server.cpuPerRequestMs',
  'server.network.receivedBytesPerSecond': 'server.machine.network.receivedBytesPerSecond',
  'server.network.sentBytesPerSecond': 'server.machine.network.sentBytesPerSecond',
};

/** `result.stream`'s latency-shaped figures, its counts (never decreasing) and its rates. */
const STREAM_FIGURES = ['firstEvent', 'gap', 'duration', 'delivery', 'ttft', 'answerTtft', 'itl', 'tpot'] as const;
const STREAM_COUNTS = ['streams', 'ended', 'events', 'outputTokens', 'reasoningTokens', 'inputTokens', 'usageStreams'] as const;
const STREAM_RATES = ['perSecond', 'eventsPerStream', 'outputTokensPerSecond', 'outputTokensPerStream', 'inputTokensPerStream'] as const;
/** `stream.subscriptions.<count>`: `open` is a level, the others only grow. */
const SUBSCRIPTION_COUNTS = ['subscribed', 'open', 'reconnects'] as const;

export const KNOWN_METRICS =
  `latency.<stat> and latencyUncorrected.<stat> (stat: ${LATENCY_STATS.join(', ')}), ` +
  'requests.sent, requests.completed, requests.perSecond, requests.missed, requests.retried, requests.unfinished, bytes.sent, ' +
  'bytes.received, failed.total, failed.rate, errors.total, errors.rate, errors.byCode.<CODE>, statusCodes.<code>, ' +
  'statusCodes.<n>xx, checks.passed, checks.failed, checks.rate, messages.sent, messages.received, messages.perSecond ' +
  `(WebSocket), durationMs, ${SERVER_METRICS.join(', ')} (monitor); ` +
  'any but the server ones for one request name or scenario: latency.p99{name:checkout}, errors.rate{scenario:browse}';

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
      if (renamed !== undefined) throw new SalvoOptionError(`${option}: the metric is ${show(renamed)} since 1.0`, { option, value: metric });
      throw new SalvoOptionError(`${option} names an unknown metric; known: ${KNOWN_METRICS}`, { option, value: metric });
    }
    // A list may mix expressions and settings objects: a whole-run and a windowed check of one metric.
    const items: Array<[unknown, string]> =
      Array.isArray(spec) && spec.some(isPlainObject) ? spec.map((item, i) => [item, `${option}[${i}]`]) : [[spec, option]];
    for (const [item, where] of items) compiled.push(...compileSpec(metric, item, where, reader));
  }
  return compiled;
}

/** One setting of a metric's thresholds: an expression, a list of them, or `{ threshold, abortOnFail, window }`. */
function compileSpec(metric: string, spec: unknown, option: string, reader: NonNullable<ReturnType<typeof metricReader>>): CompiledThreshold[] {
  const compiled: CompiledThreshold[] = [];
  let expressions: unknown = spec;
  let abortOnFail = false;
  let expressionsOption = option;
  let windowMs: number | undefined;
  if (isPlainObject(spec)) {
    for (const key of Object.keys(spec)) {
      if (key !== 'threshold' && key !== 'abortOnFail' && key !== 'window') {
        throw new SalvoOptionError(
          `${option}.${key} is not a known setting; use threshold, abortOnFail and window`,
          { option: `${option}.${key}`, value: spec[key] },
        );
      }
    }
    if (spec.abortOnFail !== undefined && typeof spec.abortOnFail !== 'boolean') {
      throw new SalvoOptionError(`${option}.abortOnFail must be a boolean; got ${show(spec.abortOnFail)}`, { option: `${option}.abortOnFail`, value: spec.abortOnFail });
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
    compiled.push({ metric, ...parseExpression(expression, at), abortOnFail, ...reader, ...(windowMs === undefined ? {} : { windowMs }) });
  });
  return compiled;
}

/** A threshold's `window`, in ms: whole seconds (the timeline's resolution), on a metric the timeline keeps. */
function thresholdWindow(metric: string, option: string, window: unknown, abortOnFail: boolean): number {
  if (!windowable(splitScope(metric)?.metric ?? metric)) {
    throw new SalvoOptionError(`${option}.window needs a metric the timeline keeps per second (${WINDOWED_METRICS}); ${metric} is judged on the whole run only`, { option: `${option}.window`, value: window });
  }
  if (abortOnFail) {
    throw new SalvoOptionError(`${option} cannot have both window and abortOnFail: a window is judged when the run is over`, { option: `${option}.abortOnFail`, value: true, mentions: [`${option}.window`] });
  }
  const ms = durationOption(`${option}.window`, window as Duration);
  if (ms % 1000 !== 0) {
    throw new SalvoRangeError(`${option}.window must be whole seconds (the timeline's resolution), such as '10s'; got ${show(window)}`, { option: `${option}.window`, value: window });
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
export function evaluateThresholds(
  compiled: readonly CompiledThreshold[],
  result: LoadResult,
): ThresholdResult[] {
  return compiled.map((threshold) => {
    const { metric, expression, operator, value, windowMs } = threshold;
    const { metric: unscoped, scope } = splitScope(metric)!;
    const part = scope === undefined ? result : scoped(result, scope);
    if (part === undefined) return { metric, expression, actual: Number.NaN, passed: false, message: missingScope(result, scope!) };
    const read = scope === undefined ? threshold.read : metricReader(unscoped)!.read;
    const judge = (judged: PartialLoadResult) => {
      const actual = read(judged) ?? Number.NaN;
      return { actual, passed: compare(actual, operator, value) };
    };
    if (windowMs === undefined) return { metric, expression, ...judge(part as PartialLoadResult), ...missingStreamFigure(unscoped, part as PartialLoadResult) };
    const upper = operator === '<' || operator === '<=' ? true : operator === '>' || operator === '>=' ? false : undefined;
    const windowed = scope?.kind === 'name' ? nameTimeline(result, scope.key, result.byName![scope.key]!) : (part as LoadResult);
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
  result.ok = (result.thresholds?.every((threshold) => threshold.passed) ?? true) && !(result.failed !== undefined && nothingSucceeded(result));
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
    throw new SalvoOptionError(
      `${option} must be an expression string such as '< 50'; got ${show(expression)}`,
      { option, value: expression },
    );
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

export interface MetricReader {
  monotone: boolean;
  read: (result: PartialLoadResult) => number | undefined;
}

/** Whether `path` names a metric that thresholds (and comparisons) can read: `'latency.p99'`, `'errors.byCode.TIMEOUT'`. */
export function isMetric(path: string): boolean {
  return metricReader(path) !== undefined;
}

/** The reader for a metric path, or undefined when the path names no metric. */
export function metricReader(metric: string): MetricReader | undefined {
  const split = splitScope(metric);
  if (split?.scope !== undefined) {
    const { scope } = split;
    // The server is the run's, not a name's or a scenario's.
    const base = split.metric.startsWith('server.') ? undefined : metricReader(split.metric);
    if (base === undefined) return undefined;
    return { monotone: base.monotone, read: (r) => {
      const part = scoped(r, scope);
      return part === undefined ? undefined : base.read(part);
    } };
  }
  if (split === undefined) return undefined;
  if ((SERVER_METRICS as readonly string[]).includes(metric)) {
    // A figure no source gave is absent from the result: it fails a threshold, never passes as 0.
    const path = metric.split('.').slice(1);
    return { monotone: false, read: (r) => path.reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], r.server) as number | undefined };
  }
  const [group, field, extra] = metric.split('.', 4);
  if (field === undefined || (extra !== undefined && group !== 'errors' && group !== 'stream')) {
    return metric === 'durationMs' ? { monotone: false, read: (r) => r.durationMs } : undefined;
  }
  switch (group) {
    case 'latency':
    case 'latencyUncorrected': {
      const stat = LATENCY_STATS.find((s) => s === field);
      if (stat === undefined) return undefined;
      // max only grows as samples are added; min shrinks but reads 0 before the first sample.
      return {
        monotone: stat === 'max',
        read: (r) => {
          // Nothing timed reads NaN in memory and null from JSON: "no data", never a pass.
          const value = r[group]?.[stat] as number | null | undefined;
          return measuredNothing(r) || r[group]?.count === 0 || value === null ? Number.NaN : value;
        },
      };
    }
    case 'requests':
      if (field === 'perSecond') return { monotone: false, read: (r) => r.requests?.perSecond };
      if (field === 'sent' || field === 'completed' || field === 'missed' || field === 'retried' || field === 'unfinished') {
        return { monotone: true, read: (r) => r.requests?.[field] };
      }
      return undefined;
    case 'messages':
      if (field === 'perSecond') return { monotone: false, read: (r) => r.messages?.perSecond };
      if (field === 'sent' || field === 'received') return { monotone: true, read: (r) => r.messages?.[field] };
      return undefined;
    case 'bytes':
      if (field !== 'sent' && field !== 'received') return undefined;
      return { monotone: true, read: (r) => r.bytes?.[field] };
    case 'errors':
      return errorsReader(field, extra, metric);
    case 'failed':
      if (field === 'total') return { monotone: true, read: (r) => r.failed?.total };
      // Over the requests that ended (responses and errors), as errors.rate: k6's http_req_failed.
      if (field === 'rate') return { monotone: false, read: (r) => ratio(r.failed?.total, r.errors?.total, r.requests?.completed) };
      return undefined;
    case 'stream':
      return streamReader(field, extra);
    case 'statusCodes':
      return statusReader(field);
    case 'checks':
      if (field === 'rate') {
        return {
          monotone: false,
          read: (r) => {
            const checks = r.checks;
            if (checks?.passed === undefined || checks.failed === undefined) return undefined;
            const total = checks.passed + checks.failed;
            return total === 0 ? Number.NaN : checks.passed / total;
          },
        };
      }
      if (field !== 'passed' && field !== 'failed') return undefined;
      return { monotone: true, read: (r) => r.checks?.[field] };
    default:
      return undefined;
  }
}

/**
 * No response and no message came: the latency fields read 0, which would pass any upper bound, but
 * a latency over no samples proves nothing (a server refusing every connection).
 */
function measuredNothing(r: PartialLoadResult): boolean {
  return r.requests?.completed === 0 && (r.messages?.received ?? 0) === 0;
}

/** A figure no stream gave (no `tokens`, no event) is absent or NaN: it fails a threshold, never passes as 0. */
function streamReader(field: string, stat: string | undefined): MetricReader | undefined {
  if (field === 'subscriptions') {
    const count = SUBSCRIPTION_COUNTS.find((c) => c === stat);
    return count === undefined ? undefined : { monotone: count !== 'open', read: (r) => r.stream?.subscriptions?.[count] };
  }
  if (stat === undefined) {
    const count = STREAM_COUNTS.find((c) => c === field);
    if (count !== undefined) return { monotone: true, read: (r) => r.stream?.[count] };
    const rate = STREAM_RATES.find((c) => c === field);
    return rate === undefined ? undefined : { monotone: false, read: (r) => r.stream?.[rate] };
  }
  const figure = STREAM_FIGURES.find((f) => f === field);
  const latencyStat = LATENCY_STATS.find((s) => s === stat);
  if (figure === undefined || latencyStat === undefined) return undefined;
  const count = figure === 'gap' || figure === 'itl' ? undefined : figure === 'ttft' || figure === 'answerTtft' || figure === 'tpot' ? 'outputTokens' : 'events';
  return {
    monotone: latencyStat === 'max',
    read: (r) => {
      const stream = r.stream;
      if (stream === undefined || stream[figure] === undefined) return undefined;
      // No sample: the figure reads 0, which would pass any upper bound.
      if (count !== undefined && stream[count] === 0) return Number.NaN;
      return stream[figure]?.[latencyStat];
    },
  };
}

function errorsReader(field: string, extra: string | undefined, metric: string): MetricReader | undefined {
  if (extra === undefined) {
    if (field === 'total') return { monotone: true, read: (r) => r.errors?.total };
    if (field !== 'rate') return undefined;
    return {
      monotone: false,
      read: (r) => ratio(r.errors?.total, r.errors?.total, r.requests?.completed),
    };
  }
  const code = metric.slice('errors.byCode.'.length);
  if (field !== 'byCode' || !/^[A-Za-z0-9_]+$/.test(code)) return undefined;
  // A code that never occurred is absent from byCode: it counts zero.
  return {
    monotone: true,
    read: (r) => (r.errors?.byCode === undefined ? undefined : (r.errors.byCode[code] ?? 0)),
  };
}

/** `count` over the requests that ended (`errors` + `completed`); NaN over none, undefined when a part is unknown. */
function ratio(count: number | undefined, errors: number | undefined, completed: number | undefined): number | undefined {
  if (count === undefined || errors === undefined || completed === undefined) return undefined;
  return errors + completed === 0 ? Number.NaN : count / (errors + completed);
}

function statusReader(field: string): MetricReader | undefined {
  if (/^[1-5]\d\d$/.test(field)) {
    return {
      monotone: true,
      read: (r) => (r.statusCodes === undefined ? undefined : (r.statusCodes[field] ?? 0)),
    };
  }
  const statusClass = /^([1-5])xx$/.exec(field);
  if (statusClass === null) return undefined;
  const first = statusClass[1]!;
  return {
    monotone: true,
    read: (r) => {
      if (r.statusCodes === undefined) return undefined;
      let sum = 0;
      for (const [code, count] of Object.entries(r.statusCodes)) {
        if (code.length === 3 && code[0] === first) sum += count ?? 0;
      }
      return sum;
    },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  return inspect(value, { depth: 1, breakLength: Infinity });
}
