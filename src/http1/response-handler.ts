// What the HTTP/1.1 response parser reports, to whom, and how it is set up.
import type { ResponseDetails } from '../shared/exchange.js';
import type { HeadTemplate } from './head-template.js';

/**
 * Stable codes for malformed responses, named after llhttp's so that counts read the same whichever
 * transport produced them.
 */
export type ParseErrorCode =
  | 'HPE_INVALID_CONSTANT'
  | 'HPE_INVALID_VERSION'
  | 'HPE_INVALID_STATUS'
  | 'HPE_INVALID_HEADER_TOKEN'
  | 'HPE_HEADER_OVERFLOW'
  | 'HPE_INVALID_CONTENT_LENGTH'
  | 'HPE_INVALID_CHUNK_SIZE'
  | 'HPE_UNEXPECTED_EOF';

/** Receives each final response as soon as its last byte is parsed. */
export interface ResponseHandler {
  /**
   * A final response (not 1xx) has fully arrived. `bytes` counts every byte received for it,
   * informational responses before it included. `willClose`: the server closes the connection after
   * it, so nothing after it is parsed. `details` is given only when the parser captures.
   * Return false when the connection was closed or replaced from inside the callback: the parser
   * then returns at once without touching its state, which may already belong to a new connection.
   */
  onResponse(status: number, bytes: number, willClose: boolean, details: ResponseDetails | undefined): boolean;
  /**
   * Body bytes `data[start, end)` of the response being parsed, as they arrive (with `body` on; the
   * buffer is reused after the call). Return false to end the response there: it is reported to
   * `onResponse` at once, as closing the connection (the rest of its body is never read).
   */
  onBody?(data: Buffer, start: number, end: number): boolean;
  /**
   * A final response's head was parsed (with `heads` on), before its body. Return false to end the
   * response there: it is reported to `onResponse` at once, as closing the connection.
   */
  onHead?(status: number, contentType: string | undefined): boolean;
  /**
   * With `body` on: the final response's body is content-coded (its `content-encoding`), told before
   * its body. Return false to end the response there, as `onHead` returning false does.
   */
  onEncoding?(contentEncoding: string): boolean;
}

export interface ResponseParserOptions {
  /** Build `ResponseDetails` (headers and body) for each response. Default false. */
  capture?: boolean;
  /** Report body bytes to `onBody` as they arrive. Default false. */
  body?: boolean;
  /** Report each final head to `onHead`, with its content-type. Default false. */
  heads?: boolean;
  /** Most bytes a status line plus headers (or a trailer section, or a chunk-size line) may take. */
  maxHeaderBytes?: number;
  /** A template shared with other parsers (the connections of one transport); else its own. Unused when capturing. */
  template?: HeadTemplate;
}
