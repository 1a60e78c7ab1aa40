import { SalvoOptionError, SalvoRangeError } from './shared/errors.js';
import type { Segment } from './shared/terms.js';

/** Before this (March 1973 in epoch ms), a `startAt` number is almost surely seconds, not milliseconds. */
const EARLIEST_EPOCH_MS = 1e11;

function show(value: unknown): string {
  if (value instanceof Date) return `Date(${String(value)})`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Validates `segment: { index, count }` against the run it splits: every share needs at least one
 * connection, and one request of `amount` and 1 request/s of `rate` when the run has them, as a
 * worker thread does.
 */
export function parseSegment(
  value: unknown,
  whole: { connections: number; amount: number | undefined; rate: number | undefined },
): Segment | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SalvoOptionError(`segment must be { index, count }; got ${show(value)}`, { option: 'segment', value });
  }
  const unknown = Object.keys(value).find((key) => key !== 'index' && key !== 'count');
  if (unknown !== undefined)
    throw new SalvoOptionError(`segment has an unknown key ${show(unknown)}; it takes { index, count }`, {
      option: `segment.${unknown}`,
      value: (value as Record<string, unknown>)[unknown],
    });
  const { index, count } = value as Record<string, unknown>;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
    throw new (typeof count === 'number' ? SalvoRangeError : SalvoOptionError)(
      `segment.count must be a positive integer; got ${show(count)}`,
      {
        option: 'segment.count',
        value: count,
      },
    );
  }
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) {
    throw new (typeof index === 'number' ? SalvoRangeError : SalvoOptionError)(
      `segment.index must be an integer from 0 to count - 1 (${count - 1}); got ${show(index)}`,
      { option: 'segment.index', value: index },
    );
  }
  for (const [name, total] of [
    ['connections', whole.connections],
    ['amount', whole.amount],
    ['rate', whole.rate],
  ] as const) {
    if (total !== undefined && count > total) {
      throw new SalvoRangeError(
        `segment.count ${count} is more than ${name} ${total}: every segment needs at least one; use fewer segments or raise ${name}`,
        { option: 'segment.count', value: count, mentions: [name] },
      );
    }
  }
  return { index, count };
}

/** Validates `startAt` (epoch ms or a Date) into epoch ms. */
export function parseStartAt(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number')
    throw new SalvoOptionError(`startAt must be epoch milliseconds or a Date; got ${show(value)}`, {
      option: 'startAt',
      value,
    });
  if (!Number.isFinite(ms))
    throw new SalvoRangeError(`startAt must be a valid time; got ${show(value)}`, { option: 'startAt', value });
  if (ms < EARLIEST_EPOCH_MS) {
    throw new SalvoRangeError(
      `startAt must be epoch milliseconds (Date.now() + 30_000, say); got ${show(value)}, which looks like seconds or an offset`,
      { option: 'startAt', value },
    );
  }
  return ms;
}
