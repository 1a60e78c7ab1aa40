import { CONTENT_ENCODING, CONTENT_TYPE, equalsLower } from './bytes.js';
import type { HeadFacts } from './head-template.js';
import type { ResponseHandler } from './response-handler.js';

/**
 * The non-framing header values a parser reads for its handler, only when asked: the content-type
 * for `onHead` (`heads`), the content-encoding for `onEncoding` (`body`: a streamed body is decoded
 * after it). A parser that is asked for neither has none of this.
 */
export class HeadFields {
  contentType: string | undefined;
  contentEncoding: string | undefined;

  constructor(
    readonly heads: boolean,
    readonly body: boolean,
  ) {}

  /** A header line that frames nothing: `line[start, colon)` its name, `line[valueStart, valueEnd)` its value. */
  read(line: Buffer, start: number, colon: number, valueStart: number, valueEnd: number): void {
    const nameLength = colon - start;
    if (this.heads && nameLength === CONTENT_TYPE.length && equalsLower(line, start, colon, CONTENT_TYPE)) {
      this.contentType = line.toString('latin1', valueStart, valueEnd);
    } else if (
      this.body &&
      nameLength === CONTENT_ENCODING.length &&
      equalsLower(line, start, colon, CONTENT_ENCODING)
    ) {
      const value = line.toString('latin1', valueStart, valueEnd);
      this.contentEncoding = this.contentEncoding === undefined ? value : `${this.contentEncoding}, ${value}`;
    }
  }

  /** The final head is parsed (or `known`: a head template's): tells the handler; false when it ended the response there. */
  tell(handler: ResponseHandler, status: number, headRequest: boolean, known: HeadFacts | undefined): boolean {
    if (this.heads && !handler.onHead!(status, this.contentType)) return false;
    const coding = known === undefined ? this.contentEncoding : known.contentEncoding;
    return coding === undefined || headRequest || handler.onEncoding!(coding);
  }

  reset(): void {
    this.contentType = undefined;
    this.contentEncoding = undefined;
  }
}
