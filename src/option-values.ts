import { SalvoOptionError, SalvoRangeError } from './errors.js';
import type { Duration } from './types.js';

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A value as an error message quotes it. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** `value` as a positive integer, or a SalvoOptionError / SalvoRangeError naming `name`. */
export function positiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new SalvoOptionError(`${name} must be a positive integer; got ${show(value)}`);
  }
  if (!Number.isInteger(value) || value <= 0 || !Number.isFinite(value)) {
    throw new SalvoRangeError(`${name} must be a positive integer; got ${show(value)}`);
  }
  return value;
}

/** Parses `'500ms'`, `'10s'`, `'1.5m'`, `'1h'` or a number of milliseconds. */
export function parseDuration(name: string, value: Duration, { allowZero = false } = {}): number {
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else if (typeof value === 'string') {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(value);
    if (!match) {
      throw new SalvoOptionError(
        `${name} must be milliseconds or a string like '500ms', '10s', '1m'; got ${show(value)}`,
      );
    }
    ms = Number(match[1]) * UNITS_MS[match[2]!]!;
  } else {
    throw new SalvoOptionError(`${name} must be milliseconds or a string like '10s'; got ${show(value)}`);
  }
  if (!Number.isFinite(ms) || ms < 0 || (ms === 0 && !allowZero)) {
    throw new SalvoRangeError(`${name} must be ${allowZero ? 'zero or more' : 'more than zero'}; got ${show(value)}`);
  }
  if (!Number.isInteger(ms)) {
    throw new SalvoRangeError(`${name} must be a whole number of milliseconds; got ${show(value)}`);
  }
  return ms;
}
