import type { LiveOptions } from '../index.js';
import { UsageError } from './command.js';

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
