import { equalsLower, isWhitespace, SP } from './bytes.js';

/**
 * The status line, the values of the fields that frame a response (Content-Length,
 * Transfer-Encoding, Connection) and chunk-size lines, read in place from the parser's buffer: pure
 * functions over `line[start, end)`, with a field value's surrounding whitespace already trimmed.
 */

const COMMA = 44;
const SEMICOLON = 59;

const TOKEN = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
  TOKEN[c.charCodeAt(0)] = 1;
}

const NOT_HEX = 255;
const HEX = new Uint8Array(256).fill(NOT_HEX);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}

const CHUNKED = Buffer.from('chunked', 'latin1');
const CLOSE = Buffer.from('close', 'latin1');
const KEEP_ALIVE = Buffer.from('keep-alive', 'latin1');

/**
 * Content-Length values above 15 decimal digits (petabytes) and chunk sizes above 13 hex digits are
 * refused rather than lose precision; leading zeros are no digits of the value.
 */
const MAX_LENGTH = 10 ** 15 - 1;
const MAX_CHUNK_SIZE = 16 ** 13 - 1;

/** Bits of `connectionTokens`. */
export const CONNECTION_CLOSE = 1;
export const CONNECTION_KEEP_ALIVE = 2;

/** Whether `byte` may appear in a header name (RFC 9110 tchar). */
export function isTokenByte(byte: number): boolean {
  return TOKEN[byte] === 1;
}

/** A Content-Length value, or -1 when it is not a plain decimal number. */
export function parseContentLength(line: Buffer, start: number, end: number): number {
  if (start === end) return -1;
  let length = 0;
  for (let i = start; i < end; i++) {
    const digit = line[i]! - 0x30;
    if (digit < 0 || digit > 9) return -1;
    length = length * 10 + digit;
    if (length > MAX_LENGTH) return -1;
  }
  return length;
}

/** Only a final `chunked` frames the body; `chunked, gzip` or `gzip` alone runs to the close. */
export function lastTokenIsChunked(line: Buffer, start: number, end: number): boolean {
  let tokenStart = end;
  while (tokenStart > start && line[tokenStart - 1] !== COMMA) tokenStart--;
  while (tokenStart < end && isWhitespace(line[tokenStart])) tokenStart++;
  return equalsLower(line, tokenStart, end, CHUNKED);
}

/** The `close` and `keep-alive` tokens of a Connection value, as CONNECTION_* bits. */
export function connectionTokens(line: Buffer, start: number, end: number): number {
  let found = 0;
  let tokenStart = start;
  while (tokenStart < end) {
    let tokenEnd = tokenStart;
    while (tokenEnd < end && line[tokenEnd] !== COMMA) tokenEnd++;
    const next = tokenEnd + 1;
    while (tokenStart < tokenEnd && isWhitespace(line[tokenStart])) tokenStart++;
    while (tokenEnd > tokenStart && isWhitespace(line[tokenEnd - 1])) tokenEnd--;
    if (equalsLower(line, tokenStart, tokenEnd, CLOSE)) found |= CONNECTION_CLOSE;
    else if (equalsLower(line, tokenStart, tokenEnd, KEEP_ALIVE)) found |= CONNECTION_KEEP_ALIVE;
    tokenStart = next;
  }
  return found;
}

/** A chunk-size line's size (extensions after `;` ignored), or -1 when it is malformed. */
export function parseChunkSize(line: Buffer, start: number, end: number): number {
  let size = 0;
  let i = start;
  for (; i < end; i++) {
    const digit = HEX[line[i]!]!;
    if (digit === NOT_HEX) break;
    size = size * 16 + digit;
    if (size > MAX_CHUNK_SIZE) return -1;
  }
  if (i === start) return -1;
  while (i < end && isWhitespace(line[i])) i++;
  if (i < end && line[i] !== SEMICOLON) return -1;
  return size;
}

const HTTP_SLASH = Buffer.from('HTTP/', 'latin1');

/**
 * The status line `HTTP/1.x NNN ...` in `line[start, end)`: the status code times two, plus one for
 * HTTP/1.0 (`status = parsed >> 1`, `http10 = parsed & 1`), or the `HPE_*` code it fails with.
 */
export function parseStatusLine(
  line: Buffer,
  start: number,
  end: number,
): number | 'HPE_INVALID_CONSTANT' | 'HPE_INVALID_VERSION' | 'HPE_INVALID_STATUS' {
  for (let i = 0; i < HTTP_SLASH.length; i++) {
    if (line[start + i] !== HTTP_SLASH[i]) return 'HPE_INVALID_CONSTANT';
  }
  const minor = line[start + 7];
  if (line[start + 5] !== 0x31 || line[start + 6] !== 0x2e || (minor !== 0x30 && minor !== 0x31))
    return 'HPE_INVALID_VERSION';
  if (line[start + 8] !== SP || (end > start + 12 && line[start + 12] !== SP) || end < start + 12)
    return 'HPE_INVALID_STATUS';
  let status = 0;
  for (let i = start + 9; i < start + 12; i++) {
    const digit = line[i]! - 0x30;
    if (digit < 0 || digit > 9) return 'HPE_INVALID_STATUS';
    status = status * 10 + digit;
  }
  if (status < 100) return 'HPE_INVALID_STATUS';
  return status * 2 + (minor === 0x30 ? 1 : 0);
}
