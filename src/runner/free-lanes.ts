/**
 * Open loop: the lanes (an HTTP connection's lanes, a task's call slots) free to take a slot, least
 * recently freed first, so that a rate spreads over every connection (a balancer behind one
 * connection per backend sees them all, and every connection stays in use) and every call slot,
 * instead of staying on the one freed last. A ring sized to the lanes, since each lane is free at
 * most once: taking and giving back allocate nothing.
 */
export class FreeLanes<L> {
  readonly #ring: Array<L | undefined>;
  #first = 0;
  #count = 0;

  constructor(lanes: number) {
    this.#ring = new Array<L | undefined>(Math.max(1, lanes)).fill(undefined);
  }

  get size(): number {
    return this.#count;
  }

  push(lane: L): void {
    this.#ring[(this.#first + this.#count) % this.#ring.length] = lane;
    this.#count++;
  }

  /** The lane freed longest ago, or undefined when none is free. */
  shift(): L | undefined {
    if (this.#count === 0) return undefined;
    const lane = this.#ring[this.#first];
    this.#ring[this.#first] = undefined;
    this.#first = (this.#first + 1) % this.#ring.length;
    this.#count--;
    return lane;
  }
}
