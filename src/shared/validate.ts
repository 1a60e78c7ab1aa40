// Checks shared by every option parser (runLoad's, the capacity search's, the CLI's): each throws a
// SalvoOptionError (wrong type or shape) or SalvoRangeError (out of range) that names the option.
import { SalvoOptionError, SalvoRangeError } from './errors.js';
import type { Duration } from './load-options.js';

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A value as an error message quotes it. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${value}n`;
  // NaN and Infinity, which JSON writes as null.
  if (typeof value === 'number') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** `value` as a positive integer, or a SalvoOptionError / SalvoRangeError naming `name`. */
export function positiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new SalvoOptionError(`${name} must be a positive integer; got ${show(value)}`, { option: name, value });
  }
  if (!Number.isInteger(value) || value <= 0 || !Number.isFinite(value)) {
    throw new SalvoRangeError(`${name} must be a positive integer; got ${show(value)}`, { option: name, value });
  }
  return value;
}

/**
 * Milliseconds in `'500ms'`, `'10s'`, `'1.5m'`, `'1h'` or a number of milliseconds, as every
 * duration option reads them: `parseDuration('1.5m')` is 90000. Errors name `name` (default
 * `'duration'`), as runLoad's do.
 */
export function parseDuration(value: Duration, name = 'duration'): number {
  return durationOption(name, value);
}

/**
 * A bare number of at most this many ms for a run's `duration` or `timeout` is almost surely meant
 * as seconds (autocannon's and wrk's `-d 10`, k6's `'10s'` without the unit): no load test runs for
 * 10 ms, and no server answers within 5 ms on purpose.
 */
const LIKELY_SECONDS_MAX = 60;

/**
 * `parseDuration` for an option called `name`: with `allowZero`, 0 is accepted; with `secondsLikely`,
 * a bare number from 1 to 60 is rejected as meant for seconds (`'10ms'` says milliseconds on purpose).
 */
export function durationOption(
  name: string,
  value: Duration,
  { allowZero = false, secondsLikely = false } = {},
): number {
  let ms: number;
  if (typeof value === 'number') {
    if (secondsLikely && value >= 1 && value <= LIKELY_SECONDS_MAX) {
      throw new SalvoRangeError(
        `${name} ${value} is ${value} ms (a bare number is milliseconds): for seconds write '${value}s' (or ${value * 1000}); ` +
          `for milliseconds on purpose write '${value}ms'`,
        { option: name, value },
      );
    }
    ms = value;
  } else if (typeof value === 'string') {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(value);
    if (!match) {
      throw new SalvoOptionError(
        `${name} must be milliseconds or a string like '500ms', '10s', '1m'; got ${show(value)}`,
        { option: name, value },
      );
    }
    ms = Number(match[1]) * UNITS_MS[match[2]!]!;
  } else {
    throw new SalvoOptionError(`${name} must be milliseconds or a string like '10s'; got ${show(value)}`, {
      option: name,
      value,
    });
  }
  // A bare number is milliseconds here (the CLI passes its seconds on as '10s'): the error says so.
  const given = typeof value === 'number' && Number.isFinite(value) ? `${value} ms` : show(value);
  if (!Number.isFinite(ms) || ms < 0 || (ms === 0 && !allowZero)) {
    throw new SalvoRangeError(`${name} must be ${allowZero ? 'zero or more' : 'more than zero'}; got ${given}`, {
      option: name,
      value,
    });
  }
  if (!Number.isInteger(ms)) {
    throw new SalvoRangeError(`${name} must be a whole number of milliseconds; got ${given}`, { option: name, value });
  }
  return ms;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/**
 * Throws for the first key of `options` not in `knownKeys`, suggesting the nearest known one;
 * `parent` names the object the keys belong to (`requests[0]`), when they are not top-level options.
 */
export function rejectUnknownKeys(options: object, knownKeys: readonly string[], parent?: string): void {
  for (const key of Object.keys(options)) {
    if (knownKeys.includes(key)) continue;
    let best: string | undefined;
    let bestDistance = Infinity;
    for (const known of knownKeys) {
      const distance = editDistance(key.toLowerCase(), known.toLowerCase());
      if (distance < bestDistance) [best, bestDistance] = [known, distance];
    }
    const hint = bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? `; did you mean ${best}?` : '';
    const option = parent === undefined ? key : `${parent}.${key}`;
    throw new SalvoOptionError(`unknown option ${show(option)}${hint}`, {
      option,
      value: (options as Record<string, unknown>)[key],
    });
  }
}
