// The response parser's states and what a step of its `execute` loop returns: plain numbers, which
// the bundle keeps as constants of one scope as when they lived in parser.ts.
import type { ParseErrorCode } from './response-handler.js';

export const STATUS_LINE = 0;
export const HEADER_LINE = 1;
export const CHUNK_SIZE = 2;
export const CHUNK_DATA_END = 3;
export const TRAILER_LINE = 4;
export const BODY_LENGTH = 5;
export const CHUNK_DATA = 6;
export const BODY_UNTIL_CLOSE = 7;
/** The response said the connection closes after it: later bytes are not ours to parse. */
export const CLOSED = 8;
export const FAILED = 9;

/** What a step of the parse tells the `execute` loop. */
export const CONTINUE = 0;
export const STOP = 1;
export const ERROR = 2;
export type Step = typeof CONTINUE | typeof STOP | typeof ERROR;

/** The code of a line over `maxHeaderBytes`: a chunk-size line's, or a head's (or trailer's). */
export function overflowCode(state: number): ParseErrorCode {
  return state === CHUNK_SIZE || state === CHUNK_DATA_END ? 'HPE_INVALID_CHUNK_SIZE' : 'HPE_HEADER_OVERFLOW';
}
