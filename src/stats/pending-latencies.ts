import { deflateSync } from 'node:zlib';
import type * as hdr from 'hdr-histogram-js';
import { bucketOf, HALF_BUCKET_BITS, HIGHEST_US, slotTop, slotValue } from './histogram.js';

/** hdr-histogram-js's V2 encoding cookies (word size 9, zero runs), plain and compressed. */
const ENCODING_COOKIE = 0x1c849303 | 0x10;
const COMPRESSED_ENCODING_COOKIE = 0x1c849304 | 0x10;

/**
 * Latencies recorded since the last flush, counted in the histograms' own bucket layout with integer
 * arithmetic, and moved into the HDR histograms in bulk (`flushInto`, about once per second).
 * hdr-histogram-js computes a bucket with `Math.log2` and two `Math.pow` per value; at 100k
 * responses per second recording into two histograms cost more than the whole HTTP parse.
 * The move is exact: every value of a bucket lands in the same histogram slot, and histograms
 * report a slot's equivalent values, never the raw value recorded.
 */
export class PendingLatencies {
  readonly #counts = new Uint32Array(((32 - HALF_BUCKET_BITS) << HALF_BUCKET_BITS) + (1 << HALF_BUCKET_BITS));
  #low = Number.MAX_SAFE_INTEGER;
  #high = -1;

  /** Nothing is pending. */
  get empty(): boolean {
    return this.#high < 0;
  }

  /** `us`: a whole number of microseconds, at most HIGHEST_US. */
  record(us: number): void {
    const bucket = bucketOf(us);
    const index = (bucket << HALF_BUCKET_BITS) + (us >>> bucket);
    this.#counts[index]!++;
    if (index < this.#low) this.#low = index;
    if (index > this.#high) this.#high = index;
  }

  /**
   * The value (µs) at percentile `p` of the pending counts, exactly as hdr-histogram-js's
   * `getValueAtPercentile` returns it for a histogram holding them (the top of the slot reached).
   */
  valueAtPercentile(p: number): number {
    const counts = this.#counts;
    let total = 0;
    for (let index = this.#low; index <= this.#high; index++) total += counts[index]!;
    const rank = (Math.min(p, 100) / 100) * total;
    const wanted = Math.max(Math.ceil(rank - (rank > 0 ? 2 ** (Math.floor(Math.log2(rank)) - 52) : 0)), 1);
    let seen = 0;
    for (let index = this.#low; index <= this.#high; index++) {
      seen += counts[index]!;
      if (seen >= wanted) return p === 0 ? slotValue(index) : slotTop(slotValue(index));
    }
    return 0;
  }

  /**
   * The pending counts as hdr-histogram-js's compressed base64 (its V2 format, the very string its
   * `encodeIntoCompressedBase64` gives for a histogram of `createHistogram`'s shape holding them;
   * test/merge.test.ts compares them), then forgets them. It runs once a second per thread on the
   * event loop, where whatever it takes makes open-loop slots late: it costs a fraction of building
   * and encoding a histogram of the second (benchmarks/README.md, "Measurements behind the code").
   */
  takeEncoded(): string {
    const counts = this.#counts;
    const low = this.#low;
    const high = this.#high;
    // Counts up to the highest recorded slot (an empty histogram: the one zero at slot 0), zigzag
    // LEB128, a run of more than one zero as its negated length.
    const payload = Buffer.allocUnsafe(40 + 10 * (high < 0 ? 1 : high - low + 2));
    let at = 40;
    const put = (value: number): void => {
      let zigzag = value >= 0 ? value * 2 : -value * 2 - 1;
      while (zigzag >= 0x80) {
        payload[at++] = (zigzag % 0x80) | 0x80;
        zigzag = Math.floor(zigzag / 0x80);
      }
      payload[at++] = zigzag;
    };
    if (high < 0) put(0);
    else {
      if (low > 0) put(low === 1 ? 0 : -low);
      for (let index = low; index <= high;) {
        const count = counts[index]!;
        if (count !== 0) {
          put(count);
          counts[index++] = 0;
          continue;
        }
        let zeros = 0;
        while (counts[index] === 0) {
          zeros++;
          index++;
        }
        put(zeros === 1 ? 0 : -zeros);
      }
      this.#low = Number.MAX_SAFE_INTEGER;
      this.#high = -1;
    }
    payload.writeInt32BE(ENCODING_COOKIE, 0);
    payload.writeInt32BE(at - 40, 4);
    payload.writeInt32BE(1, 8); // normalizing index offset, as hdr-histogram-js writes it
    payload.writeInt32BE(3, 12); // significant digits
    payload.writeBigInt64BE(1n, 16); // lowest discernible value
    payload.writeBigInt64BE(BigInt(HIGHEST_US), 24);
    payload.writeBigInt64BE(1n, 32); // integer to double conversion ratio
    const compressed = deflateSync(payload.subarray(0, at));
    const framed = Buffer.allocUnsafe(8 + compressed.length);
    framed.writeInt32BE(COMPRESSED_ENCODING_COOKIE, 0);
    framed.writeInt32BE(compressed.length, 4);
    compressed.copy(framed, 8);
    return framed.toString('base64');
  }

  /**
   * Adds every pending count to each histogram, then forgets them. The slots between the lowest and
   * the highest are added at their index, which is the histograms' own counts index (the same layout,
   * checked in test/merge.test.ts), with the total added once: recording each slot by value costs
   * hdr-histogram-js a `Math.log2` and two `Math.pow` to find that index again, a few thousand slots a
   * second at 10k latencies/s spread over 100 ms. The two end slots are recorded by value, which keeps
   * each histogram's min and max exactly as if every value had been recorded.
   */
  flushInto(first: hdr.Histogram, second?: hdr.Histogram): void {
    const low = this.#low;
    const high = this.#high;
    if (high < 0) return;
    const counts = this.#counts;
    const firstAt = first as unknown as hdr.JsHistogram;
    const secondAt = second as unknown as hdr.JsHistogram | undefined;
    let inner = 0;
    for (let index = low + 1; index < high; index++) {
      const count = counts[index]!;
      if (count === 0) continue;
      counts[index] = 0;
      inner += count;
      firstAt.addToCountAtIndex(index, count);
      secondAt?.addToCountAtIndex(index, count);
    }
    if (inner > 0) {
      firstAt.setTotalCount(firstAt.totalCount + inner);
      secondAt?.setTotalCount(secondAt.totalCount + inner);
    }
    this.#recordSlot(low, first, second);
    if (high !== low) this.#recordSlot(high, first, second);
    this.#low = Number.MAX_SAFE_INTEGER;
    this.#high = -1;
  }

  #recordSlot(index: number, first: hdr.Histogram, second: hdr.Histogram | undefined): void {
    const count = this.#counts[index]!;
    this.#counts[index] = 0;
    first.recordValueWithCount(slotValue(index), count);
    second?.recordValueWithCount(slotValue(index), count);
  }
}
