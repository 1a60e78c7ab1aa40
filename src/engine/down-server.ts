import type { Lane } from '../transports/transport.js';

/**
 * Closed-loop `amount` runs: tells when the server is down, so that the rest of the amount is
 * counted at once instead of each lane waiting out its backoff (up to 1 s) or a `timeout` per
 * request. Only errors that show nothing answering count: a connection that never opened (refused,
 * a name that does not resolve, a certificate not trusted), one lost before any byte of a response,
 * or no whole response within `timeout`. A broken response (a parse or HTTP/2 protocol error) is an answer: it
 * starts the count again, as a response does. Down: `DOWN_AFTER_ERRORS` such errors or more since
 * the last answer, and every lane in use had them twice in a row, or once unopened or by TIMEOUT.
 */
const DOWN_AFTER_ERRORS = 5;

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
  /** Errors with no answer since the last answer. */
  #errors = 0;
  /** No-answer errors in a row on each lane. */
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
    if (!unsent && code !== 'TIMEOUT' && (lane.firstByteAt !== 0 || !NO_ANSWER_CODES.has(code))) {
      this.answered(lane);
      return false;
    }
    const streak = ++this.#streaks[lane.id]!;
    if (!lane.down && (streak >= 2 || unsent || code === 'TIMEOUT')) {
      lane.down = true;
      this.#down++;
    }
    this.#errors++;
    if (this.code !== undefined || this.#down < this.lanes || this.#errors < DOWN_AFTER_ERRORS) return false;
    this.code = code;
    return true;
  }

  /** A response came on `lane`, or an answer that was broken. */
  answered(lane: Lane): void {
    this.#errors = 0;
    this.#streaks[lane.id] = 0;
    if (!lane.down) return;
    lane.down = false;
    this.#down--;
  }

  /** The warning for the requests failed unsent, if any were. */
  warning(): { code: string; message: string } | undefined {
    if (this.failedUnsent === 0) return undefined;
    return {
      code: 'SERVER_DOWN',
      message:
        `${this.failedUnsent} requests were counted as errors under ${this.code} without being sent: nothing had answered since ${DOWN_AFTER_ERRORS} errors or more ` +
        `that show no server (a connection refused, not trusted, or lost before any byte of its response; a timeout) on every connection, so salvo took the server as down and ended the amount at once ` +
        'instead of waiting out a reconnect backoff or a timeout for each. Check that the server is up and reachable at that address.',
    };
  }
}
