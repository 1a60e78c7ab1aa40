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

/** A top-level number `field` of the event's first argument (`["tick",{"ts":...}]`), or undefined. */
export function firstArgumentField(data: Buffer, at: number, field: string): number | undefined {
  try {
    const args: unknown = JSON.parse(data.toString('utf8', at));
    const value = Array.isArray(args) ? (args[1] as Record<string, unknown> | null | undefined)?.[field] : undefined;
    return typeof value === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}
