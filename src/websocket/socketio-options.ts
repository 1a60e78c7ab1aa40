import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import { engineUrl } from '../socketio/packet.js';
import { rejectUnknownKeys, show } from '../shared/validate.js';
import type { SocketIoOptions } from '../shared/load-options.js';
import type { PlannedSocketIo } from '../shared/websocket.js';

const SOCKETIO_OPTIONS = [
  'path',
  'namespace',
  'auth',
  'emit',
  'rate',
  'ack',
  'reply',
  'listen',
] as const satisfies ReadonlyArray<keyof SocketIoOptions>;
const DEFAULT_PATH = '/socket.io/';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function eventName(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw new SalvoOptionError(`${name} must be an event name (a non-empty string); got ${show(value)}`, {
      option: name,
      value,
    });
  return value;
}

/** JSON of a value that must survive the trip (no functions, Buffers, cycles or non-finite numbers lost silently). */
function json(name: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (_key, inner: unknown) => {
      if (typeof inner === 'function' || typeof inner === 'symbol' || typeof inner === 'bigint')
        throw new Error('not JSON');
      if (inner instanceof Uint8Array || (isPlainObject(inner) && inner.type === 'Buffer' && Array.isArray(inner.data)))
        throw new Error('binary');
      return inner;
    });
  } catch (error) {
    const binary = (error as Error).message === 'binary';
    throw new SalvoOptionError(
      `${name} must be JSON data${binary ? ' (binary emits are not supported)' : ''}; got ${show(value)}`,
      { option: name, value },
    );
  }
  if (text === undefined)
    throw new SalvoOptionError(`${name} must be JSON data; got ${show(value)}`, { option: name, value });
  return text;
}

function parsePath(value: unknown): string {
  if (value === undefined) return DEFAULT_PATH;
  if (typeof value !== 'string' || !value.startsWith('/') || /[?#\s]/.test(value)) {
    throw new SalvoOptionError(
      `socketio.path must be a path starting with / (default ${DEFAULT_PATH}); got ${show(value)}`,
      { option: 'socketio.path', value },
    );
  }
  return value.endsWith('/') ? value : `${value}/`;
}

function parseNamespace(value: unknown): string {
  if (value === undefined) return '/';
  if (typeof value !== 'string' || !value.startsWith('/') || /[,\s]/.test(value)) {
    throw new SalvoOptionError(
      `socketio.namespace must start with / and have no comma or space (default '/'); got ${show(value)}`,
      { option: 'socketio.namespace', value },
    );
  }
  return value;
}

function parseEmit(value: unknown): PlannedSocketIo['emit'] {
  if (value === undefined) return undefined;
  if (!isPlainObject(value))
    throw new SalvoOptionError(`socketio.emit must be { event, data }; got ${show(value)}`, {
      option: 'socketio.emit',
      value,
    });
  rejectUnknownKeys(value, ['event', 'data'], 'socketio.emit');
  const event = eventName('socketio.emit.event', value.event);
  const args = value.data === undefined ? [event] : [event, value.data];
  return { event, argsJson: json('socketio.emit.data', args) };
}

function parseListen(value: unknown): PlannedSocketIo['listen'] {
  if (value === undefined) return undefined;
  if (!isPlainObject(value))
    throw new SalvoOptionError(`socketio.listen must be { event, timestamp: { field } }; got ${show(value)}`, {
      option: 'socketio.listen',
      value,
    });
  rejectUnknownKeys(value, ['event', 'timestamp'], 'socketio.listen');
  const event = eventName('socketio.listen.event', value.event);
  const { timestamp } = value;
  if (timestamp === undefined) return { event, timestampField: undefined };
  const field = isPlainObject(timestamp) && Object.keys(timestamp).length === 1 ? timestamp.field : undefined;
  if (typeof field !== 'string' || field === '') {
    throw new SalvoOptionError(
      `socketio.listen.timestamp must be { field: 'name' }, a number of epoch ms in the event's first argument; got ${show(timestamp)}`,
      {
        option: 'socketio.listen.timestamp',
        value: timestamp,
      },
    );
  }
  return { event, timestampField: field };
}

/**
 * Validates the `socketio` option against the run's url (the server's origin: the path is
 * `socketio.path`), `amount` (which counts emits) and headers (already validated).
 */
export function planSocketIo(
  value: unknown,
  context: { url: URL; amount: number | undefined; headers: Record<string, string> },
): PlannedSocketIo {
  if (!isPlainObject(value)) {
    throw new SalvoOptionError(
      `socketio must be an object such as { emit: { event, data }, ack: true }; got ${show(value)}`,
      { option: 'socketio', value },
    );
  }
  rejectUnknownKeys(value, SOCKETIO_OPTIONS, 'socketio');
  const options = value as SocketIoOptions;
  const { url } = context;
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    throw new SalvoOptionError(
      `url of a Socket.IO run is the server's origin; give the path as socketio.path (default ${DEFAULT_PATH}); got url ${show(url.href)}`,
      { option: 'url', value: url.href, mentions: ['socketio.path'] },
    );
  }
  const path = parsePath(options.path);
  const namespace = parseNamespace(options.namespace);
  if (options.auth !== undefined && !isPlainObject(options.auth)) {
    throw new SalvoOptionError(
      `socketio.auth must be an object (the namespace connect's auth payload); got ${show(options.auth)}`,
      { option: 'socketio.auth', value: options.auth },
    );
  }
  const authJson = options.auth === undefined ? undefined : json('socketio.auth', options.auth);
  const emit = parseEmit(options.emit);
  const listen = parseListen(options.listen);
  if (emit === undefined && listen === undefined) {
    throw new SalvoOptionError(
      'socketio needs emit (what each connection emits), listen (the events to time), or both; got neither',
      {
        option: 'socketio',
        value,
        mentions: ['socketio.emit', 'socketio.listen'],
      },
    );
  }
  const { rate } = options;
  if (rate !== undefined && (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0)) {
    throw new SalvoRangeError(
      `socketio.rate must be a number of emits per second per connection, more than zero; got ${show(rate)}`,
      { option: 'socketio.rate', value: rate },
    );
  }
  if (options.ack !== undefined && typeof options.ack !== 'boolean') {
    throw new SalvoOptionError(`socketio.ack must be true or false; got ${show(options.ack)}`, {
      option: 'socketio.ack',
      value: options.ack,
    });
  }
  const ack = options.ack ?? false;
  const reply = options.reply === undefined ? undefined : eventName('socketio.reply', options.reply);
  for (const [name, given] of [
    ['rate', rate],
    ['ack', options.ack],
    ['reply', reply],
  ] as const) {
    if (given !== undefined && emit === undefined) {
      throw new SalvoOptionError(
        `socketio.${name} needs socketio.emit, the event to emit; got ${name} ${show(given)} and no emit`,
        {
          option: `socketio.${name}`,
          value: given,
          mentions: ['socketio.emit'],
        },
      );
    }
  }
  if (ack && reply !== undefined) {
    throw new SalvoOptionError(
      `socketio.ack and socketio.reply both time an emit; give one; got ack true and reply ${show(reply)}`,
      {
        option: 'socketio.reply',
        value: reply,
        mentions: ['socketio.ack'],
      },
    );
  }
  if (emit !== undefined && rate === undefined && !ack && reply === undefined) {
    throw new SalvoOptionError(
      'socketio.emit without ack or reply has nothing to wait for: give socketio.ack: true, socketio.reply, or socketio.rate (emits per second per connection)',
      { option: 'socketio.emit', value: options.emit, mentions: ['socketio.ack', 'socketio.reply', 'socketio.rate'] },
    );
  }
  if (context.amount !== undefined && emit === undefined) {
    throw new SalvoOptionError(
      `amount counts emits and needs socketio.emit; got amount ${context.amount} and no emit`,
      {
        option: 'amount',
        value: context.amount,
        mentions: ['socketio.emit'],
      },
    );
  }
  return {
    engineUrl: engineUrl(url, path),
    namespace,
    authJson,
    emit,
    rate,
    ack,
    reply,
    listen,
    headers: context.headers,
  };
}
