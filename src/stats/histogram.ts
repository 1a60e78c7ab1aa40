import { inflateSync } from 'node:zlib';
import * as hdr from 'hdr-histogram-js';
import type { LatencyStats } from '../shared/load-result.js';

/** Latencies above this (one hour, in µs) are recorded as this. */
export const HIGHEST_US = 3_600_000_000;

/** 3 significant digits at 1 µs resolution: 2048 slots per bucket, the lower half shared. */
export const HALF_BUCKET_BITS = 10;

/** A latency histogram in integer microseconds, 3 significant digits (like wrk2 and HdrHistogram). */
export function createHistogram(): hdr.Histogram {
  return hdr.build({
    bitBucketSize: 32,
    autoResize: false,
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_US,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });
}

export function decodeHistogram(encoded: string): hdr.Histogram {
  return hdr.decodeFromCompressedBase64(encoded, 32, false, HIGHEST_US);
}

export const encodeHistogram = (histogram: hdr.Histogram): string => hdr.encodeIntoCompressedBase64(histogram);

/**
 * The mean and standard deviation (µs) of a histogram, exactly as hdr-histogram-js's `mean` and
 * `stdDeviation` compute them (each recorded slot at its median value, summed in slot order), in
 * two plain walks over the counts: its own getters walk them with an iterator that allocates an
 * object per recorded slot, and `stdDeviation` computes the mean again first. Summarising a run
 * does this for the whole run and for every second of its timeline.
 */
export function moments(histogram: hdr.Histogram): { mean: number; stddev: number } {
  const total = histogram.totalCount;
  if (total === 0) return { mean: 0, stddev: 0 };
  // Every histogram salvo makes or decodes is a JsHistogram (no WebAssembly); anything else keeps the getters.
  const h = histogram as unknown as Pick<
    hdr.JsHistogram,
    'getCountAtIndex' | 'valueFromIndex' | 'medianEquivalentValue' | 'countsArrayLength'
  >;
  if (typeof h.getCountAtIndex !== 'function') return { mean: histogram.mean, stddev: histogram.stdDeviation };
  let sum = 0;
  let seen = 0;
  let end = 0;
  for (let index = 0; seen < total && index < h.countsArrayLength; index++) {
    const count = h.getCountAtIndex(index);
    if (count === 0) continue;
    seen += count;
    sum += h.medianEquivalentValue(h.valueFromIndex(index)) * count;
    end = index + 1;
  }
  const mean = sum / total;
  let squares = 0;
  for (let index = 0; index < end; index++) {
    const count = h.getCountAtIndex(index);
    if (count === 0) continue;
    const deviation = h.medianEquivalentValue(h.valueFromIndex(index)) - mean;
    squares += deviation * deviation * count;
  }
  return { mean, stddev: Math.sqrt(squares / total) };
}

/** Adds an encoded histogram (a shard's, a result's) to `target`. */
export function addEncodedInto(target: hdr.Histogram, encoded: string): void {
  if (addRunsInto(target, encoded)) return;
  const decoded = decodeHistogram(encoded);
  target.add(decoded);
  decoded.destroy();
}

/** The V2 encoding's cookie (TLZE, 9-byte words), and the compressed wrapper's. */
const V2_COOKIE = 0x1c849313;
const V2_COMPRESSED_COOKIE = 0x1c849314;
/** A count that an Int32 histogram's counts hold as it is. */
const INT32_MAX = 0x7fffffff;

/**
 * `target.add(decodeHistogram(encoded))` without the decoded histogram: the run-length counts are
 * read straight into `target`'s, skipping the empty slots. Decoding allocates and `add` walks all
 * 23,552 slots (~94 KB) however few are recorded, about 5 times the cost for one second's histogram
 * (a coordinator adds one per agent per request name each second; benchmarks/README.md). Only for
 * the layout salvo's histograms have; false (nothing changed) for anything else, which takes the
 * library's path. Totals, max and min change exactly as `add` changes them.
 */
function addRunsInto(target: hdr.Histogram, encoded: string): boolean {
  const into = target as unknown as hdr.JsHistogram & { addToCountAtIndex?: (index: number, count: number) => void };
  if (
    typeof into.addToCountAtIndex !== 'function' ||
    into.highestTrackableValue !== HIGHEST_US ||
    into.lowestDiscernibleValue !== 1 ||
    into.numberOfSignificantValueDigits !== 3
  ) {
    return false;
  }
  let raw: Buffer;
  try {
    const text = encoded.trim();
    if (text.length % 4 !== 0) return false; // what base64-js refuses
    const packed = Buffer.from(text, 'base64');
    if (packed.length < 8 || packed.readInt32BE(0) !== V2_COMPRESSED_COOKIE) return false;
    raw = inflateSync(packed.subarray(8, 8 + packed.readInt32BE(4)));
  } catch {
    return false;
  }
  if (raw.length < 40 || raw.readInt32BE(0) !== V2_COOKIE) return false;
  const length = raw.readInt32BE(4);
  // Read as the library reads them (its int64 is high * 2^32 + a signed low word), then widened as
  // decodeHistogram widens them: the same layout as `target`'s, or the library's path.
  const lowest = raw.readInt32BE(16) * 2 ** 32 + raw.readInt32BE(20);
  const highest = Math.max(raw.readInt32BE(24) * 2 ** 32 + raw.readInt32BE(28), HIGHEST_US);
  if (raw.readInt32BE(12) !== 3 || lowest !== 1 || highest !== HIGHEST_US) return false;
  const end = 40 + length;
  if (end > raw.length) return false;
  // First the recorded slots, then the change: a payload that does not fit leaves `target` as it was.
  const slots: number[] = [];
  let position = 40;
  let index = 0;
  while (position < end) {
    let byte = raw[position++]!;
    let value = byte & 0x7f;
    for (let shift = 1; (byte & 0x80) !== 0 && shift < 9; shift++) {
      byte = raw[position++]!;
      value += (byte & 0x7f) * 2 ** (7 * shift); // the ninth byte masked too, as the library reads it
    }
    const count = value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    if (count < 0) {
      index -= count;
      continue;
    }
    if (count > INT32_MAX) return false;
    if (count > 0) slots.push(index, count);
    index++;
  }
  if (index > into.countsArrayLength || position !== end) return false;
  let total = 0;
  for (let at = 0; at < slots.length; at += 2) {
    into.addToCountAtIndex(slots[at]!, slots[at + 1]!);
    total += slots[at + 1]!;
  }
  if (slots.length === 0) return true;
  const setters = into as unknown as {
    setTotalCount(count: number): void;
    updatedMaxValue(value: number): void;
    updateMinNonZeroValue(value: number): void;
  };
  setters.setTotalCount(into.totalCount + total);
  const top = into.highestEquivalentValue(into.valueFromIndex(slots.at(-2)!));
  setters.updatedMaxValue(Math.max(into.maxValue, top));
  const first = slots[0] !== 0 ? slots[0] : slots[2];
  const least = first === undefined ? Number.MAX_VALUE : into.valueFromIndex(first);
  setters.updateMinNonZeroValue(Math.min(into.minNonZeroValue, least));
  return true;
}

/** A latency in ms as the whole microseconds the histograms count, at most HIGHEST_US. */
export function latencyUs(ms: number): number {
  return Math.min(HIGHEST_US, Math.round(ms * 1000));
}

/** The lowest value (µs) that falls in slot `index` of the counts. */
export function slotValue(index: number): number {
  const bucket = Math.max(0, (index >>> HALF_BUCKET_BITS) - 1);
  return (index - (bucket << HALF_BUCKET_BITS)) * 2 ** bucket;
}

/** The bucket of a whole number of microseconds: its slots are 2^bucket µs wide. */
export function bucketOf(us: number): number {
  return Math.max(0, 31 - Math.clz32(us) - HALF_BUCKET_BITS);
}

/** The largest value that shares `us`'s histogram slot: what an encoded histogram reports as its max. */
export function slotTop(us: number): number {
  const width = 2 ** bucketOf(us);
  return Math.floor(us / width) * width + width - 1;
}

const US_PER_MS = 1000;

/** Percentiles and moments of a µs histogram, in ms. An empty histogram gives NaN (null in JSON): nothing was timed. */
export function latencyStats(histogram: hdr.Histogram): LatencyStats {
  if (histogram.totalCount === 0) {
    const none = Number.NaN;
    return {
      count: 0,
      min: none,
      mean: none,
      stddev: none,
      max: none,
      p50: none,
      p75: none,
      p90: none,
      p95: none,
      p99: none,
      p999: none,
    };
  }
  const at = (percentile: number) => histogram.getValueAtPercentile(percentile) / US_PER_MS;
  const { mean, stddev } = moments(histogram);
  return {
    count: histogram.totalCount,
    // The true minimum: minNonZeroValue skips a recorded 0 (a gap between events of one read).
    min: (histogram.getValueAtPercentile(0) === 0 ? 0 : histogram.minNonZeroValue) / US_PER_MS,
    mean: mean / US_PER_MS,
    stddev: stddev / US_PER_MS,
    max: histogram.maxValue / US_PER_MS,
    p50: at(50),
    p75: at(75),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    p999: at(99.9),
  };
}
