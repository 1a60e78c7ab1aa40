import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import { show } from '../shared/validate.js';
import type { LoadOptions, WebSocketOptions } from '../shared/load-options.js';
import type { PlannedWebSocket, WebSocketHooks } from '../shared/websocket.js';

const WEBSOCKET_OPTIONS = [
  'message',
  'rate',
  'timestamp',
  'perMessageDeflate',
  'protocols',
] as const satisfies ReadonlyArray<keyof WebSocketOptions>;

/** Options of `runLoad` that mean HTTP requests: a WebSocket run says so instead of ignoring them. */
const HTTP_ONLY_OPTIONS = [
  'transport',
  'name',
  'rate',
  'pipelining',
  'h2Streams',
  'keepAlive',
  'method',
  'body',
  'requests',
  'expect',
  'tlsSessionReuse',
  'retry',
  'compressed',
] as const satisfies ReadonlyArray<keyof LoadOptions>;

/** RFC 6455 subprotocol names are tokens. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export const isWebSocketUrl = (url: URL): boolean => url.protocol === 'ws:' || url.protocol === 'wss:';

/**
 * Rejects the options a WebSocket or Socket.IO run has no use for, `websocket` on an HTTP run and
 * `websocket` with `socketio`.
 */
export function rejectMismatchedOptions(options: LoadOptions, webSocket: boolean, socketIo = false): void {
  if (socketIo && options.websocket !== undefined) {
    throw new SalvoOptionError(
      'websocket and socketio cannot be combined: socketio runs its own framing over the WebSocket; give one',
      {
        option: 'websocket',
        value: options.websocket,
        mentions: ['socketio'],
      },
    );
  }
  if (!webSocket && !socketIo) {
    if (options.websocket !== undefined) {
      throw new SalvoOptionError(`websocket needs a ws: or wss: url; got url ${show(options.url)}`, {
        option: 'websocket',
        value: options.websocket,
        mentions: ['url'],
      });
    }
    return;
  }
  for (const name of HTTP_ONLY_OPTIONS) {
    if (options[name] === undefined) continue;
    const run = socketIo ? 'a Socket.IO run' : `a ${new URL(options.url!).protocol} url`;
    const rateOption = socketIo ? 'socketio.rate' : 'websocket.rate';
    const hint = name === 'rate' ? ` (for messages per second per connection use ${rateOption})` : '';
    throw new SalvoOptionError(
      `${name} is an HTTP option and has no meaning with ${run}${hint}; got ${name} ${show(options[name])}`,
      {
        option: name,
        value: options[name],
        mentions: [socketIo ? 'socketio' : 'url', ...(name === 'rate' ? [rateOption] : [])],
      },
    );
  }
}

function parseMessage(value: unknown): Pick<PlannedWebSocket, 'message' | 'dynamicMessage'> {
  if (value === undefined) return { message: undefined, dynamicMessage: false };
  if (typeof value === 'function') return { message: undefined, dynamicMessage: true };
  if (typeof value === 'string') return { message: value, dynamicMessage: false };
  if (value instanceof Uint8Array) return { message: Buffer.from(value), dynamicMessage: false };
  throw new SalvoOptionError(
    `websocket.message must be a string, a Buffer or a function (connection, sequence) => string | Buffer; got ${show(value)}`,
    { option: 'websocket.message', value },
  );
}

function parseTimestamp(value: unknown): Pick<PlannedWebSocket, 'timestampField' | 'timestampFunction'> {
  if (value === undefined) return { timestampField: undefined, timestampFunction: false };
  if (typeof value === 'function') return { timestampField: undefined, timestampFunction: true };
  const field = (value as { field?: unknown } | null)?.field;
  if (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    typeof field === 'string' &&
    field !== ''
  ) {
    return { timestampField: field, timestampFunction: false };
  }
  throw new SalvoOptionError(
    `websocket.timestamp must be a function (data) => epoch ms, or { field: 'name' } of a JSON message; got ${show(value)}`,
    { option: 'websocket.timestamp', value },
  );
}

function parseProtocols(value: unknown): string[] {
  if (value === undefined) return [];
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((protocol) => typeof protocol !== 'string' || !TOKEN.test(protocol))) {
    throw new SalvoOptionError(
      `websocket.protocols must be a subprotocol name or a list of them (tokens, no spaces or commas); got ${show(value)}`,
      { option: 'websocket.protocols', value },
    );
  }
  return list as string[];
}

/**
 * Validates the `websocket` option of a `ws:`/`wss:` run; `amount` needs messages to count, so it
 * needs `message`. `headers` are the run's, already validated.
 */
export function planWebSocket(
  value: unknown,
  context: { amount: number | undefined; workers: number; headers: Record<string, string> },
): { planned: PlannedWebSocket; hooks: WebSocketHooks } {
  const options = (value ?? {}) as WebSocketOptions;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new SalvoOptionError(`websocket must be an object such as { message, rate, timestamp }; got ${show(value)}`, {
      option: 'websocket',
      value,
    });
  }
  for (const key of Object.keys(options)) {
    if (!(WEBSOCKET_OPTIONS as readonly string[]).includes(key)) {
      throw new SalvoOptionError(`unknown option websocket.${key}; known: ${WEBSOCKET_OPTIONS.join(', ')}`, {
        option: `websocket.${key}`,
        value: options[key as keyof WebSocketOptions],
      });
    }
  }
  const { message, dynamicMessage } = parseMessage(options.message);
  const { timestampField, timestampFunction } = parseTimestamp(options.timestamp);
  const { rate } = options;
  if (rate !== undefined && (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0)) {
    throw new SalvoRangeError(
      `websocket.rate must be a number of messages per second per connection, more than zero; got ${show(rate)}`,
      { option: 'websocket.rate', value: rate },
    );
  }
  const sends = message !== undefined || dynamicMessage;
  if (rate !== undefined && !sends)
    throw new SalvoOptionError(
      `websocket.rate needs websocket.message, the message to send; got rate ${show(rate)} and no message`,
      { option: 'websocket.rate', value: rate, mentions: ['websocket.message'] },
    );
  if (context.amount !== undefined && !sends) {
    throw new SalvoOptionError(
      `amount counts messages sent and needs websocket.message; got amount ${context.amount} and no message`,
      { option: 'amount', value: context.amount, mentions: ['websocket.message'] },
    );
  }
  if (options.perMessageDeflate !== undefined && typeof options.perMessageDeflate !== 'boolean') {
    throw new SalvoOptionError(
      `websocket.perMessageDeflate must be true or false; got ${show(options.perMessageDeflate)}`,
      { option: 'websocket.perMessageDeflate', value: options.perMessageDeflate },
    );
  }
  if (context.workers > 1) {
    for (const name of ['message', 'timestamp'] as const) {
      if (typeof options[name] !== 'function') continue;
      const instead = name === 'message' ? 'a fixed string or Buffer' : "{ field: 'name' } for a JSON message";
      throw new SalvoOptionError(
        `websocket.${name} is a function, which cannot be sent to worker threads (workers: ${context.workers}); use ${instead}, or workers: 1`,
        { option: `websocket.${name}`, value: options[name], mentions: ['workers'] },
      );
    }
  }
  return {
    planned: {
      message,
      dynamicMessage,
      rate,
      timestampField,
      timestampFunction,
      perMessageDeflate: options.perMessageDeflate ?? false,
      protocols: parseProtocols(options.protocols),
      headers: context.headers,
    },
    hooks: {
      ...(typeof options.message === 'function' ? { message: options.message } : {}),
      ...(typeof options.timestamp === 'function' ? { timestamp: options.timestamp } : {}),
    },
  };
}
