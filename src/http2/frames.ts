/**
 * HTTP/2 framing (RFC 9113 section 4 and 6): the constants a client needs, the frames it writes,
 * and `FrameReader`, an incremental reader that hands whole control frames and streamed DATA
 * payloads to a handler, allocating only for a frame that spans reads.
 */

export const FRAME_HEADER_BYTES = 9;
/** The largest frame either side may send before SETTINGS_MAX_FRAME_SIZE says otherwise; we never raise ours. */
export const DEFAULT_MAX_FRAME_BYTES = 16_384;
/** The flow-control window every connection and stream starts with (RFC 9113 6.9.2). */
export const DEFAULT_WINDOW_BYTES = 65_535;
export const MAX_WINDOW_BYTES = 2 ** 31 - 1;

export const enum FrameType {
  DATA = 0x0,
  HEADERS = 0x1,
  PRIORITY = 0x2,
  RST_STREAM = 0x3,
  SETTINGS = 0x4,
  PUSH_PROMISE = 0x5,
  PING = 0x6,
  GOAWAY = 0x7,
  WINDOW_UPDATE = 0x8,
  CONTINUATION = 0x9,
}

export const enum Flag {
  END_STREAM = 0x1,
  // eslint-disable-next-line @typescript-eslint/no-duplicate-enum-values -- both 0x1 (RFC 9113): on DATA/HEADERS and on SETTINGS/PING
  ACK = 0x1,
  END_HEADERS = 0x4,
  PADDED = 0x8,
  PRIORITY = 0x20,
}

export const enum Setting {
  HEADER_TABLE_SIZE = 0x1,
  ENABLE_PUSH = 0x2,
  MAX_CONCURRENT_STREAMS = 0x3,
  INITIAL_WINDOW_SIZE = 0x4,
  MAX_FRAME_SIZE = 0x5,
}

/** HTTP/2 error codes by number (RFC 9113 section 7). */
export const ERROR_NAMES = [
  'NO_ERROR',
  'PROTOCOL_ERROR',
  'INTERNAL_ERROR',
  'FLOW_CONTROL_ERROR',
  'SETTINGS_TIMEOUT',
  'STREAM_CLOSED',
  'FRAME_SIZE_ERROR',
  'REFUSED_STREAM',
  'CANCEL',
  'COMPRESSION_ERROR',
  'CONNECT_ERROR',
  'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY',
  'HTTP_1_1_REQUIRED',
] as const;

export const enum ErrorCode {
  NO_ERROR = 0x0,
  PROTOCOL_ERROR = 0x1,
  FLOW_CONTROL_ERROR = 0x3,
  FRAME_SIZE_ERROR = 0x6,
  REFUSED_STREAM = 0x7,
  CANCEL = 0x8,
  COMPRESSION_ERROR = 0x9,
}

/** What a client sends first on every connection (RFC 9113 3.4). */
export const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** Writes a frame header at `offset`; returns the offset of its payload. */
export function writeFrameHeader(
  out: Uint8Array,
  offset: number,
  length: number,
  type: number,
  flags: number,
  streamId: number,
): number {
  out[offset] = length >>> 16;
  out[offset + 1] = (length >>> 8) & 0xff;
  out[offset + 2] = length & 0xff;
  out[offset + 3] = type;
  out[offset + 4] = flags;
  writeUint31(out, offset + 5, streamId);
  return offset + FRAME_HEADER_BYTES;
}

export function writeUint31(out: Uint8Array, offset: number, value: number): void {
  out[offset] = (value >>> 24) & 0x7f;
  out[offset + 1] = (value >>> 16) & 0xff;
  out[offset + 2] = (value >>> 8) & 0xff;
  out[offset + 3] = value & 0xff;
}

export function readUint31(bytes: Uint8Array, offset: number): number {
  return (
    (bytes[offset]! & 0x7f) * 0x1000000 + (bytes[offset + 1]! << 16) + (bytes[offset + 2]! << 8) + bytes[offset + 3]!
  );
}

export function readUint32(bytes: Uint8Array, offset: number): number {
  return bytes[offset]! * 0x1000000 + (bytes[offset + 1]! << 16) + (bytes[offset + 2]! << 8) + bytes[offset + 3]!;
}

/** A whole frame as one Buffer: for the rare control frames, never per request. */
export function encodeFrame(
  type: number,
  flags: number,
  streamId: number,
  payload: Uint8Array = new Uint8Array(0),
): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  writeFrameHeader(frame, 0, payload.length, type, flags, streamId);
  frame.set(payload, FRAME_HEADER_BYTES);
  return frame;
}

export function encodeSettings(settings: ReadonlyArray<readonly [Setting, number]>): Buffer {
  const payload = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return encodeFrame(FrameType.SETTINGS, 0, 0, payload);
}

export function encodeWindowUpdate(streamId: number, increment: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  writeUint31(payload, 0, increment);
  return encodeFrame(FrameType.WINDOW_UPDATE, 0, streamId, payload);
}

export function encodeRstStream(streamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(code, 0);
  return encodeFrame(FrameType.RST_STREAM, 0, streamId, payload);
}

export function encodeGoaway(lastStreamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(8);
  writeUint31(payload, 0, lastStreamId);
  payload.writeUInt32BE(code, 4);
  return encodeFrame(FrameType.GOAWAY, 0, 0, payload);
}

export const SETTINGS_ACK = encodeFrame(FrameType.SETTINGS, Flag.ACK, 0);

/** What `FrameReader` hands over. Each method returns false when the reader must stop (the connection is gone). */
export interface FrameHandler {
  /** A whole frame other than DATA: its payload is `bytes[start, end)`, valid only during the call. */
  onFrame(type: number, flags: number, streamId: number, bytes: Uint8Array, start: number, end: number): boolean;
  /** Part of a DATA frame's data (padding removed), as it arrives. */
  onData(streamId: number, bytes: Uint8Array, start: number, end: number): boolean;
  /**
   * A DATA frame is over: `frameBytes` is its payload length (padding included), which flow control
   * counts; `dataBytes` the data in it, which a response's content-length counts.
   */
  onDataEnd(streamId: number, flags: number, frameBytes: number, dataBytes: number): boolean;
  /** The peer broke the framing: a connection error with this HTTP/2 error code. */
  onFramingError(code: number, reason: string): void;
}

const enum State {
  HEADER,
  PAYLOAD,
  DATA_PAD_LENGTH,
  DATA,
}

/**
 * Reads frames out of a byte stream delivered in arbitrary pieces. Control frames are handed over
 * whole, straight from the read buffer when they lie in it (nearly always), copied otherwise. DATA
 * payloads are streamed, so a large body is never gathered to be counted.
 */
export class FrameReader {
  readonly #handler: FrameHandler;
  readonly #header = new Uint8Array(FRAME_HEADER_BYTES);
  #headerFilled = 0;
  #state = State.HEADER;
  #type = 0;
  #flags = 0;
  #streamId = 0;
  #length = 0;
  /** A control frame's payload gathered over reads. */
  #payload: Uint8Array = new Uint8Array(0);
  #payloadFilled = 0;
  /** DATA: bytes of the frame's payload still to come, and how many of them are padding. */
  #left = 0;
  #padding = 0;

  constructor(handler: FrameHandler) {
    this.#handler = handler;
  }

  /** Reads `bytes[start, end)`; returns false when the handler stopped it or the framing broke. */
  execute(bytes: Uint8Array, start: number, end: number): boolean {
    let at = start;
    while (at < end) {
      switch (this.#state) {
        case State.HEADER: {
          let header: Uint8Array = bytes;
          let offset = at;
          if (this.#headerFilled === 0 && end - at >= FRAME_HEADER_BYTES) {
            at += FRAME_HEADER_BYTES;
          } else {
            const take = Math.min(FRAME_HEADER_BYTES - this.#headerFilled, end - at);
            this.#header.set(bytes.subarray(at, at + take), this.#headerFilled);
            this.#headerFilled += take;
            at += take;
            if (this.#headerFilled < FRAME_HEADER_BYTES) return true;
            this.#headerFilled = 0;
            header = this.#header;
            offset = 0;
          }
          const length = (header[offset]! << 16) | (header[offset + 1]! << 8) | header[offset + 2]!;
          this.#type = header[offset + 3]!;
          this.#flags = header[offset + 4]!;
          this.#streamId = readUint31(header, offset + 5);
          this.#length = length;
          if (length > DEFAULT_MAX_FRAME_BYTES) {
            this.#handler.onFramingError(
              ErrorCode.FRAME_SIZE_ERROR,
              `a ${length}-byte frame, above the 16,384 bytes allowed`,
            );
            return false;
          }
          if (this.#type === FrameType.DATA) {
            this.#left = length;
            this.#padding = 0;
            if ((this.#flags & Flag.PADDED) !== 0) {
              this.#state = State.DATA_PAD_LENGTH;
            } else if (length === 0) {
              if (!this.#handler.onDataEnd(this.#streamId, this.#flags, 0, 0)) return false;
            } else {
              this.#state = State.DATA;
            }
          } else if (length === 0) {
            if (!this.#handler.onFrame(this.#type, this.#flags, this.#streamId, bytes, at, at)) return false;
          } else if (end - at >= length) {
            const payloadAt = at;
            at += length;
            if (!this.#handler.onFrame(this.#type, this.#flags, this.#streamId, bytes, payloadAt, at)) return false;
          } else {
            if (this.#payload.length < length) this.#payload = new Uint8Array(Math.max(length, 1024));
            this.#payloadFilled = 0;
            this.#state = State.PAYLOAD;
          }
          break;
        }
        case State.PAYLOAD: {
          const take = Math.min(this.#length - this.#payloadFilled, end - at);
          this.#payload.set(bytes.subarray(at, at + take), this.#payloadFilled);
          this.#payloadFilled += take;
          at += take;
          if (this.#payloadFilled < this.#length) return true;
          this.#state = State.HEADER;
          if (!this.#handler.onFrame(this.#type, this.#flags, this.#streamId, this.#payload, 0, this.#length))
            return false;
          break;
        }
        case State.DATA_PAD_LENGTH: {
          this.#padding = bytes[at]!;
          at++;
          this.#left--;
          if (this.#padding > this.#left) {
            this.#handler.onFramingError(ErrorCode.PROTOCOL_ERROR, 'a DATA frame padded beyond its length');
            return false;
          }
          this.#state = State.DATA;
          if (this.#left === 0 && !this.#endData()) return false;
          break;
        }
        case State.DATA: {
          const take = Math.min(this.#left, end - at);
          const data = Math.min(take, this.#left - this.#padding);
          if (data > 0 && !this.#handler.onData(this.#streamId, bytes, at, at + data)) return false;
          at += take;
          this.#left -= take;
          if (this.#left === 0 && !this.#endData()) return false;
          break;
        }
      }
    }
    return true;
  }

  #endData(): boolean {
    this.#state = State.HEADER;
    const padded = (this.#flags & Flag.PADDED) !== 0;
    return this.#handler.onDataEnd(
      this.#streamId,
      this.#flags,
      this.#length,
      padded ? this.#length - 1 - this.#padding : this.#length,
    );
  }
}
