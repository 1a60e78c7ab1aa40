import { COLON, CONNECTION, CONTENT_LENGTH, CR, equalsLower, isWhitespace, LF, TRANSFER_ENCODING } from './bytes.js';
import {
  CONNECTION_CLOSE, CONNECTION_KEEP_ALIVE, connectionTokens, isTokenByte, lastTokenIsChunked, parseChunkSize,
  parseContentLength, parseStatusLine,
} from './field-values.js';
import { HeadFields } from './head-fields.js';
import { HeadTemplate, type HeadFacts } from './head-template.js';
import { PartialLine } from './partial-line.js';
import { ResponseCapture } from './response-capture.js';
import {
  BODY_LENGTH, BODY_UNTIL_CLOSE, CHUNK_DATA, CHUNK_DATA_END, CHUNK_SIZE, CLOSED, CONTINUE, ERROR, FAILED, HEADER_LINE,
  overflowCode, STATUS_LINE, STOP, TRAILER_LINE, type Step,
} from './parse-states.js';
import type { ParseErrorCode, ResponseHandler, ResponseParserOptions } from './response-handler.js';

/**
 * An incremental HTTP/1.1 response parser that works on the socket's read buffer in place: framing
 * headers are recognised by byte comparison, no string is made per response unless `capture` is on,
 * and only an unfinished line is copied so that it survives the next read into the same buffer.
 * It never throws: malformed input makes `execute` return an `HPE_*` code, and it stays failed
 * until `reset`.
 */
export class ResponseParser {
  /** The response being parsed answers a HEAD request: it has no body whatever its headers say. */
  headRequest = false;

  readonly #handler: ResponseHandler;
  /** `capture`: the headers and body kept for `ResponseDetails`. */
  readonly #captured: ResponseCapture | undefined;
  /** Hand the body bytes to `onBody` as they arrive (`stream`). */
  readonly #body: boolean;
  /** With `heads` (`onHead`, its content-type) or `body` (`onEncoding`): the header values read for them. */
  readonly #fields: HeadFields | undefined;
  readonly #maxHeaderBytes: number;

  #state = STATUS_LINE;
  #error: ParseErrorCode | undefined;
  /** Bytes received for the current response, informational responses before it included. */
  #bytes = 0;
  /** Bytes of the current header section, trailer section or chunk line, against the limit. */
  #sectionBytes = 0;
  /** An unfinished line carried from one read to the next. */
  readonly #partial = new PartialLine();

  #status = 0;
  #http10 = false;
  #contentLength = -1;
  #transferEncoding = false;
  #chunked = false;
  #connectionClose = false;
  #connectionKeepAlive = false;
  #sawHeader = false;
  #lastHeaderFraming = false;
  /** Body bytes (or chunk bytes) still to come. */
  #remaining = 0;

  /** The last head, to recognise the next one by comparison; none when capturing. */
  readonly #template: HeadTemplate | undefined;
  /** A DataView of the last buffer parsed: making one reads `buffer` and `byteOffset`, runtime calls. */
  #viewed: Buffer | undefined;
  #view: DataView | undefined;

  constructor(handler: ResponseHandler, options: ResponseParserOptions = {}) {
    this.#handler = handler;
    this.#captured = options.capture === true ? new ResponseCapture() : undefined;
    this.#body = options.body ?? false;
    this.#fields = options.heads === true || this.#body ? new HeadFields(options.heads === true, this.#body) : undefined;
    this.#maxHeaderBytes = options.maxHeaderBytes ?? 64 * 1024;
    // A template would take a head for the last one without reading its content-type.
    this.#template = this.#captured !== undefined || options.heads === true ? undefined : (options.template ?? new HeadTemplate());
    this.#startMessage(false);
  }

  /** Forgets everything, for a new connection. */
  reset(): void {
    this.#error = undefined;
    this.#partial.length = 0;
    this.headRequest = false;
    this.#startMessage(false);
  }

  /** Some bytes of a response have arrived and its end has not. */
  get inMessage(): boolean {
    return this.#bytes > 0 && this.#state !== CLOSED && this.#state !== FAILED;
  }

  /**
   * Parses `data[start, end)`. Returns an error code when the input is malformed, else undefined.
   * Responses are reported to the handler as they complete, synchronously.
   */
  execute(data: Buffer, start: number, end: number): ParseErrorCode | undefined {
    let pos = start;
    /** Where the head being parsed began in `data`, while all of it is there (-1: it is not). */
    let headStart = -1;
    while (pos < end) {
      const state = this.#state;
      let step: Step;
      // At the start of a head: the first, or a final one after informational (1xx) heads.
      if (state === STATUS_LINE && this.#partial.length === 0) {
        const template = this.#template;
        if (template !== undefined && template.length > 0 && end - pos >= template.length && template.matches(data, this.#viewOf(data), pos)) {
          pos += template.length;
          step = this.#knownHead(template);
          if (step === STOP) return undefined;
          continue;
        }
        headStart = pos;
      }
      if (state < BODY_LENGTH) {
        // A plain loop: lines are short, and Buffer#indexOf costs more per call than the scan.
        // It stops at `end`, since a reused read buffer holds stale bytes past it.
        let lf = pos;
        while (lf < end && data[lf] !== LF) lf++;
        if (lf === end) return this.#keepPartial(data, pos, end);
        const consumed = lf + 1 - pos;
        this.#bytes += consumed;
        this.#sectionBytes += consumed;
        if (this.#sectionBytes > this.#maxHeaderBytes) return this.#failWith(overflowCode(this.#state));
        let line = data;
        let lineStart = pos;
        let lineEnd = lf;
        if (this.#partial.length > 0) {
          line = this.#partial.append(data, pos, lf + 1);
          lineStart = 0;
          lineEnd = this.#partial.length - 1;
          this.#partial.length = 0;
        }
        pos = lf + 1;
        if (lineEnd > lineStart && line[lineEnd - 1] === CR) lineEnd--;
        if (state === HEADER_LINE && lineStart === lineEnd && headStart >= 0 && this.#template?.wantsHead) {
          // Before the head is acted on: completing the response may reset the parser.
          this.#template.learn(data, headStart, pos, this.#facts());
        }
        step = this.#line(state, line, lineStart, lineEnd);
      } else if (state === BODY_LENGTH || state === CHUNK_DATA) {
        const n = Math.min(this.#remaining, end - pos);
        this.#captured?.body(data, pos, pos + n);
        pos += n;
        this.#bytes += n;
        this.#remaining -= n;
        if (this.#body && !this.#handler.onBody!(data, pos - n, pos)) return this.#endEarly();
        step = CONTINUE;
        if (this.#remaining === 0) {
          if (state === CHUNK_DATA) {
            this.#state = CHUNK_DATA_END;
            this.#sectionBytes = 0;
          } else {
            step = this.#complete();
          }
        }
      } else if (state === BODY_UNTIL_CLOSE) {
        this.#captured?.body(data, pos, end);
        this.#bytes += end - pos;
        const from = pos;
        pos = end;
        if (this.#body && !this.#handler.onBody!(data, from, end)) return this.#endEarly();
        step = CONTINUE;
      } else if (state === CLOSED) {
        return undefined;
      } else {
        return this.#error;
      }
      if (step === STOP) return undefined;
      if (step === ERROR) return this.#error;
    }
    return undefined;
  }

  /**
   * The connection reached EOF. A body delimited by the close completes here (reported to the
   * handler); a response cut short returns `HPE_UNEXPECTED_EOF`.
   */
  finish(): ParseErrorCode | undefined {
    if (this.#state === BODY_UNTIL_CLOSE) {
      this.#complete();
      return undefined;
    }
    if (this.#state === FAILED) return this.#error;
    if (!this.inMessage) return undefined;
    return this.#failWith('HPE_UNEXPECTED_EOF');
  }

  #line(state: number, line: Buffer, start: number, end: number): Step {
    switch (state) {
      case STATUS_LINE:
        // Stray empty lines between responses (a CRLF after a body) are tolerated, as llhttp does.
        if (start === end) return CONTINUE;
        return this.#statusLine(line, start, end);
      case HEADER_LINE:
        return start === end ? this.#headersEnd() : this.#headerLine(line, start, end);
      case CHUNK_SIZE:
        return this.#chunkSize(line, start, end);
      case CHUNK_DATA_END:
        if (start !== end) return this.#fail('HPE_INVALID_CHUNK_SIZE');
        this.#state = CHUNK_SIZE;
        this.#sectionBytes = 0;
        return CONTINUE;
      default:
        // Trailer fields carry nothing the load numbers need.
        return start === end ? this.#complete() : CONTINUE;
    }
  }

  #viewOf(data: Buffer): DataView {
    if (data !== this.#viewed) {
      this.#viewed = data;
      this.#view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    }
    return this.#view!;
  }

  /** A head equal to the template's: take its facts and go on as after parsing it. */
  #knownHead(template: HeadTemplate): Step {
    const facts = template.facts;
    this.#bytes += template.length;
    this.#status = facts.status;
    this.#http10 = facts.http10;
    this.#contentLength = facts.contentLength;
    this.#transferEncoding = facts.transferEncoding;
    this.#chunked = facts.chunked;
    this.#connectionClose = facts.connectionClose;
    this.#connectionKeepAlive = facts.connectionKeepAlive;
    return this.#headersEnd();
  }

  #facts(): HeadFacts {
    return {
      status: this.#status,
      http10: this.#http10,
      contentLength: this.#contentLength,
      transferEncoding: this.#transferEncoding,
      chunked: this.#chunked,
      connectionClose: this.#connectionClose,
      connectionKeepAlive: this.#connectionKeepAlive,
      contentEncoding: this.#fields?.contentEncoding,
    };
  }

  #statusLine(line: Buffer, start: number, end: number): Step {
    const parsed = parseStatusLine(line, start, end);
    if (typeof parsed === 'string') return this.#fail(parsed);
    this.#status = parsed >> 1;
    this.#http10 = (parsed & 1) === 1;
    this.#state = HEADER_LINE;
    return CONTINUE;
  }

  #headerLine(line: Buffer, start: number, end: number): Step {
    if (isWhitespace(line[start])) return this.#foldedLine(line, start, end);
    let colon = start;
    while (colon < end && line[colon] !== COLON) {
      if (!isTokenByte(line[colon]!)) return this.#fail('HPE_INVALID_HEADER_TOKEN');
      colon++;
    }
    if (colon === end || colon === start) return this.#fail('HPE_INVALID_HEADER_TOKEN');
    let valueStart = colon + 1;
    let valueEnd = end;
    while (valueStart < valueEnd && isWhitespace(line[valueStart])) valueStart++;
    while (valueEnd > valueStart && isWhitespace(line[valueEnd - 1])) valueEnd--;

    this.#sawHeader = true;
    this.#lastHeaderFraming = true;
    const nameLength = colon - start;
    if (nameLength === CONTENT_LENGTH.length && equalsLower(line, start, colon, CONTENT_LENGTH)) {
      const length = parseContentLength(line, valueStart, valueEnd);
      // Two different lengths leave the framing ambiguous (a smuggling vector); equal repeats are harmless.
      if (length < 0 || (this.#contentLength !== -1 && this.#contentLength !== length)) {
        return this.#fail('HPE_INVALID_CONTENT_LENGTH');
      }
      this.#contentLength = length;
    } else if (nameLength === TRANSFER_ENCODING.length && equalsLower(line, start, colon, TRANSFER_ENCODING)) {
      this.#transferEncoding = true;
      // Only a final `chunked` frames the body; `chunked, gzip` or `gzip` alone runs to the close.
      this.#chunked = lastTokenIsChunked(line, valueStart, valueEnd);
    } else if (nameLength === CONNECTION.length && equalsLower(line, start, colon, CONNECTION)) {
      const tokens = connectionTokens(line, valueStart, valueEnd);
      if (tokens & CONNECTION_CLOSE) this.#connectionClose = true;
      if (tokens & CONNECTION_KEEP_ALIVE) this.#connectionKeepAlive = true;
    } else {
      this.#lastHeaderFraming = false;
      this.#fields?.read(line, start, colon, valueStart, valueEnd);
    }
    this.#captured?.header(line, start, colon, valueStart, valueEnd);
    return CONTINUE;
  }

  /** RFC 9112 §5.2: a client replaces obs-fold with a space; a folded framing header is refused. */
  #foldedLine(line: Buffer, start: number, end: number): Step {
    if (!this.#sawHeader || this.#lastHeaderFraming) return this.#fail('HPE_INVALID_HEADER_TOKEN');
    this.#captured?.fold(line, start, end);
    return CONTINUE;
  }

  /** RFC 9112 §6.3, in order: no-body statuses and HEAD, chunked, other codings, length, close. */
  #headersEnd(): Step {
    const status = this.#status;
    // 101 ends HTTP on this connection, so it is final here; the other 1xx precede the real answer.
    if (status < 200 && status !== 101) {
      this.#startMessage(true);
      return CONTINUE;
    }
    if (status === 101) this.#connectionClose = true;
    // A head the template stood for (no line of it parsed) has the template's content-encoding.
    if (this.#fields !== undefined && !this.#fields.tell(this.#handler, status, this.headRequest, this.#sectionBytes === 0 ? this.#template?.facts : undefined)) {
      this.#connectionClose = true;
      return this.#complete();
    }
    if (this.headRequest || status === 204 || status === 304 || status === 101) return this.#complete();
    if (this.#chunked) {
      this.#state = CHUNK_SIZE;
      this.#sectionBytes = 0;
      return CONTINUE;
    }
    if (!this.#transferEncoding && this.#contentLength >= 0) {
      if (this.#contentLength === 0) return this.#complete();
      this.#remaining = this.#contentLength;
      this.#state = BODY_LENGTH;
      return CONTINUE;
    }
    this.#connectionClose = true;
    this.#state = BODY_UNTIL_CLOSE;
    return CONTINUE;
  }

  #chunkSize(line: Buffer, start: number, end: number): Step {
    const size = parseChunkSize(line, start, end);
    if (size < 0) return this.#fail('HPE_INVALID_CHUNK_SIZE');
    this.#sectionBytes = 0;
    if (size === 0) {
      this.#state = TRAILER_LINE;
    } else {
      this.#remaining = size;
      this.#state = CHUNK_DATA;
    }
    return CONTINUE;
  }

  #complete(): Step {
    const status = this.#status;
    const bytes = this.#bytes;
    const willClose = this.#connectionClose || (this.#http10 && !this.#connectionKeepAlive);
    const details = this.#captured?.details();
    this.#startMessage(false);
    if (willClose) this.#state = CLOSED;
    // Nothing of `this` may be touched after the callback: it may have reset the parser.
    const goOn = this.#handler.onResponse(status, bytes, willClose, details);
    return goOn && !willClose ? CONTINUE : STOP;
  }

  /**
   * `onBody` ended the response before its body did: it completes now, and the connection closes,
   * since the rest of the body would come before the next response.
   */
  #endEarly(): undefined {
    this.#connectionClose = true;
    this.#complete();
    return undefined;
  }

  /** Clears per-response state; after a 1xx the bytes keep counting towards the final response. */
  #startMessage(afterInformational: boolean): void {
    this.#state = STATUS_LINE;
    if (!afterInformational) this.#bytes = 0;
    this.#sectionBytes = 0;
    this.#status = 0;
    this.#http10 = false;
    this.#contentLength = -1;
    this.#transferEncoding = false;
    this.#chunked = false;
    this.#connectionClose = false;
    this.#connectionKeepAlive = false;
    this.#sawHeader = false;
    this.#lastHeaderFraming = false;
    this.#remaining = 0;
    this.#fields?.reset();
    this.#captured?.reset();
  }

  /** The read ended inside a line: keep its bytes, since the next read overwrites the buffer. */
  #keepPartial(data: Buffer, start: number, end: number): ParseErrorCode | undefined {
    const n = end - start;
    this.#bytes += n;
    this.#sectionBytes += n;
    if (this.#sectionBytes > this.#maxHeaderBytes) return this.#failWith(overflowCode(this.#state));
    this.#partial.append(data, start, end);
    return undefined;
  }

  #fail(code: ParseErrorCode): typeof ERROR {
    this.#failWith(code);
    return ERROR;
  }

  #failWith(code: ParseErrorCode): ParseErrorCode {
    this.#error = code;
    this.#state = FAILED;
    this.#partial.length = 0;
    return code;
  }
}
