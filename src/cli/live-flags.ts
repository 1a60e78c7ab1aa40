import type { LiveOptions } from '../index.js';
import { UsageError } from './command.js';
import type { Flag } from './load-flags.js';

/** `salvo URL`'s flags for `live`: the page that draws the run as it goes (docs/live.md). */
export const LIVE_FLAGS = {
  live: {
    type: 'string',
    value: '[PORT]',
    help: 'serve a page on 127.0.0.1:PORT (a free port without one) that draws the run, then shows its report',
  },
  'live-host': {
    type: 'string',
    value: 'ADDRESS',
    help: '--live: bind this address instead of 127.0.0.1 (anyone who reaches it sees the run)',
  },
  'live-control': { type: 'boolean', help: '--live: put stop, rate and connections controls on the page' },
} as const satisfies Record<string, Flag>;

/** `--live` with no port (last, or before another flag or the URL) is `--live 0`: parseArgs wants a value. */
export function withLivePort(args: readonly string[]): string[] {
  return args.map((arg, i) => (arg === '--live' && !/^\d+$/.test(args[i + 1] ?? '') ? '--live=0' : arg));
}

/** `--live [PORT]`, `--live-host`, `--live-control` as runLoad's `live`; runLoad checks the port's range. */
export function liveFromFlags(
  port: string | undefined,
  host: string | undefined,
  control: boolean | undefined,
): LiveOptions | undefined {
  if (port === undefined) {
    if (host !== undefined || control !== undefined)
      throw new UsageError(`--live-host and --live-control set up the page of --live: give --live [PORT] too`);
    return undefined;
  }
  if (!/^\d+$/.test(port)) throw new UsageError(`--live takes a port number, or none; got ${JSON.stringify(port)}`);
  return {
    port: Number(port),
    ...(host === undefined ? {} : { host }),
    ...(control === undefined ? {} : { control }),
  };
}
