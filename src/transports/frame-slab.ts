/** Frames are written into slabs of this size, gathered per tick into one write. */
const SLAB_BYTES = 4 * 1024;
/** A slab with less room than this left is retired (the bytes written from it stay untouched). */
const SLAB_MIN_ROOM = 512;

/**
 * A connection's outgoing frames, written in place into a slab and handed out as one chunk per
 * flush. A chunk handed out is never written over: once too little room is left, a new slab follows.
 */
export class FrameSlab {
  /** The slab now written into: `reserve` may replace it, so read it after reserving. */
  buffer: Buffer = Buffer.allocUnsafe(SLAB_BYTES);
  #start = 0;
  #end = 0;
  /** Writes out what is queued; called when a reservation does not fit. */
  readonly #flush: () => void;

  constructor(flush: () => void) {
    this.#flush = flush;
  }

  /** Nothing was queued since the last `take`. */
  get empty(): boolean {
    return this.#end === this.#start;
  }

  /** Room for `length` bytes in `buffer`; returns where they go. */
  reserve(length: number): number {
    if (this.#end + length > this.buffer.length) {
      this.#flush();
      if (this.#end + length > this.buffer.length) {
        this.buffer = Buffer.allocUnsafe(Math.max(SLAB_BYTES, length));
        this.#start = 0;
        this.#end = 0;
      }
    }
    const at = this.#end;
    this.#end += length;
    return at;
  }

  /** Queues a frame encoded elsewhere. */
  queue(frame: Buffer): void {
    const at = this.reserve(frame.length);
    frame.copy(this.buffer, at);
  }

  /** The bytes queued since the last take, to be written. */
  take(): Buffer {
    const chunk = this.buffer.subarray(this.#start, this.#end);
    if (this.buffer.length - this.#end < SLAB_MIN_ROOM) {
      this.buffer = Buffer.allocUnsafe(SLAB_BYTES);
      this.#end = 0;
    }
    this.#start = this.#end;
    return chunk;
  }
}
