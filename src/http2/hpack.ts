import { joinFieldValue } from '../shared/exchange.js';
import { STATIC_LENGTH, STATIC_NAMES, STATIC_VALUES } from './hpack-static-table.js';
import { huffmanDecode, huffmanEncodeAll } from './huffman.js';

/**
 * HPACK (RFC 7541) response decoder, with its dynamic table (the request encoder is hpack-encoder.ts).
 * A load test decodes one response head per request, almost always `:status` from the static table
 * and a few fields nobody reads, so the decoder makes no string it does not have to: fields that are
 * neither kept in the table nor asked for are stepped over undecoded.
 */

/** Static indices 8-14 are `:status` with a value; 1-14 are all pseudo-header fields. */
const FIRST_STATUS = 8;
const FIRST_REGULAR = 15;
const STATIC_STATUS = STATIC_VALUES.map((value, index) =>
  index >= FIRST_STATUS && index < FIRST_REGULAR ? Number(value) : 0,
);

/** RFC 7541 section 4.1: each entry counts its name and value octets plus this. */
const ENTRY_OVERHEAD = 32;
/** Integers past this are refused (RFC 7541 section 5.1 leaves the limit to the decoder). */
const MAX_INTEGER = 2 ** 31 - 1;
const COLON = 58;
const STATUS = ':status';
/** `:status` as a literal name, raw and Huffman-coded: a valid Huffman coding of it is unique. */
const STATUS_RAW = Buffer.from(STATUS, 'latin1');
const STATUS_HUFFMAN = huffmanEncodeAll(STATUS_RAW);
const CONTENT_LENGTH = 'content-length';
const CONTENT_LENGTH_INDEX = 28;
const CONTENT_LENGTH_RAW = Buffer.from(CONTENT_LENGTH, 'latin1');
const CONTENT_LENGTH_HUFFMAN = huffmanEncodeAll(CONTENT_LENGTH_RAW);
/** What `#skipName` found. */
const OTHER_NAME = 0;
const STATUS_NAME = 1;
const CONTENT_LENGTH_NAME = 2;
/** `contentLength` when a block has none, and when it has one that is no number or several that differ. */
export const NO_CONTENT_LENGTH = -1;
export const BAD_CONTENT_LENGTH = -2;

/** Adds a content-length field's value to what the block said so far (RFC 9110 8.6). */
function withContentLength(sofar: number, value: string): number {
  const length = /^\d{1,15}$/.test(value) ? Number(value) : BAD_CONTENT_LENGTH;
  return sofar === NO_CONTENT_LENGTH || sofar === length ? length : BAD_CONTENT_LENGTH;
}

/** Node's Buffer.prototype.latin1Slice: toString('latin1') without its argument checks, on any Uint8Array. */
type Latin1Slice = (this: Uint8Array, start: number, end: number) => string;
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice: Latin1Slice }).latin1Slice;

/**
 * A string of latin1 bytes. Strings of one byte come from V8's single-character cache, many times
 * cheaper than the call into C++ (content-length: 2, say).
 */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  if (end - start === 1) return String.fromCharCode(bytes[start]!);
  return start === end ? '' : latin1Slice.call(bytes, start, end);
}

/** Where an integer or string read left off, kept in one object per decoder so reads allocate nothing. */
export interface Cursor {
  pos: number;
}

/**
 * Reads an integer with a `prefixBits`-bit prefix (RFC 7541 section 5.1) at `cursor.pos` and moves
 * the cursor past it. Returns -1 when it runs past `end` or past 2^31 - 1.
 */
export function decodeInteger(src: Uint8Array, cursor: Cursor, end: number, prefixBits: number): number {
  let pos = cursor.pos;
  if (pos >= end) return -1;
  const mask = (1 << prefixBits) - 1;
  let value = src[pos++]! & mask;
  if (value === mask) {
    let scale = 1;
    let byte: number;
    do {
      if (pos >= end || scale > 2 ** 28) return -1;
      byte = src[pos++]!;
      value += (byte & 0x7f) * scale;
      if (value > MAX_INTEGER) return -1;
      scale *= 128;
    } while (byte >= 0x80);
  }
  cursor.pos = pos;
  return value;
}

/** The status code in a `:status` value, or -1 unless it is three digits (100-999: 0 means none). */
function parseStatus(value: string): number {
  if (value.length !== 3) return -1;
  const a = value.charCodeAt(0) - 0x30;
  const b = value.charCodeAt(1) - 0x30;
  const c = value.charCodeAt(2) - 0x30;
  if (a < 1 || a > 9 || b < 0 || b > 9 || c < 0 || c > 9) return -1;
  return a * 100 + b * 10 + c;
}

/** Joins a repeated field as HTTP/1.1 would, as the HTTP/1.1 parser does. */
function addField(headers: Record<string, string>, name: string, value: string): void {
  headers[name] = joinFieldValue(name, headers[name], value);
}

/** Whether `src[start, end)` holds exactly the bytes of `expected`. */
function bytesEqual(src: Uint8Array, start: number, end: number, expected: Uint8Array): boolean {
  if (end - start !== expected.length) return false;
  for (let i = 0; i < expected.length; i++) if (src[start + i] !== expected[i]) return false;
  return true;
}

/**
 * Decodes the header blocks of one connection, in order: the dynamic table carries from one block to
 * the next, so every block must be decoded, even those of streams nobody waits for any more. A
 * string stepped over is only checked to fit the block: bad Huffman in it goes unnoticed, which
 * costs nothing, as nothing reads it.
 */
export class HpackDecoder {
  /** The SETTINGS_HEADER_TABLE_SIZE we advertise: the encoder may not ask for more. */
  readonly #maxTableSize: number;
  /** The size the encoder last chose (a dynamic table size update), at most #maxTableSize. */
  #capacity: number;
  #size = 0;
  /**
   * The dynamic table as a ring, newest entry at #head. Every entry takes at least 32 octets, so
   * maxTableSize / 32 + 1 slots never fill.
   */
  readonly #names: string[];
  readonly #values: string[];
  #head = 0;
  #count = 0;
  readonly #cursor: Cursor = { pos: 0 };
  /** The last literal value indexed under each static name, encoded (length prefix included) and decoded. */
  readonly #recentBytes: Array<Uint8Array | undefined> = new Array<Uint8Array | undefined>(STATIC_LENGTH + 1).fill(
    undefined,
  );
  readonly #recentValues: string[] = new Array<string>(STATIC_LENGTH + 1).fill('');
  /**
   * The content-length of the last block decoded: NO_CONTENT_LENGTH, its value, or BAD_CONTENT_LENGTH
   * (not a number, or repeated with another value). Always read, also without `capture`: a response
   * whose DATA does not add up to it is malformed (RFC 9113 8.1.1).
   */
  contentLength = NO_CONTENT_LENGTH;
  /** Huffman strings are decoded here before becoming strings; grown on demand, never shrunk. */
  #scratch = Buffer.allocUnsafe(256);

  constructor(maxTableSize = 4096) {
    this.#maxTableSize = maxTableSize;
    this.#capacity = maxTableSize;
    const slots = Math.floor(maxTableSize / ENTRY_OVERHEAD) + 1;
    this.#names = new Array<string>(slots).fill('');
    this.#values = new Array<string>(slots).fill('');
  }

  /** The dynamic table's size in octets, by RFC 7541's rule. */
  get tableSize(): number {
    return this.#size;
  }

  /** The number of entries in the dynamic table. */
  get tableLength(): number {
    return this.#count;
  }

  /** The field at an HPACK index (static 1-61, then dynamic, newest first), or undefined. */
  entry(index: number): [string, string] | undefined {
    if (index >= 1 && index <= STATIC_LENGTH) return [STATIC_NAMES[index]!, STATIC_VALUES[index]!];
    const slot = this.#slot(index);
    return slot < 0 ? undefined : [this.#names[slot]!, this.#values[slot]!];
  }

  /**
   * Decodes one complete header block, `block[start, end)`. Returns the `:status` (0 when there is
   * none, as in trailers), -1 on a COMPRESSION_ERROR, after which the connection's table is lost,
   * or -2 when `:status` is not one three-digit value; that block is still decoded to its end, as
   * the table must stay in step. With `capture`, the regular fields are added to it by lower-case
   * name, repeated names joined with ', '.
   */
  decode(block: Uint8Array, start: number, end: number, capture: Record<string, string> | undefined): number {
    const cursor = this.#cursor;
    cursor.pos = start;
    let status = 0;
    let contentLength = NO_CONTENT_LENGTH;
    let malformed = false;
    let fields = false;
    while (cursor.pos < end) {
      const first = block[cursor.pos]!;
      let name: string;
      let value: string;
      if (first >= 0x80) {
        // Indexed field. The common response head is a lone 0x88, `:status: 200`.
        fields = true;
        const index = decodeInteger(block, cursor, end, 7);
        if (index <= 0) return -1;
        if (index <= STATIC_LENGTH) {
          if (index >= FIRST_REGULAR) {
            // content-length with the static table's empty value: no number.
            if (index === CONTENT_LENGTH_INDEX) contentLength = BAD_CONTENT_LENGTH;
            if (capture !== undefined) addField(capture, STATIC_NAMES[index]!, STATIC_VALUES[index]!);
          } else if (index >= FIRST_STATUS) {
            if (status !== 0) malformed = true;
            status = STATIC_STATUS[index]!;
          }
          continue;
        }
        const slot = this.#slot(index);
        if (slot < 0) return -1;
        name = this.#names[slot]!;
        value = this.#values[slot]!;
      } else if (first >= 0x40) {
        // Literal with incremental indexing: decoded whatever the caller wants, for the table.
        fields = true;
        const index = decodeInteger(block, cursor, end, 6);
        if (index < 0) return -1;
        const indexedName = index === 0 ? this.#literalName(block, end) : this.#name(index);
        if (indexedName === undefined) return -1;
        const literal =
          index > 0 && index <= STATIC_LENGTH ? this.#repeatedString(index, block, end) : this.#string(block, end);
        if (literal === undefined) return -1;
        name = indexedName;
        value = literal;
        this.#insert(name, value);
      } else if (first >= 0x20) {
        // Dynamic table size update: only before the first field (RFC 7541 section 4.2).
        if (fields) return -1;
        const size = decodeInteger(block, cursor, end, 5);
        if (size < 0 || size > this.#maxTableSize) return -1;
        this.#capacity = size;
        this.#evictTo(size);
        continue;
      } else {
        // Literal without indexing (0000) or never indexed (0001): both leave the table alone, so
        // unless asked for, only `:status` and content-length are read; anything else is stepped over.
        fields = true;
        const index = decodeInteger(block, cursor, end, 4);
        if (index < 0) return -1;
        if (capture === undefined) {
          let kind: number;
          if (index === 0) {
            kind = this.#skipName(block, end);
            if (kind < 0) return -1;
          } else if (index <= STATIC_LENGTH) {
            kind =
              index >= FIRST_STATUS && index < FIRST_REGULAR
                ? STATUS_NAME
                : index === CONTENT_LENGTH_INDEX
                  ? CONTENT_LENGTH_NAME
                  : OTHER_NAME;
          } else {
            const slot = this.#slot(index);
            if (slot < 0) return -1;
            const slotName = this.#names[slot];
            kind = slotName === STATUS ? STATUS_NAME : slotName === CONTENT_LENGTH ? CONTENT_LENGTH_NAME : OTHER_NAME;
          }
          if (kind === OTHER_NAME) {
            if (!this.#skipString(block, end)) return -1;
            continue;
          }
          name = kind === STATUS_NAME ? STATUS : CONTENT_LENGTH;
        } else {
          const indexedName = index === 0 ? this.#literalName(block, end) : this.#name(index);
          if (indexedName === undefined) return -1;
          name = indexedName;
        }
        const literal = this.#string(block, end);
        if (literal === undefined) return -1;
        value = literal;
      }
      if (name.charCodeAt(0) === COLON) {
        if (name === STATUS) {
          if (status !== 0) malformed = true;
          status = parseStatus(value);
          if (status < 0) malformed = true;
        }
      } else {
        if (name === CONTENT_LENGTH) contentLength = withContentLength(contentLength, value);
        if (capture !== undefined) addField(capture, name, value);
      }
    }
    this.contentLength = contentLength;
    return malformed ? -2 : status;
  }

  /** The ring slot of HPACK index `index` in the dynamic table, or -1 past its end. */
  #slot(index: number): number {
    const age = index - STATIC_LENGTH - 1;
    if (age < 0 || age >= this.#count) return -1;
    const slot = this.#head - age;
    return slot < 0 ? slot + this.#names.length : slot;
  }

  #name(index: number): string | undefined {
    if (index <= STATIC_LENGTH) return STATIC_NAMES[index];
    const slot = this.#slot(index);
    return slot < 0 ? undefined : this.#names[slot];
  }

  /**
   * A literal name, lower-cased once here (HTTP/2 names are lower case already) so that captures
   * of static, dynamic and literal names alike need no case folding.
   */
  #literalName(block: Uint8Array, end: number): string | undefined {
    return this.#string(block, end)?.toLowerCase();
  }

  /** Reads a string literal (RFC 7541 section 5.2), or undefined when it is cut short or bad Huffman. */
  #string(block: Uint8Array, end: number): string | undefined {
    const cursor = this.#cursor;
    if (cursor.pos >= end) return undefined;
    const huffman = block[cursor.pos]! >= 0x80;
    const length = decodeInteger(block, cursor, end, 7);
    if (length < 0) return undefined;
    const start = cursor.pos;
    if (length > end - start) return undefined;
    cursor.pos = start + length;
    if (!huffman) return latin1(block, start, start + length);
    const most = Math.ceil((length * 8) / 5);
    if (most > this.#scratch.length) this.#scratch = Buffer.allocUnsafe(Math.max(most, 2 * this.#scratch.length));
    const n = huffmanDecode(block, start, start + length, this.#scratch);
    return n < 0 ? undefined : latin1(this.#scratch, 0, n);
  }

  /**
   * The value of a literal with incremental indexing under static name `index`: nginx sends
   * `server`, `date`, `content-type` and `content-length` that way on every response, never
   * referring back to the table, so the same encoded bytes come again and again. The last encoded
   * value per static name and its string are kept, and a repeat costs a byte comparison instead of
   * a Huffman decode and a new string.
   */
  #repeatedString(index: number, block: Uint8Array, end: number): string | undefined {
    const cursor = this.#cursor;
    const at = cursor.pos;
    if (at >= end) return undefined;
    const length = decodeInteger(block, cursor, end, 7);
    if (length < 0 || length > end - cursor.pos) return undefined;
    const stop = cursor.pos + length;
    const previous = this.#recentBytes[index];
    if (previous !== undefined && bytesEqual(block, at, stop, previous)) {
      cursor.pos = stop;
      return this.#recentValues[index];
    }
    cursor.pos = at;
    const value = this.#string(block, end);
    if (value !== undefined) {
      this.#recentBytes[index] = block.slice(at, stop);
      this.#recentValues[index] = value;
    }
    return value;
  }

  /** Steps over a string literal unread; false when it runs past `end`. */
  #skipString(block: Uint8Array, end: number): boolean {
    const cursor = this.#cursor;
    const length = decodeInteger(block, cursor, end, 7);
    if (length < 0 || length > end - cursor.pos) return false;
    cursor.pos += length;
    return true;
  }

  /** Steps over a literal name: STATUS_NAME, CONTENT_LENGTH_NAME or OTHER_NAME, -1 when it runs past `end`. */
  #skipName(block: Uint8Array, end: number): number {
    const cursor = this.#cursor;
    if (cursor.pos >= end) return -1;
    const huffman = block[cursor.pos]! >= 0x80;
    const length = decodeInteger(block, cursor, end, 7);
    const start = cursor.pos;
    if (length < 0 || length > end - start) return -1;
    cursor.pos = start + length;
    if (bytesEqual(block, start, start + length, huffman ? STATUS_HUFFMAN : STATUS_RAW)) return STATUS_NAME;
    return bytesEqual(block, start, start + length, huffman ? CONTENT_LENGTH_HUFFMAN : CONTENT_LENGTH_RAW)
      ? CONTENT_LENGTH_NAME
      : OTHER_NAME;
  }

  /** Adds an entry, evicting the oldest first; one larger than the table empties it (section 4.4). */
  #insert(name: string, value: string): void {
    const size = name.length + value.length + ENTRY_OVERHEAD;
    if (size > this.#capacity) {
      this.#evictTo(0);
      return;
    }
    this.#evictTo(this.#capacity - size);
    if (++this.#head === this.#names.length) this.#head = 0;
    this.#names[this.#head] = name;
    this.#values[this.#head] = value;
    this.#count++;
    this.#size += size;
  }

  /** Evicts the oldest entries until the table takes at most `size` octets. */
  #evictTo(size: number): void {
    const slots = this.#names.length;
    while (this.#size > size) {
      let oldest = this.#head - this.#count + 1;
      if (oldest < 0) oldest += slots;
      this.#size -= this.#names[oldest]!.length + this.#values[oldest]!.length + ENTRY_OVERHEAD;
      this.#names[oldest] = '';
      this.#values[oldest] = '';
      this.#count--;
    }
  }
}
