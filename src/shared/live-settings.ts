// The checks of `live`, naming the option at fault.
import { SalvoOptionError, SalvoRangeError } from './errors.js';
import { show } from './validate.js';

/** `live` checked, with its defaults. */
export interface LiveSettings {
  port: number;
  host: string;
  control: boolean;
  onLive?: (info: { url: string }) => void;
}

const KEYS = new Set(['port', 'host', 'control', 'onLive']);

/** Checks `live`, naming the option that is wrong (`live.port`). */
export function liveSettings(live: unknown): LiveSettings {
  if (typeof live !== 'object' || live === null || Array.isArray(live))
    throw new SalvoOptionError(`live must be an object such as { port: 0 }; got ${show(live)}`, {
      option: 'live',
      value: live,
    });
  const given = live as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!KEYS.has(key))
      throw new SalvoOptionError(`live.${key} is not an option of live (port, host, control, onLive)`, {
        option: `live.${key}`,
        value: given[key],
      });
  }
  const { port = 0, host = '127.0.0.1', control = false, onLive } = given;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new SalvoRangeError(`live.port must be an integer from 0 to 65535; got ${show(port)}`, {
      option: 'live.port',
      value: port,
    });
  if (typeof host !== 'string' || host === '')
    throw new SalvoOptionError(`live.host must be an address to bind, such as '127.0.0.1'; got ${show(host)}`, {
      option: 'live.host',
      value: host,
    });
  if (typeof control !== 'boolean')
    throw new SalvoOptionError(`live.control must be true or false; got ${show(control)}`, {
      option: 'live.control',
      value: control,
    });
  if (onLive !== undefined && typeof onLive !== 'function')
    throw new SalvoOptionError(`live.onLive must be a function; got ${show(onLive)}`, {
      option: 'live.onLive',
      value: onLive,
    });
  return { port, host, control, ...(onLive === undefined ? {} : { onLive: onLive as LiveSettings['onLive'] }) };
}
