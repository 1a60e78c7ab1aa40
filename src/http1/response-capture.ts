// With `capture`: a response's headers as strings (repeats joined, obs-fold unfolded) and its body
// copied out of the read buffer, for `ResponseDetails`. A parser without `capture` holds none.
import { joinFieldValue, type ResponseDetails } from '../shared/exchange.js';
import { isWhitespace } from './bytes.js';

export class ResponseCapture {
  #headers: Record<string, string> = {};
  #lastHeaderName = '';
  #bodyParts: Buffer[] = [];

  /** A new response begins (a 1xx's headers are not kept with the final response's). */
  reset(): void {
    this.#headers = {};
    this.#bodyParts = [];
  }

  header(line: Buffer, start: number, colon: number, valueStart: number, valueEnd: number): void {
    const name = line.toString('latin1', start, colon).toLowerCase();
    const value = line.toString('latin1', valueStart, valueEnd);
    this.#headers[name] = joinFieldValue(name, this.#headers[name], value);
    this.#lastHeaderName = name;
  }

  /** A folded line continues the last header's value. */
  fold(line: Buffer, start: number, end: number): void {
    while (start < end && isWhitespace(line[start])) start++;
    while (end > start && isWhitespace(line[end - 1])) end--;
    this.#headers[this.#lastHeaderName] += ` ${line.toString('latin1', start, end)}`;
  }

  /** Copies body bytes: the next read overwrites the buffer. */
  body(data: Buffer, start: number, end: number): void {
    if (start === end) return;
    const part = Buffer.allocUnsafe(end - start);
    data.copy(part, 0, start, end);
    this.#bodyParts.push(part);
  }

  details(): ResponseDetails {
    return { headers: this.#headers, body: Buffer.concat(this.#bodyParts) };
  }
}
