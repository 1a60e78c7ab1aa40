/** Bytes and byte comparisons shared by the response parser and the head template. */

export const LF = 10;
export const CR = 13;
export const SP = 32;
export const HT = 9;
export const COLON = 58;
/** ASCII letters and '-' compared case-insensitively by setting this bit. */
const LOWER = 0x20;

/** The header names whose values frame a response, lower case. */
export const CONTENT_LENGTH = Buffer.from('content-length', 'latin1');
export const TRANSFER_ENCODING = Buffer.from('transfer-encoding', 'latin1');
export const CONNECTION = Buffer.from('connection', 'latin1');
export const CONTENT_TYPE = Buffer.from('content-type', 'latin1');
export const CONTENT_ENCODING = Buffer.from('content-encoding', 'latin1');

/** Whether `buf[start, end)` equals `lower` (lower case) in any letter case. */
export function equalsLower(buf: Uint8Array, start: number, end: number, lower: Uint8Array): boolean {
  if (end - start !== lower.length) return false;
  for (let i = 0; i < lower.length; i++) {
    if ((buf[start + i]! | LOWER) !== lower[i]) return false;
  }
  return true;
}

/**
 * Whether `buf[start, end)` names Content-Length, Transfer-Encoding or Connection, or Content-Encoding
 * (not framing, but a streamed body is decoded after it, so a head template must keep its value).
 */
export function isFramingName(buf: Uint8Array, start: number, end: number): boolean {
  return (
    equalsLower(buf, start, end, CONTENT_LENGTH) ||
    equalsLower(buf, start, end, TRANSFER_ENCODING) ||
    equalsLower(buf, start, end, CONNECTION) ||
    equalsLower(buf, start, end, CONTENT_ENCODING)
  );
}

export function isWhitespace(c: number | undefined): boolean {
  return c === SP || c === HT;
}
