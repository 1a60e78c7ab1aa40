/**
 * Engine.IO 4 and Socket.IO 5 packets as they travel over a WebSocket (the protocol of Socket.IO 3
 * and 4 servers): one packet per text frame, `4` (Engine.IO message) then the Socket.IO type, the
 * attachment count of a binary packet, the namespace, the acknowledgement id and a JSON payload;
 * binary attachments follow as binary frames. Decoding reads the header in place and leaves the
 * payload unparsed, so that a received event costs no allocation until its timestamp is wanted.
 */

/** Engine.IO packet types (the first character of a text frame). */
export const EIO_OPEN = 0x30;
export const EIO_CLOSE = 0x31;
export const EIO_PING = 0x32;
export const EIO_PONG = 0x33;
export const EIO_MESSAGE = 0x34;

/** Socket.IO packet types (the character after `4`). */
export const SIO_CONNECT = 0;
export const SIO_DISCONNECT = 1;
export const SIO_EVENT = 2;
export const SIO_ACK = 3;
export const SIO_CONNECT_ERROR = 4;
export const SIO_BINARY_EVENT = 5;
export const SIO_BINARY_ACK = 6;

/** The Engine.IO answer to a server's ping. */
export const PONG = '3';

const SLASH = 0x2f;
const COMMA = 0x2c;
const DASH = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** `path` (default `/socket.io/`) on the server's origin as the Engine.IO WebSocket url. */
export function engineUrl(origin: URL, path: string): string {
  const url = new URL(path, origin);
  url.protocol = origin.protocol === 'https:' || origin.protocol === 'wss:' ? 'wss:' : 'ws:';
  url.search = 'EIO=4&transport=websocket';
  return url.href;
}

/** The prefix of a namespace's packets: nothing for the main namespace, `/chat,` for another. */
function namespacePrefix(namespace: string): string {
  return namespace === '/' ? '' : `${namespace},`;
}

/** A namespace connect (`40`), with the auth payload as JSON. */
export function encodeConnect(namespace: string, authJson: string | undefined): string {
  return `40${namespacePrefix(namespace)}${authJson ?? ''}`;
}

/**
 * The server's heartbeat from an Engine.IO open packet (`0{"sid":...,"pingInterval":25000,"pingTimeout":20000}`):
 * how long a client waits for the next ping before it gives the connection up; 0 where the packet does not say.
 */
export function pingDeadlineMs(open: Buffer): number {
  try {
    const { pingInterval, pingTimeout } = JSON.parse(open.toString('utf8', 1)) as {
      pingInterval?: unknown;
      pingTimeout?: unknown;
    };
    return typeof pingInterval === 'number' && typeof pingTimeout === 'number' && pingInterval > 0 && pingTimeout >= 0
      ? pingInterval + pingTimeout
      : 0;
  } catch {
    return 0;
  }
}

/**
 * An event's packet before and after its acknowledgement id: `42/ns,` and `["event",data]`. Without
 * an id the packet is `head + body`; with one, `head + id + body`.
 */
export function eventParts(namespace: string, argsJson: string): { head: string; body: string } {
  return { head: `42${namespacePrefix(namespace)}`, body: argsJson };
}

/** A decoded packet's header; one is reused for every frame. */
export class PacketHeader {
  /** Engine.IO type (EIO_*), or -1 for an empty frame. */
  engine = -1;
  /** Socket.IO type (SIO_*) of an Engine.IO message, else -1. */
  type = -1;
  /** Binary attachments that follow (binary event or ack). */
  attachments = 0;
  /** Acknowledgement id, or -1. */
  id = -1;
  /** Where the JSON payload starts. */
  payloadAt = 0;

  /** Reads the header of the text frame `data`; false when it is no packet salvo knows. */
  read(data: Buffer): boolean {
    this.type = -1;
    this.attachments = 0;
    this.id = -1;
    const length = data.length;
    if (length === 0) {
      this.engine = -1;
      return false;
    }
    this.engine = data[0]!;
    if (this.engine !== EIO_MESSAGE) {
      this.payloadAt = 1;
      return this.engine >= EIO_OPEN && this.engine <= 0x36;
    }
    if (length < 2) return false;
    const type = data[1]! - ZERO;
    if (type < 0 || type > 6) return false;
    this.type = type;
    let at = 2;
    if (type === SIO_BINARY_EVENT || type === SIO_BINARY_ACK) {
      let count = 0;
      while (at < length && data[at]! >= ZERO && data[at]! <= NINE) count = count * 10 + data[at++]! - ZERO;
      if (data[at] !== DASH) return false;
      this.attachments = count;
      at++;
    }
    if (data[at] === SLASH) {
      while (at < length && data[at] !== COMMA) at++;
      at++;
    }
    if (at < length && data[at]! >= ZERO && data[at]! <= NINE) {
      let id = 0;
      while (at < length && data[at]! >= ZERO && data[at]! <= NINE) id = id * 10 + data[at++]! - ZERO;
      this.id = id;
    }
    this.payloadAt = Math.min(at, length);
    return true;
  }
}

/** `["name"` as bytes, to compare an event's name in place. */
export function eventNameBytes(event: string): Buffer {
  return Buffer.from(`[${JSON.stringify(event)}`);
}

/** Is the event whose payload starts at `at` named by `name` (from `eventNameBytes`)? */
export function isEvent(data: Buffer, at: number, name: Buffer): boolean {
  const end = at + name.length;
  if (end >= data.length) return false;
  const next = data[end];
  if (next !== COMMA && next !== 0x5d) return false;
  for (let i = 0; i < name.length; i++) if (data[at + i] !== name[i]) return false;
  return true;
}

/** A field name as the bytes of its JSON key, `"ts"`. */
export function fieldKeyBytes(field: string): Buffer {
  return Buffer.from(JSON.stringify(field));
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** Not what the scanner expects (whitespace, an escaped key): JSON.parse decides. */
const UNSURE = -2;

/** The last string `skipString` passed had an escape in it. */
let escaped = false;

/** Past the JSON string opening at `at`, or UNSURE. */
function skipString(data: Buffer, at: number): number {
  escaped = false;
  for (let i = at + 1; i < data.length; i++) {
    const byte = data[i];
    if (byte === BACKSLASH) {
      escaped = true;
      i++;
    } else if (byte === QUOTE) return i + 1;
  }
  return UNSURE;
}

/** Past the JSON value at `at` (compact, as JSON.stringify writes it), or UNSURE. */
function skipValue(data: Buffer, at: number): number {
  const first = data[at];
  if (first === QUOTE) return skipString(data, at);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let i = at; i < data.length; i++) {
      const byte = data[i];
      if (byte === QUOTE) {
        i = skipString(data, i);
        if (i === UNSURE) return UNSURE;
        i--;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
      else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --depth === 0) return i + 1;
    }
    return UNSURE;
  }
  let i = at;
  while (i < data.length && data[i] !== COMMA && data[i] !== CLOSE_BRACE && data[i] !== CLOSE_BRACKET) i++;
  return i === at ? UNSURE : i;
}

/** The JSON number at `at`: digits read in place, anything else (a fraction, an exponent) by Number. */
function readNumber(data: Buffer, at: number, end: number): number | undefined {
  let value = 0;
  for (let i = at; i < end; i++) {
    const byte = data[i]!;
    if (byte < ZERO || byte > NINE) {
      const number = Number(data.toString('latin1', at, end));
      return data[at] === QUOTE || Number.isNaN(number) ? undefined : number;
    }
    value = value * 10 + byte - ZERO;
  }
  return value;
}

/**
 * A top-level number field (`key` from `fieldKeyBytes`) of the event's first argument
 * (`["tick",{"ts":...}]`, the event's name `nameLength` bytes with its `[`), or undefined. The compact
 * JSON a Socket.IO server writes is scanned in place, without parsing the rest; anything else goes
 * to JSON.parse.
 */
export function firstArgumentField(
  data: Buffer,
  at: number,
  nameLength: number,
  key: Buffer,
  field: string,
): number | undefined {
  let i = at + nameLength;
  if (data[i] !== COMMA || data[i + 1] !== OPEN_BRACE) return parsedField(data, at, field);
  i += 2;
  while (i < data.length) {
    if (data[i] === CLOSE_BRACE) return undefined;
    if (data[i] !== QUOTE) return parsedField(data, at, field);
    const keyEnd = skipString(data, i);
    // An escaped key may spell the field otherwise than JSON.stringify does.
    if (keyEnd === UNSURE || escaped || data[keyEnd] !== COLON) return parsedField(data, at, field);
    let matches = keyEnd - i === key.length;
    for (let k = 0; matches && k < key.length; k++) matches = data[i + k] === key[k];
    if (matches) {
      const end = skipValue(data, keyEnd + 1);
      // A frame cut short after the number (no frame from a server is) is no JSON.
      if (end === UNSURE || end >= data.length) return parsedField(data, at, field);
      return readNumber(data, keyEnd + 1, end);
    }
    i = skipValue(data, keyEnd + 1);
    if (i === UNSURE) return parsedField(data, at, field);
    if (data[i] === COMMA) i++;
  }
  return undefined;
}

/** `firstArgumentField` by JSON.parse. */
export function parsedField(data: Buffer, at: number, field: string): number | undefined {
  try {
    const args: unknown = JSON.parse(data.toString('utf8', at));
    const value = Array.isArray(args) ? (args[1] as Record<string, unknown> | null | undefined)?.[field] : undefined;
    return typeof value === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}
