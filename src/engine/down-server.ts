import type { Lane } from '../transports/transport.js';

/**
 * Closed-loop `amount` runs: tells when the server is down, so that the rest of the amount is
 * counted at once instead of each lane waiting out its backoff (up to 1 s) or a `timeout` per
 * request. Down: no response since `DOWN_AFTER_ERRORS` errors or more, and every lane in use failed
 * since its last response twice in a row, or once without its connection ever opening (refused, a
 * certificate not trusted) or with nothing answering within `timeout`. A server that fails some
 * requests answers others, which starts the count again.
 */
const DOWN_AFTER_ERRORS = 5;

export class DownServer {
  /** The code of the error that showed the server down; then every request still to send fails with it. */
  code: string | undefined;
  #down = 0;
  /** Errors since the last response. */
  #errors = 0;

  constructor(readonly lanes: number) {}

  /** A lane's request failed; true when that shows the server down (once). */
  failed(lane: Lane, code: string, unsent: boolean): boolean {
    if (!lane.down && (lane.failures >= 2 || unsent || code === 'TIMEOUT')) {
      lane.down = true;
      this.#down++;
    }
    this.#errors++;
    if (this.code !== undefined || this.#down < this.lanes || this.#errors < DOWN_AFTER_ERRORS) return false;
    this.code = code;
    return true;
  }

  answered(lane: Lane): void {
    this.#errors = 0;
    if (!lane.down) return;
    lane.down = false;
    this.#down--;
  }
}
