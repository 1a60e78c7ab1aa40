import type { Lane } from '../transports/transport.js';

/**
 * Closed-loop `amount` runs: tells when the server is down, so that the rest of the amount is
 * counted at once instead of each lane waiting out its backoff (up to 1 s) or a `timeout` per
 * request. Errors that show nothing answering: a connection that never opened (refused, a name that
 * does not resolve, a certificate not trusted), one lost before any byte of a response, or no whole
 * response within `timeout`; `DOWN_AFTER_ERRORS` of them in a row, and every lane in use had errors
 * twice in a row (once, unopened or by TIMEOUT). A broken response (a parse or HTTP/2 protocol
 * error) is an answer and starts that count again; but a server that answers nothing else, for
 * `BROKEN_AFTER_ERRORS` requests in a row on every lane, is as useless to wait for (undici fails an
 * unasked-for `100 Continue` at once, so a server answering only that took 94 s for 1,000 requests).
 */
const DOWN_AFTER_ERRORS = 5;
const BROKEN_AFTER_ERRORS = 50;

/** Codes of a connection that failed or was lost with no byte of a response (with `firstByteAt` 0). */
const NO_ANSWER_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ECONNCLOSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export class DownServer {
  /** The code of the error that showed the server down; then every request still to send fails with it. */
  code: string | undefined;
  /** Measured requests failed unsent under `code`, for the warning. */
  failedUnsent = 0;
  #down = 0;
  /** Errors with no answer since the last answer, broken or not. */
  #errors = 0;
  /** Errors of any kind since the last response. */
  #inRow = 0;
  /** The server was taken as down for answering every request with an error, not for answering nothing. */
  #brokenAnswers = false;
  /** Errors in a row on each lane. */
  readonly #streaks: Uint16Array;

  constructor(
    readonly lanes: number,
    laneCount: number,
  ) {
    this.#streaks = new Uint16Array(laneCount);
  }

  /**
   * A lane's request failed (`unsent`: its connection never opened); true when that shows the server
   * down (once).
   */
  failed(lane: Lane, code: string, unsent: boolean): boolean {
    // A timeout counts whatever came before it (a `100 Continue`, a head): no response came in time.
    const answer = !unsent && code !== 'TIMEOUT' && (lane.firstByteAt !== 0 || !NO_ANSWER_CODES.has(code));
    this.#errors = answer ? 0 : this.#errors + 1;
    this.#inRow++;
    const streak = ++this.#streaks[lane.id]!;
    if (!lane.down && (streak >= 2 || unsent || code === 'TIMEOUT')) {
      lane.down = true;
      this.#down++;
    }
    if (this.code !== undefined || this.#down < this.lanes) return false;
    if (this.#errors < DOWN_AFTER_ERRORS && this.#inRow < BROKEN_AFTER_ERRORS) return false;
    this.code = code;
    this.#brokenAnswers = answer;
    return true;
  }

  /** A response came on `lane`. */
  answered(lane: Lane): void {
    this.#errors = 0;
    this.#inRow = 0;
    this.#streaks[lane.id] = 0;
    if (!lane.down) return;
    lane.down = false;
    this.#down--;
  }

  /** The warning for the requests failed unsent, if any were. */
  warning(): { code: string; message: string } | undefined {
    if (this.failedUnsent === 0) return undefined;
    const why = this.#brokenAnswers
      ? `the server had answered each of the last ${BROKEN_AFTER_ERRORS} requests or more, on every connection, with an error and nothing else, ` +
        'so salvo ended the amount at once instead of waiting out a reconnect backoff for each. Check what the server sends: the errors say what was wrong with it.'
      : `nothing had answered since ${DOWN_AFTER_ERRORS} errors or more ` +
        `that show no server (a connection refused, not trusted, or lost before any byte of its response; a timeout) on every connection, so salvo took the server as down and ended the amount at once ` +
        'instead of waiting out a reconnect backoff or a timeout for each. Check that the server is up and reachable at that address.';
    return {
      code: 'SERVER_DOWN',
      message: `${this.failedUnsent} requests were counted as errors under ${this.code} without being sent: ${why}`,
    };
  }
}
