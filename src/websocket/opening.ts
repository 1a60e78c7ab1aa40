import type { WsConnection } from './connection.js';

/**
 * Opening handshakes a thread has in flight at once, at most: thousands of half-open handshakes
 * (about 3.5 KB each) alive at a major GC make V8 size the heap from them, while 4,096 still keeps
 * a server's accept queue full (benchmarks/README.md, "The opening and the heap").
 */
export const HANDSHAKES_IN_FLIGHT = 4096;

/**
 * Connections waiting to open, first come first served, and those opening now. `open` is called
 * for a connection once a place is free; `ended` frees its place when its handshake completed or
 * failed. A connection asked for twice before it opened is queued once.
 */
export class OpeningQueue {
  readonly #limit: number;
  readonly #open: (connection: WsConnection) => void;
  /** Should a waiting connection still open when its turn comes (not ramped down, run not over)? */
  readonly #wanted: (connection: WsConnection) => boolean;
  readonly #opening = new Set<WsConnection>();
  #waiting: WsConnection[] = [];
  #head = 0;

  constructor(limit: number, open: (connection: WsConnection) => void, wanted: (connection: WsConnection) => boolean) {
    this.#limit = limit;
    this.#open = open;
    this.#wanted = wanted;
  }

  /** Opens `connection` now, or when a handshake in flight ends. */
  request(connection: WsConnection): void {
    if (this.#opening.has(connection) || connection.queued) return;
    if (this.#opening.size < this.#limit) {
      this.#start(connection);
      return;
    }
    connection.queued = true;
    this.#waiting.push(connection);
  }

  /** `connection`'s handshake completed or failed: the next waiting one may open. */
  ended(connection: WsConnection): void {
    if (!this.#opening.delete(connection)) return;
    while (this.#opening.size < this.#limit && this.#head < this.#waiting.length) {
      const next = this.#waiting[this.#head++]!;
      next.queued = false;
      if (this.#wanted(next)) this.#start(next);
    }
    if (this.#head === this.#waiting.length) {
      this.#waiting = [];
      this.#head = 0;
    }
  }

  /** Forgets every waiting connection (the run is over). */
  clear(): void {
    for (let i = this.#head; i < this.#waiting.length; i++) this.#waiting[i]!.queued = false;
    this.#waiting = [];
    this.#head = 0;
  }

  #start(connection: WsConnection): void {
    this.#opening.add(connection);
    this.#open(connection);
  }
}
