import type { SocketIoOptions } from '../index.js';
import { UsageError } from './command.js';

/**
 * The flags that make runLoad's `socketio` option, in help order; any of them makes the run a Socket.IO
 * one. LOAD_FLAGS takes them in and checks their shape (`satisfies Record<string, Flag>`).
 */
export const SOCKETIO_FLAGS = {
  'socketio-emit': {
    type: 'string',
    value: 'EVENT',
    help: 'Socket.IO: each connection emits EVENT (timed by --socketio-ack or --socketio-reply)',
  },
  'socketio-data': {
    type: 'string',
    value: 'JSON',
    help: "Socket.IO: the emit's argument, as JSON ('{\"a\":1}', '\"text\"')",
  },
  'socketio-ack': {
    type: 'boolean',
    help: 'Socket.IO: ask for an acknowledgement of each emit; latency is its round trip',
  },
  'socketio-reply': {
    type: 'string',
    value: 'EVENT',
    help: 'Socket.IO: latency is the time from an emit to the next EVENT',
  },
  'socketio-rate': {
    type: 'string',
    value: 'N',
    help: 'Socket.IO: emits/s per connection (default: when the ack or reply came)',
  },
  'socketio-listen': { type: 'string', value: 'EVENT', help: 'Socket.IO: count the EVENT events the server pushes' },
  'socketio-timestamp': {
    type: 'string',
    value: 'FIELD',
    help: "Socket.IO: time --socketio-listen events from their first argument's epoch-ms FIELD",
  },
  'socketio-namespace': { type: 'string', value: 'NS', help: 'Socket.IO: the namespace to connect to (default /)' },
  'socketio-auth': { type: 'string', value: 'JSON', help: "Socket.IO: the namespace connect's auth payload, as JSON" },
  'socketio-path': { type: 'string', value: 'PATH', help: "Socket.IO: the server's path (default /socket.io/)" },
} as const;

type SocketIoFlagValues = {
  [Name in keyof typeof SOCKETIO_FLAGS]?: (typeof SOCKETIO_FLAGS)[Name]['type'] extends 'boolean' ? boolean : string;
};

function json(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(
      `--${flag} must be JSON, such as '{"hello":1}' or '"text"' (quoted); got ${JSON.stringify(text)}`,
    );
  }
}

/** A number when the flag holds one; otherwise the text, for runLoad to reject by name. */
function numeric(text: string): number | string {
  return /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(text) ? Number(text) : text;
}

/**
 * The `socketio` option that the --socketio-* flags give, or undefined when none is given. The
 * command line's own syntax (JSON values, a flag that needs another) is checked here; the rest is
 * runLoad's to validate.
 */
export function socketIoFromFlags(flags: SocketIoFlagValues): SocketIoOptions | undefined {
  if (Object.keys(SOCKETIO_FLAGS).every((name) => flags[name as keyof SocketIoFlagValues] === undefined))
    return undefined;
  const emit = flags['socketio-emit'];
  const listen = flags['socketio-listen'];
  if (emit === undefined && listen === undefined) {
    throw new UsageError(
      'a Socket.IO run needs --socketio-emit EVENT (what each connection emits), --socketio-listen EVENT (what the server pushes), or both',
    );
  }
  if (flags['socketio-data'] !== undefined && emit === undefined)
    throw new UsageError('--socketio-data is the argument of --socketio-emit: give the event too');
  if (flags['socketio-timestamp'] !== undefined && listen === undefined) {
    throw new UsageError('--socketio-timestamp times the --socketio-listen events: give the event too');
  }
  const data = flags['socketio-data'];
  const timestamp = flags['socketio-timestamp'];
  const options: SocketIoOptions = {
    path: flags['socketio-path'],
    namespace: flags['socketio-namespace'],
    auth:
      flags['socketio-auth'] === undefined
        ? undefined
        : (json('socketio-auth', flags['socketio-auth']) as SocketIoOptions['auth']),
    emit:
      emit === undefined
        ? undefined
        : data === undefined
          ? { event: emit }
          : { event: emit, data: json('socketio-data', data) },
    rate: flags['socketio-rate'] === undefined ? undefined : (numeric(flags['socketio-rate']) as number),
    ack: flags['socketio-ack'],
    reply: flags['socketio-reply'],
    listen:
      listen === undefined
        ? undefined
        : timestamp === undefined
          ? { event: listen }
          : { event: listen, timestamp: { field: timestamp } },
  };
  for (const key of Object.keys(options) as Array<keyof SocketIoOptions>)
    if (options[key] === undefined) delete options[key];
  return options;
}
