/*
 * Seeded draws for drawn arrivals. Every worker thread and segment must draw the very same numbers
 * from a seed, so the generator is written here rather than taken from Math.random: block b of a
 * run's arrivals gets a generator of its own, seeded from (seed, b), and any thread can draw any
 * block without drawing the ones before it.
 */

/** murmur3's 32-bit finaliser: spreads every input bit over the output. */
function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** sfc32 (Chris Doty-Humphrey's small fast chaotic generator), uniforms in (0, 1). */
export class BlockRandom {
  #a: number;
  #b: number;
  #c: number;
  #d = 1;

  /** The generator of block `block` (any integer up to 2^53) of the draws of `seed`. */
  constructor(seed: number, block: number) {
    const low = block >>> 0;
    const high = Math.floor(block / 0x1_0000_0000) >>> 0;
    this.#a = mix32(seed ^ 0x9e3779b9);
    this.#b = mix32(low ^ mix32(this.#a + 0x7f4a7c15));
    this.#c = mix32(high ^ mix32(this.#b + 0x6a09e667));
    // The first outputs of a freshly seeded sfc32 are poorly mixed.
    for (let i = 0; i < 12; i++) this.#next32();
  }

  #next32(): number {
    const t = (((this.#a + this.#b) >>> 0) + this.#d) >>> 0;
    this.#d = (this.#d + 1) >>> 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) >>> 0;
    this.#c = ((this.#c << 21) | (this.#c >>> 11)) >>> 0;
    this.#c = (this.#c + t) >>> 0;
    return t;
  }

  /** A uniform in the open interval (0, 1), so that its logarithm is finite. */
  uniform(): number {
    return (this.#next32() + 0.5) / 0x1_0000_0000;
  }

  /** An exponential of mean 1. */
  exponential(): number {
    return -Math.log(this.uniform());
  }

  /** A standard normal (Box-Muller, one of the pair). */
  normal(): number {
    return Math.sqrt(-2 * Math.log(this.uniform())) * Math.cos(2 * Math.PI * this.uniform());
  }

  /**
   * A gamma of shape `shape` and mean 1 (scale 1 / shape): Marsaglia and Tsang's method (2000), with
   * their boost U^(1 / shape) for a shape below 1.
   */
  gamma(shape: number): number {
    if (shape < 1) return this.gamma(shape + 1) * Math.pow(this.uniform(), 1 / shape) * ((shape + 1) / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const x = this.normal();
      const cubeRoot = 1 + c * x;
      if (cubeRoot <= 0) continue;
      const v = cubeRoot * cubeRoot * cubeRoot;
      if (Math.log(this.uniform()) < 0.5 * x * x + d - d * v + d * Math.log(v)) return (d * v) / shape;
    }
  }
}
