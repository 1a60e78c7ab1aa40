import type { Lane } from '../transports/transport.js';

/**
 * Open loop: the lanes free to take a slot, least recently freed first, so that a rate spreads over
 * every connection (a balancer behind one connection per backend sees them all, and every connection
 * stays in use) instead of staying on the one freed last. A ring sized to the lanes, since each lane
 * is free at most once: taking and giving back allocate nothing.
 */
export class FreeLanes {
  readonly #ring: Array<Lane | undefined>;
  #first = 0;
  #count = 0;

  constructor(lanes: number) {
    this.#ring = new Array<Lane | undefined>(Math.max(1, lanes)).fill(undefined);
  }

  get size(): number {
    return this.#count;
  }

  push(lane: Lane): void {
    this.#ring[(this.#first + this.#count) % this.#ring.length] = lane;
    this.#count++;
  }

  /** The lane freed longest ago, or undefined when none is free. */
  shift(): Lane | undefined {
    if (this.#count === 0) return undefined;
    const lane = this.#ring[this.#first];
    this.#ring[this.#first] = undefined;
    this.#first = (this.#first + 1) % this.#ring.length;
    this.#count--;
    return lane;
  }
}
