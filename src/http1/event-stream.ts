/**
 * Event framing of a streamed response body, fed the body bytes as a transport receives them, in
 * any split: Server-Sent Events after the HTML standard's event-stream grammar (§9.2.6: `\r\n`,
 * `\n` and `\r` line ends, a leading BOM, `:` comments, `data` lines joined with `\n`, `event`,
 * `id`, `retry`), NDJSON lines, or every non-empty piece of body as it arrives (`chunks`).
 * The bytes are scanned in place; a field's text is copied only when `keepText` asks for it (the
 * `until`, `timestamp` and `tokens` options read it), and decoded only when read.
 */

import type { StreamFormat } from '../shared/stream.js';

/** Told of each complete event, synchronously, while `push` runs. */
export interface EventStreamHandler {
  /** Return false to stop: `push` returns false at once and the rest of the body is not framed. */
  onEvent(stream: EventStream): boolean;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const BOM = [0xef, 0xbb, 0xbf];

// Where an SSE line is.
const LINE_START = 0;
const NAME = 1;
const VALUE_FIRST = 2;
const VALUE = 3;
const COMMENT = 4;

// SSE fields; any other name is ignored, as the standard says.
const OTHER = 0;
const DATA = 1;
const EVENT = 2;
const ID = 3;
const RETRY = 4;

/** Bytes copied out of reads that the next read may overwrite; grows, never shrinks. */
class TextBytes {
  bytes = Buffer.allocUnsafe(256);
  length = 0;

  append(data: Uint8Array, start: number, end: number): void {
    const needed = this.length + end - start;
    if (needed > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, 2 * this.bytes.length));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    for (let i = start; i < end; i++) this.bytes[this.length++] = data[i]!;
  }

  text(): string {
    return this.bytes.toString('utf8', 0, this.length);
  }
}

/** One response's (or one subscription's) event framing; `reset` for the next. */
export class EventStream {
  /** Events completed since the last `reset`. */
  events = 0;
  /** The last `retry:` the server sent, ms; -1 when none. Kept across `reset` (a reconnection keeps it). */
  retryMs = -1;

  readonly format: StreamFormat;
  readonly #handler: EventStreamHandler;
  readonly #keepText: boolean;
  /** Bytes of the BOM matched so far at the start of the stream; 3 once past it. */
  #bom = 0;
  /** The last byte was a CR: an LF right after it ends no second line. */
  #afterCR = false;
  #part = LINE_START;
  #field = OTHER;
  readonly #name = new Uint8Array(8);
  #nameLength = 0;
  /** The event being built has a `data` line (or, for NDJSON, the line has content). */
  #hasData = false;
  readonly #data = new TextBytes();
  readonly #eventType = new TextBytes();
  #id = new TextBytes();
  #idHasNull = false;
  /** An `id:` line of the event being built, which its blank line makes the last event id. */
  #pendingId = new TextBytes();
  #idPending = false;
  /** The last event id's bytes, decoded only when asked for. */
  #lastId = new TextBytes();
  #retry = 0;
  #retryValid = false;
  #retryDigits = 0;
  /** `chunks`: the piece being reported. */
  #chunk: Uint8Array | undefined;
  #chunkStart = 0;
  #chunkEnd = 0;

  constructor(format: StreamFormat, handler: EventStreamHandler, keepText = false) {
    this.format = format;
    this.#handler = handler;
    this.#keepText = keepText;
  }

  /** For a new response: what an unfinished event had (its `id:` too) is dropped; `lastEventId` and `retryMs` stay. */
  reset(): void {
    this.events = 0;
    this.#idPending = false;
    this.#bom = 0;
    this.#afterCR = false;
    this.#part = LINE_START;
    this.#hasData = false;
    this.#data.length = 0;
    this.#eventType.length = 0;
  }

  /** The event's data: an SSE event's `data` lines joined with `\n`, an NDJSON line, a chunk. Needs `keepText`. */
  data(): string {
    if (this.format === 'chunks')
      return this.#chunk === undefined
        ? ''
        : Buffer.from(
            this.#chunk.buffer,
            this.#chunk.byteOffset + this.#chunkStart,
            this.#chunkEnd - this.#chunkStart,
          ).toString('utf8');
    return this.#data.text();
  }

  /** An SSE event's type (`event:`), `message` when it has none. Needs `keepText`. */
  eventType(): string {
    return this.#eventType.length === 0 ? 'message' : this.#eventType.text();
  }

  /**
   * The last event id the server set (SSE `id:`), sent back as `Last-Event-ID` when reconnecting. As
   * the standard says, an `id:` takes effect at its event's blank line: an event cut off by a lost
   * connection does not move it.
   */
  get lastEventId(): string {
    return this.#lastId.text();
  }

  /** For a new subscription (not a reconnection): no last event id, no `retry`. */
  forget(): void {
    this.reset();
    this.#lastId.length = 0;
    this.retryMs = -1;
  }

  /** Frames `data[start, end)`. Returns false when the handler stopped the stream. */
  push(data: Uint8Array, start: number, end: number): boolean {
    if (start >= end) return true;
    if (this.format === 'chunks') {
      this.#chunk = data;
      this.#chunkStart = start;
      this.#chunkEnd = end;
      this.events++;
      const goOn = this.#handler.onEvent(this);
      this.#chunk = undefined;
      return goOn;
    }
    let i = start;
    if (this.#bom < 3) i = this.#skipBom(data, i, end);
    return this.format === 'sse' ? this.#sse(data, i, end) : this.#ndjson(data, i, end);
  }

  /** The body ended: an NDJSON line without its newline is an event; an unfinished SSE event is dropped, as the standard says. */
  end(): boolean {
    if (this.format !== 'ndjson' || !this.#hasData) return true;
    return this.#dispatch();
  }

  #skipBom(data: Uint8Array, i: number, end: number): number {
    while (i < end && this.#bom < 3) {
      if (data[i] !== BOM[this.#bom]) {
        // Not a BOM after all; the bytes matched so far (an invalid UTF-8 start) are dropped.
        this.#bom = 3;
        return i;
      }
      this.#bom++;
      i++;
    }
    return i;
  }

  #ndjson(data: Uint8Array, i: number, end: number): boolean {
    while (i < end) {
      let j = i;
      let content = false;
      while (j < end) {
        const b = data[j]!;
        if (b === LF) break;
        if (b !== SPACE && b !== TAB && b !== CR) content = true;
        j++;
      }
      if (content) this.#hasData = true;
      if (this.#keepText && j > i) this.#data.append(data, i, j);
      if (j === end) return true;
      i = j + 1;
      if (this.#hasData && !this.#dispatch()) return false;
      this.#data.length = 0;
    }
    return true;
  }

  #sse(data: Uint8Array, i: number, end: number): boolean {
    while (i < end) {
      let b = data[i]!;
      if (this.#afterCR) {
        this.#afterCR = false;
        if (b === LF) {
          i++;
          continue;
        }
      }
      switch (this.#part) {
        case LINE_START:
          if (b === CR || b === LF) {
            this.#afterCR = b === CR;
            i++;
            if (!this.#endEvent()) return false;
          } else if (b === COLON) {
            this.#part = COMMENT;
            i++;
          } else {
            this.#part = NAME;
            this.#nameLength = 0;
          }
          break;
        case NAME:
          while (i < end) {
            b = data[i]!;
            if (b === COLON || b === CR || b === LF) break;
            if (this.#nameLength < 8) this.#name[this.#nameLength] = b;
            this.#nameLength++;
            i++;
          }
          if (i === end) return true;
          this.#startField();
          if (b === COLON) {
            this.#part = VALUE_FIRST;
          } else {
            this.#endField();
            this.#afterCR = b === CR;
            this.#part = LINE_START;
          }
          i++;
          break;
        case VALUE_FIRST:
          if (b === SPACE) i++;
          this.#part = VALUE;
          break;
        default: {
          // VALUE or COMMENT: to the line's end.
          let j = i;
          while (j < end && data[j] !== CR && data[j] !== LF) j++;
          if (this.#part === VALUE && j > i) this.#value(data, i, j);
          if (j === end) return true;
          if (this.#part === VALUE) this.#endField();
          this.#afterCR = data[j] === CR;
          this.#part = LINE_START;
          i = j + 1;
        }
      }
    }
    return true;
  }

  #startField(): void {
    const name = this.#name;
    const n = this.#nameLength;
    let field = OTHER;
    if (n === 4 && name[0] === 0x64 && name[1] === 0x61 && name[2] === 0x74 && name[3] === 0x61) field = DATA;
    else if (
      n === 5 &&
      name[0] === 0x65 &&
      name[1] === 0x76 &&
      name[2] === 0x65 &&
      name[3] === 0x6e &&
      name[4] === 0x74
    )
      field = EVENT;
    else if (n === 2 && name[0] === 0x69 && name[1] === 0x64) field = ID;
    else if (
      n === 5 &&
      name[0] === 0x72 &&
      name[1] === 0x65 &&
      name[2] === 0x74 &&
      name[3] === 0x72 &&
      name[4] === 0x79
    )
      field = RETRY;
    this.#field = field;
    if (field === DATA) {
      if (this.#hasData && this.#keepText) this.#data.append(NEWLINE, 0, 1);
      this.#hasData = true;
    } else if (field === EVENT) {
      this.#eventType.length = 0;
    } else if (field === ID) {
      this.#id.length = 0;
      this.#idHasNull = false;
    } else if (field === RETRY) {
      this.#retry = 0;
      this.#retryValid = true;
      this.#retryDigits = 0;
    }
  }

  #value(data: Uint8Array, start: number, end: number): void {
    switch (this.#field) {
      case DATA:
        if (this.#keepText) this.#data.append(data, start, end);
        break;
      case EVENT:
        if (this.#keepText) this.#eventType.append(data, start, end);
        break;
      case ID:
        for (let i = start; i < end; i++) if (data[i] === 0) this.#idHasNull = true;
        this.#id.append(data, start, end);
        break;
      case RETRY:
        for (let i = start; i < end; i++) {
          const digit = data[i]! - 0x30;
          if (digit < 0 || digit > 9) this.#retryValid = false;
          else {
            this.#retry = this.#retry * 10 + digit;
            this.#retryDigits++;
          }
        }
        break;
    }
  }

  #endField(): void {
    if (this.#field === ID && !this.#idHasNull) {
      const pending = this.#pendingId;
      this.#pendingId = this.#id;
      this.#id = pending;
      this.#idPending = true;
    } else if (this.#field === RETRY && this.#retryValid && this.#retryDigits > 0) {
      this.retryMs = this.#retry;
    }
    this.#field = OTHER;
  }

  /** An empty line: the event is dispatched when it has data, and forgotten either way. */
  #endEvent(): boolean {
    if (this.#idPending) {
      const last = this.#lastId;
      this.#lastId = this.#pendingId;
      this.#pendingId = last;
      this.#idPending = false;
    }
    if (!this.#hasData) {
      this.#eventType.length = 0;
      return true;
    }
    const goOn = this.#dispatch();
    this.#eventType.length = 0;
    return goOn;
  }

  #dispatch(): boolean {
    this.events++;
    const goOn = this.#handler.onEvent(this);
    this.#hasData = false;
    this.#data.length = 0;
    return goOn;
  }
}

const NEWLINE = new Uint8Array([LF]);
