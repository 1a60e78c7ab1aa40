import { endianness } from 'node:os';
import { COLON, CR, isFramingName, isWhitespace, LF } from './bytes.js';

/** Heads longer than this are never kept: they are rare, and a long template costs every compare. */
const MAX_TEMPLATE_BYTES = 4096;
const PLATFORM_LITTLE_ENDIAN = endianness() === 'LE';

/** What parsing a head found, all the parser needs to go on to the body. */
export interface HeadFacts {
  status: number;
  http10: boolean;
  contentLength: number;
  transferEncoding: boolean;
  chunked: boolean;
  connectionClose: boolean;
  connectionKeepAlive: boolean;
  /** `content-encoding`'s value, read only when body bytes are reported (`body`); undefined for none. */
  contentEncoding?: string | undefined;
}

/**
 * The last response head received (on any connection of a transport, which share one), byte for
 * byte, with what parsing it found.
 *
 * A load test gets the same head again and again: the same status line and header names, and
 * values that differ in a few bytes at most (`Date`). When the next head equals the template except
 * inside the values of non-framing headers (and the reason phrase), where no byte may be LF, then
 * every line starts and ends where it did, every name and framing value is the same, and so is the
 * parse. Comparing four bytes at a time this way is several times cheaper than parsing in
 * JavaScript, which touches each byte on its own.
 */
export class HeadTemplate {
  /** Bytes in the template; 0 while there is none. */
  length = 0;
  readonly facts: HeadFacts = {
    status: 0,
    http10: false,
    contentLength: -1,
    transferEncoding: false,
    chunked: false,
    connectionClose: false,
    connectionKeepAlive: false,
    contentEncoding: undefined,
  };

  #bytes = new Uint8Array(0);
  /** 0xff on each byte that may differ. */
  #mask = new Uint8Array(0);
  #words = new Int32Array(0);
  #maskWords = new Int32Array(0);
  /** Misses in a row; the template is relearnt only after 1, 2, 4, 8... of them. */
  #misses = 0;

  /**
   * Whether `data` at `pos` holds a head this template stands for; `length` bytes of it must be
   * there, and `view` must be a DataView of exactly `data`.
   */
  matches(data: Uint8Array, view: DataView, pos: number): boolean {
    const length = this.length;
    const fullWords = length >>> 2;
    const words = this.#words;
    const maskWords = this.#maskWords;
    for (let i = 0; i < fullWords; i++) {
      const got = view.getInt32(pos + 4 * i, PLATFORM_LITTLE_ENDIAN);
      const changed = got ^ words[i]!;
      if (changed !== 0 && !this.#allowed(changed, maskWords[i]!, got)) return this.#miss();
    }
    const bytes = this.#bytes;
    const mask = this.#mask;
    for (let i = fullWords * 4; i < length; i++) {
      const got = data[pos + i]!;
      if (got !== bytes[i] && (mask[i] === 0 || got === LF)) return this.#miss();
    }
    this.#misses = 0;
    return true;
  }

  /** A word that differs: only in masked bytes, and none of them turned into LF. */
  #allowed(changed: number, mask: number, got: number): boolean {
    if ((changed & ~mask) !== 0) return false;
    for (let shift = 0; shift < 32; shift += 8) {
      if (((changed >>> shift) & 0xff) !== 0 && ((got >>> shift) & 0xff) === LF) return false;
    }
    return true;
  }

  #miss(): false {
    this.#misses++;
    return false;
  }

  /** Whether a head just parsed the long way should replace the template (a miss streak of 2^k). */
  get wantsHead(): boolean {
    return this.length === 0 || (this.#misses & (this.#misses - 1)) === 0;
  }

  /**
   * Keeps `data[start, end)`, a head the parser has just accepted whole (status line through the
   * empty line), and the facts parsing it found. Heads it cannot describe are not kept; a long or
   * informational one leaves the template as it was, so that a 1xx before each final response
   * does not cost the final head its template.
   */
  learn(data: Uint8Array, start: number, end: number, facts: HeadFacts): void {
    const length = end - start;
    if (length > MAX_TEMPLATE_BYTES || facts.status < 200) return;
    this.length = 0;
    if (this.#bytes.length < length) {
      const capacity = (length + 3) & ~3;
      this.#bytes = new Uint8Array(capacity);
      this.#mask = new Uint8Array(capacity);
      this.#words = new Int32Array(this.#bytes.buffer);
      this.#maskWords = new Int32Array(this.#mask.buffer);
    }
    const bytes = this.#bytes;
    const mask = this.#mask;
    bytes.set(data.subarray(start, end));
    mask.fill(0);
    if (!maskValues(bytes, mask, length)) return;
    Object.assign(this.facts, facts);
    this.length = length;
    this.#misses = 0;
  }
}

/**
 * Marks the bytes of a whole, already validated head that do not affect its parse: the reason
 * phrase and the values of non-framing headers. False for a head this cannot describe (a folded
 * line, or anything after the first empty line).
 */
function maskValues(bytes: Uint8Array, mask: Uint8Array, length: number): boolean {
  let lineStart = 0;
  let first = true;
  while (lineStart < length) {
    let lf = lineStart;
    while (lf < length && bytes[lf] !== LF) lf++;
    if (lf === length) return false;
    const lineEnd = lf > lineStart && bytes[lf - 1] === CR ? lf - 1 : lf;
    if (lineEnd === lineStart) return lf + 1 === length;
    if (first) {
      // "HTTP/1.1 200 OK": the reason phrase starts at 13.
      mask.fill(0xff, lineStart + 13, Math.max(lineStart + 13, lineEnd));
      first = false;
    } else {
      if (isWhitespace(bytes[lineStart])) return false;
      let colon = lineStart;
      while (colon < lineEnd && bytes[colon] !== COLON) colon++;
      if (colon === lineEnd) return false;
      if (!isFramingName(bytes, lineStart, colon)) {
        let valueStart = colon + 1;
        let valueEnd = lineEnd;
        while (valueStart < valueEnd && isWhitespace(bytes[valueStart])) valueStart++;
        while (valueEnd > valueStart && isWhitespace(bytes[valueEnd - 1])) valueEnd--;
        mask.fill(0xff, valueStart, valueEnd);
      }
    }
    lineStart = lf + 1;
  }
  return false;
}
