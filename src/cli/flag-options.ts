// Groups of `salvo` flags turned into the library's options (a JSON body, headers, stages, a stream,
// a WebSocket message, the monitor, expected statuses), for loadOptionsFromFlags (load-flags.ts).
import { readFileSync } from 'node:fs';
import type { LoadOptions, Stage } from '../index.js';
import { UsageError } from './command.js';
import { durationFlag } from './flag-values.js';

/** A number when the flag holds one; otherwise the text, for runLoad to reject by name. */
export function numeric(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(text) ? Number(text) : text;
}

export function readFlagFile(flag: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(`--${flag}: cannot read ${path}: ${(error as Error).message}`);
  }
}

/**
 * `--json-body JSON` as curl's `--json` sends it: the text as given (checked to be JSON, so the
 * error names the flag), with `content-type` and `accept: application/json` unless `-H` gives them.
 */
export function jsonBody(
  text: string,
  given: Record<string, string> | undefined,
): { body: string; headers: Record<string, string> } {
  try {
    JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `--json-body must be JSON, such as '{"a":1}'; got ${JSON.stringify(text)} (${(error as Error).message})`,
    );
  }
  const result = { ...given };
  const names = new Set(Object.keys(result).map((name) => name.toLowerCase()));
  for (const name of ['content-type', 'accept']) if (!names.has(name)) result[name] = 'application/json';
  return { body: text, headers: result };
}

/**
 * `-H 'name: value'` (repeated) as runLoad's headers. A name given more than once (in any case) is
 * sent once with its values combined in order, as RFC 9110 (5.3) combines field lines: 'x-a: 1, 2';
 * cookies with '; ' (RFC 6265, 5.4). The first spelling of the name is kept.
 */
export function headers(values: string[] | undefined): Record<string, string> | undefined {
  if (values === undefined) return undefined;
  const result: Record<string, string> = {};
  const spelling = new Map<string, string>();
  for (const value of values) {
    const colon = value.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header ${JSON.stringify(value)} must look like 'name: value'`);
    const name = value.slice(0, colon).trim();
    const fieldValue = value.slice(colon + 1).trim();
    const key = spelling.get(name.toLowerCase());
    if (key === undefined) {
      spelling.set(name.toLowerCase(), name);
      result[name] = fieldValue;
    } else {
      result[key] = `${result[key]}${name.toLowerCase() === 'cookie' ? '; ' : ', '}${fieldValue}`;
    }
  }
  return result;
}

export function stages(flag: string, values: string[] | undefined, key: 'rate' | 'connections'): Stage[] {
  return (values ?? []).map((value) => {
    const colon = value.lastIndexOf(':');
    if (colon <= 0)
      throw new UsageError(
        `--${flag} ${JSON.stringify(value)} must look like TIME:${key === 'rate' ? 'RATE' : 'N'}, such as 30s:1000`,
      );
    const time = durationFlag(`--${flag} ${JSON.stringify(value)}: TIME`, value.slice(0, colon));
    return { duration: time, [key]: numeric(value.slice(colon + 1)) } as Stage;
  });
}

/** `--stream` and its companions; the format itself is left to runLoad's validation. */
export function streamFlags(
  format: string | undefined,
  until: string | undefined,
  tokens: string | undefined,
  timestampField: string | undefined,
  subscribe: boolean | undefined,
  usage: boolean | undefined,
): LoadOptions['stream'] {
  if (format === undefined) {
    if (
      until !== undefined ||
      tokens !== undefined ||
      timestampField !== undefined ||
      subscribe !== undefined ||
      usage !== undefined
    ) {
      throw new UsageError(
        '--stream-until, --stream-tokens, --stream-timestamp, --stream-subscribe and --no-stream-usage need --stream sse|ndjson|chunks',
      );
    }
    return undefined;
  }
  return {
    format: format as NonNullable<LoadOptions['stream']>['format'],
    ...(until === undefined ? {} : { until }),
    ...(tokens === undefined ? {} : { tokens }),
    ...(timestampField === undefined ? {} : { timestamp: { field: timestampField } }),
    ...(subscribe === undefined ? {} : { subscribe }),
    ...(usage === undefined ? {} : { usage }),
  };
}

export function webSocketFlags(
  message: string | undefined,
  rate: string | undefined,
  timestampField: string | undefined,
): LoadOptions['websocket'] {
  if (message === undefined && rate === undefined && timestampField === undefined) return undefined;
  return {
    ...(message === undefined ? {} : { message }),
    ...(rate === undefined ? {} : { rate: numeric(rate) as number }),
    ...(timestampField === undefined ? {} : { timestamp: { field: timestampField } }),
  };
}

export function monitorFlags(pids: string[] | undefined, urls: string[] | undefined): LoadOptions['monitor'] {
  if (pids === undefined && urls === undefined) return undefined;
  return {
    ...(pids === undefined ? {} : { processes: pids.map((pid) => numeric(pid) as number) }),
    ...(urls === undefined ? {} : { prometheus: urls }),
  };
}

export function expectStatus(values: string[] | undefined): number | string | Array<number | string> | undefined {
  const statuses = values?.map((value) => numeric(value)!);
  return statuses === undefined || statuses.length > 1 ? statuses : statuses[0];
}
