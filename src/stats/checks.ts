import { inspect } from 'node:util';
import { optionKey, SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import type { ResponseDetails } from '../shared/exchange.js';
import type { CheckStats } from '../shared/load-result.js';
import type { ExpectOptions } from '../shared/load-options.js';
import type { PlannedExpect } from '../shared/plan.js';

/** How many example failures a `CheckStats` keeps, per thread and after merging. */
export const MAX_CHECK_EXAMPLES = 5;

/** Longest slice of a body or header value quoted in an example failure. */
const QUOTE_CHARS = 60;

const EXPECT_KEYS = ['status', 'body', 'headers'];

/** The `expect` checks compiled once; `check` runs on the hot path. */
export interface ResponseChecker {
  /** True when a check reads headers or the body, so the transport must capture them. */
  readonly needsDetails: boolean;
  /**
   * Applies every check to one measured response (not to network errors, which have no response,
   * and not to warm-up responses). `details` is required when `needsDetails` is true; a body or
   * header check without it counts as failed. Allocates nothing unless it keeps an example.
   */
  check(status: number, details: ResponseDetails | undefined): void;
  /** The counters so far as a plain, structured-clone-safe object (a fresh copy on each call). */
  stats(): CheckStats;
}

/**
 * Whether `expect` needs response headers or bodies captured. Status-only checks (or none) do not,
 * which keeps the transports on their no-capture fast path.
 */
export function needsResponseDetails(expect: ExpectOptions | undefined): boolean {
  return expect !== undefined && (expect.body !== undefined || expect.headers !== undefined);
}

/**
 * Validates `expect` and normalises it, once, before anything is sent.
 * @throws SalvoOptionError (wrong shape) or SalvoRangeError (a status code outside 100-599), with
 *   a message naming the option, such as `expect.status[1]`.
 */
export function planExpect(expect: unknown): PlannedExpect {
  if (!isPlainObject(expect)) {
    throw new SalvoOptionError(`expect must be an object with status, body or headers; got ${show(expect)}`, {
      option: 'expect',
      value: expect,
    });
  }
  for (const key of Object.keys(expect)) {
    if (!EXPECT_KEYS.includes(key)) {
      throw new SalvoOptionError(`expect.${key} is not a known check; use status, body or headers`, {
        option: `expect.${key}`,
        value: expect[key],
      });
    }
  }
  return {
    status: expect.status === undefined ? undefined : planStatus(expect.status),
    body: expect.body === undefined ? undefined : planBody(expect.body),
    headers: expect.headers === undefined ? [] : planHeaders(expect.headers),
  };
}

/** A thread's checker for a planned `expect`, with counters of its own. */
export function compileExpect(expect: PlannedExpect): ResponseChecker {
  const { status, body, headers } = expect;
  const counters = { passed: 0, failed: 0 };
  return new Checker(
    status && { ...status, reported: new Uint8Array(STATUS_TABLE_SIZE), ...counters },
    body && {
      needle: body.text === undefined ? undefined : Buffer.from(body.text, 'utf8'),
      pattern: body.pattern,
      description: body.description,
      ...counters,
      attempts: 0,
    },
    headers.map((header) => ({ ...header, name: `header:${header.header}`, ...counters, attempts: 0 })),
  );
}

/**
 * Adds two `CheckStats` (from worker threads, or shards) into a new object; neither input is
 * changed. Examples are de-duplicated by name and message and capped at `MAX_CHECK_EXAMPLES`, `a`'s
 * first.
 */
export function mergeCheckStats(a: CheckStats, b: CheckStats): CheckStats {
  const byName: CheckStats['byName'] = {};
  for (const source of [a.byName, b.byName]) {
    for (const [name, counts] of Object.entries(source)) {
      const into = (byName[name] ??= { passed: 0, failed: 0 });
      into.passed += counts.passed;
      into.failed += counts.failed;
    }
  }
  const examples: CheckStats['examples'] = [];
  for (const example of [...a.examples, ...b.examples]) {
    if (examples.length === MAX_CHECK_EXAMPLES) break;
    if (!examples.some((e) => e.name === example.name && e.message === example.message)) {
      examples.push({ name: example.name, message: example.message });
    }
  }
  return { passed: a.passed + b.passed, failed: a.failed + b.failed, byName, examples };
}

interface StatusCheck {
  /** `allowed[status]` is 1 for an accepted status: one array read per response. */
  allowed: Uint8Array;
  /** `reported[status]` is 1 once an example names this status, so each status is shown once. */
  reported: Uint8Array;
  /** The expectation as the user wrote it, for messages: `2xx`, `200`, `one of 200, 3xx`. */
  description: string;
  passed: number;
  failed: number;
}

interface BodyCheck {
  /** Set for a string check: UTF-8 is self-synchronising, so a byte search equals a text search. */
  needle: Buffer | undefined;
  pattern: RegExp | undefined;
  description: string;
  passed: number;
  failed: number;
  /** Examples built so far, to bound the strings built for a check that fails on every response. */
  attempts: number;
}

interface HeaderCheck {
  /** Lower-case, as `ResponseDetails.headers` has them. */
  header: string;
  /** `header:<name>` in `CheckStats.byName`. */
  name: string;
  equals: string | undefined;
  pattern: RegExp | undefined;
  passed: number;
  failed: number;
  attempts: number;
}

const STATUS_TABLE_SIZE = 1000;

class Checker implements ResponseChecker {
  readonly needsDetails: boolean;
  readonly #status: StatusCheck | undefined;
  readonly #body: BodyCheck | undefined;
  readonly #headers: HeaderCheck[];
  readonly #examples: CheckStats['examples'] = [];

  constructor(status: StatusCheck | undefined, body: BodyCheck | undefined, headers: HeaderCheck[]) {
    this.#status = status;
    this.#body = body;
    this.#headers = headers;
    this.needsDetails = body !== undefined || headers.length > 0;
  }

  check(status: number, details: ResponseDetails | undefined): void {
    const statusCheck = this.#status;
    if (statusCheck !== undefined) {
      // Anything outside the table (a broken server can send 0 or 1234) is simply not allowed.
      const index = status >= 0 && status < STATUS_TABLE_SIZE ? status : 0;
      if (statusCheck.allowed[index] === 1) {
        statusCheck.passed++;
      } else {
        statusCheck.failed++;
        if (this.#examples.length < MAX_CHECK_EXAMPLES && statusCheck.reported[index] !== 1) {
          statusCheck.reported[index] = 1;
          this.#addExample('status', `status ${status} is not ${statusCheck.description}`);
        }
      }
    }
    const body = this.#body;
    if (body !== undefined) {
      if (details !== undefined && bodyMatches(body, details.body)) {
        body.passed++;
      } else {
        body.failed++;
        if (this.#examples.length < MAX_CHECK_EXAMPLES && body.attempts < MAX_CHECK_EXAMPLES) {
          body.attempts++;
          this.#addExample(
            'body',
            details === undefined
              ? 'body was not captured'
              : `body ${quote(details.body.toString('utf8'))} does not ${body.description}`,
          );
        }
      }
    }
    const headers = this.#headers;
    for (let i = 0; i < headers.length; i++) {
      const header = headers[i]!;
      const value = details === undefined ? undefined : details.headers[header.header];
      if (value !== undefined && headerMatches(header, value)) {
        header.passed++;
      } else {
        header.failed++;
        if (this.#examples.length < MAX_CHECK_EXAMPLES && header.attempts < MAX_CHECK_EXAMPLES) {
          header.attempts++;
          this.#addExample(header.name, headerFailure(header, details, value));
        }
      }
    }
  }

  stats(): CheckStats {
    const byName: CheckStats['byName'] = {};
    let passed = 0;
    let failed = 0;
    const counters: Array<{ name: string; passed: number; failed: number }> = [];
    if (this.#status !== undefined) counters.push({ name: 'status', ...countsOf(this.#status) });
    if (this.#body !== undefined) counters.push({ name: 'body', ...countsOf(this.#body) });
    counters.push(...this.#headers);
    for (const counter of counters) {
      byName[counter.name] = { passed: counter.passed, failed: counter.failed };
      passed += counter.passed;
      failed += counter.failed;
    }
    return { passed, failed, byName, examples: this.#examples.map((e) => ({ ...e })) };
  }

  #addExample(name: string, message: string): void {
    if (!this.#examples.some((e) => e.name === name && e.message === message)) {
      this.#examples.push({ name, message });
    }
  }
}

function countsOf(check: { passed: number; failed: number }): { passed: number; failed: number } {
  return { passed: check.passed, failed: check.failed };
}

function bodyMatches(check: BodyCheck, body: Buffer): boolean {
  if (check.needle !== undefined) return body.includes(check.needle);
  return check.pattern!.test(body.toString('utf8'));
}

function headerMatches(check: HeaderCheck, value: string): boolean {
  return check.equals !== undefined ? value === check.equals : check.pattern!.test(value);
}

function headerFailure(check: HeaderCheck, details: ResponseDetails | undefined, value: string | undefined): string {
  if (details === undefined) return `header ${check.header} was not captured`;
  if (value === undefined) return `header ${check.header} is missing`;
  return check.equals !== undefined
    ? `header ${check.header} ${quote(value)} is not ${quote(check.equals)}`
    : `header ${check.header} ${quote(value)} does not match ${String(check.pattern)}`;
}

function planStatus(spec: unknown): PlannedExpect['status'] {
  const allowed = new Uint8Array(STATUS_TABLE_SIZE);
  let description: string;
  if (Array.isArray(spec)) {
    if (spec.length === 0) {
      throw new SalvoOptionError('expect.status must not be an empty list', { option: 'expect.status', value: spec });
    }
    const parts = spec.map((item, i) => allowStatus(allowed, item, `expect.status[${i}]`));
    description = parts.length === 1 ? parts[0]! : `one of ${parts.join(', ')}`;
  } else {
    description = allowStatus(allowed, spec, 'expect.status');
  }
  return { allowed, description };
}

/** Marks one code or class as allowed and returns how to describe it. */
function allowStatus(allowed: Uint8Array, spec: unknown, option: string): string {
  if (typeof spec === 'string') {
    const text = spec.trim();
    const statusClass = /^([1-5])xx$/i.exec(text);
    if (statusClass !== null) {
      const first = Number(statusClass[1]) * 100;
      allowed.fill(1, first, first + 100);
      return `${statusClass[1]}xx`;
    }
    // A code written as a string ('404') is common in configs read from JSON or env.
    if (/^\d{3}$/.test(text)) return allowCode(allowed, Number(text), option);
  } else if (typeof spec === 'number' && Number.isInteger(spec)) {
    return allowCode(allowed, spec, option);
  }
  throw new SalvoOptionError(`${option} must be a status code, a list, or a class like '2xx'; got ${show(spec)}`, {
    option,
    value: spec,
  });
}

function allowCode(allowed: Uint8Array, code: number, option: string): string {
  if (code < 100 || code > 599) {
    throw new SalvoRangeError(`${option} must be a status code from 100 to 599; got ${code}`, { option, value: code });
  }
  allowed[code] = 1;
  return String(code);
}

function planBody(spec: unknown): PlannedExpect['body'] {
  if (typeof spec === 'string') {
    if (spec === '')
      throw new SalvoOptionError("expect.body must not be empty; got ''", { option: 'expect.body', value: spec });
    return { text: spec, pattern: undefined, description: `include ${quote(spec)}` };
  }
  if (spec instanceof RegExp) {
    const pattern = statelessPattern(spec);
    return { text: undefined, pattern, description: `match ${String(pattern)}` };
  }
  throw new SalvoOptionError(`expect.body must be a string to find or a RegExp to match; got ${show(spec)}`, {
    option: 'expect.body',
    value: spec,
  });
}

function planHeaders(spec: unknown): PlannedExpect['headers'] {
  if (!isPlainObject(spec)) {
    throw new SalvoOptionError(
      `expect.headers must be an object of header names to strings or RegExps; got ${show(spec)}`,
      { option: 'expect.headers', value: spec },
    );
  }
  const checks: PlannedExpect['headers'] = [];
  for (const [rawName, expected] of Object.entries(spec)) {
    const option = optionKey('expect.headers', rawName);
    // RFC 9110 token characters; anything else could never appear as a response header name.
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/i.test(rawName)) {
      throw new SalvoOptionError(`${option} is not a valid header name`, { option, value: rawName });
    }
    const header = rawName.toLowerCase();
    if (checks.some((c) => c.header === header)) {
      throw new SalvoOptionError(`${option} repeats header ${header} (names are case-insensitive)`, {
        option,
        value: rawName,
      });
    }
    if (typeof expected === 'string') {
      checks.push({ header, equals: expected, pattern: undefined });
    } else if (expected instanceof RegExp) {
      checks.push({ header, equals: undefined, pattern: statelessPattern(expected) });
    } else {
      throw new SalvoOptionError(`${option} must be a string or a RegExp; got ${show(expected)}`, {
        option,
        value: expected,
      });
    }
  }
  return checks;
}

/**
 * A copy without the `g` and `y` flags: with them `test` resumes from `lastIndex`, so the same body
 * would pass and fail on alternate responses.
 */
function statelessPattern(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RegExp);
}

function quote(text: string): string {
  const short = text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text;
  return JSON.stringify(short);
}

function show(value: unknown): string {
  return inspect(value, { depth: 1, breakLength: Infinity });
}
