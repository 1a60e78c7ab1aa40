import { performance } from 'node:perf_hooks';
import { deflateSync } from 'node:zlib';
import * as hdr from 'hdr-histogram-js';
import type { CheckStats, PhaseHistograms } from '../types.js';
import type { PartialLoadResult } from './thresholds.js';
import type { Warning } from './warnings.js';
import type { ShardWebSocket } from '../websocket/types.js';

/** Latencies above this (one hour, in µs) are recorded as this. */
const HIGHEST_US = 3_600_000_000;

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
  const h = histogram as unknown as Pick<hdr.JsHistogram, 'getCountAtIndex' | 'valueFromIndex' | 'medianEquivalentValue' | 'countsArrayLength'>;
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
  const decoded = decodeHistogram(encoded);
  target.add(decoded);
  decoded.destroy();
}

/** Adds counts by key (status codes, error codes, close codes) into `target`. */
export function addCounts(target: Record<string, number>, source: Record<string, number>): void {
  for (const [key, count] of Object.entries(source)) target[key] = (target[key] ?? 0) + count;
}

/** One second of one shard, encoded for merging. */
export interface ShardSecond {
  second: number;
  sent: number;
  completed: number;
  errors: number;
  /** Requests sent again in this second (`requests.retried`). */
  retried: number;
  connections: number;
  targetRate: number | undefined;
  /** Corrected latencies of the responses completed in this second. */
  histogram: string;
  /** Process CPU in this second, 100 = one core (see `GeneratorMonitor`). */
  cpuPercent: number;
  /** This thread's event-loop utilization in this second, 0..1. */
  eventLoopUtilization: number;
}

/** One second's share of the generator's own work, for the timeline and `onProgress`. */
export type GeneratorSecond = Pick<ShardSecond, 'cpuPercent' | 'eventLoopUtilization'>;

/** What one thread measured of itself (`GeneratorMonitor`), as plain data that crosses threads and merges. */
export interface ShardGenerator {
  /** Process CPU over this thread's measured run, 100 = one core. */
  cpuPercent: number;
  eventLoopUtilization: number;
  eventLoopDelayP99Ms: number;
  /** Send lag (µs) of the measured open-loop slots, encoded like the latency histograms; absent in closed loop. */
  sendLag: string | undefined;
  saturated: boolean;
}

/** Everything one thread measured, as plain data that crosses threads and merges exactly. */
export interface ShardStats {
  sent: number;
  completed: number;
  missed: number;
  retried: number;
  errors: number;
  errorsByCode: Record<string, number>;
  statusCodes: Record<string, number>;
  bytesSent: number;
  bytesReceived: number;
  durationMs: number;
  /** Wall-clock start of this thread's measured run, epoch ms. */
  startedAt: number;
  aborted: boolean;
  histogram: string;
  histogramUncorrected: string;
  timeline: ShardSecond[];
  checks: CheckStats | undefined;
  /** Findings of this thread (`result.warnings`), merged by code. */
  warnings: Warning[];
  /** Phase histograms (`result.phases`); absent from a shard that measured nothing. */
  phases?: PhaseHistograms;
  /** The generator's self-measurement; absent from a shard that never ran. */
  generator: ShardGenerator | undefined;
  /** A WebSocket run's close codes and stages. */
  websocket?: ShardWebSocket;
}

/** The second that just closed, live, for `onProgress` and `outputs`. */
export interface SecondSummary extends ShardSecond {
  p50: number;
  p90: number;
  p99: number;
}

/** A thread's (or, merged, the run's) counts since the measured run began, sent with each closed second. */
export interface RunningTotals {
  sent: number;
  completed: number;
  errors: number;
  retried: number;
  statusCodes: Record<string, number>;
  errorsByCode: Record<string, number>;
}

/** hdr-histogram-js's V2 encoding cookies (word size 9, zero runs), plain and compressed. */
const ENCODING_COOKIE = 0x1c849303 | 0x10;
const COMPRESSED_ENCODING_COOKIE = 0x1c849304 | 0x10;

/** 3 significant digits at 1 µs resolution: 2048 slots per bucket, the lower half shared. */
const HALF_BUCKET_BITS = 10;

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
   * test/merge.test.ts compares them), then forgets them. Once a second per thread for the
   * timeline, on the event loop at the second's turn, where whatever it takes makes open-loop slots
   * late. It replaces flushing the second's latencies into a histogram of their own (and the run's
   * into the whole-run histogram) and encoding that: together 1-11 ms a second at 1,000-5,000/s,
   * 0.5-1 ms now (most of it zlib setting up, and code that runs too rarely to be optimised).
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
      for (let index = low; index <= high; ) {
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

/** A latency in ms as the whole microseconds the histograms count, at most HIGHEST_US. */
function latencyUs(ms: number): number {
  return Math.min(HIGHEST_US, Math.round(ms * 1000));
}

/** The lowest value (µs) that falls in slot `index` of the counts. */
function slotValue(index: number): number {
  const bucket = Math.max(0, (index >>> HALF_BUCKET_BITS) - 1);
  return (index - (bucket << HALF_BUCKET_BITS)) * 2 ** bucket;
}

/** The bucket of a whole number of microseconds: its slots are 2^bucket µs wide. */
function bucketOf(us: number): number {
  return Math.max(0, 31 - Math.clz32(us) - HALF_BUCKET_BITS);
}

/** The largest value that shares `us`'s histogram slot: what an encoded histogram reports as its max. */
export function slotTop(us: number): number {
  const width = 2 ** bucketOf(us);
  return Math.floor(us / width) * width + width - 1;
}

/** The maximum in ms as the final result will report it. */
function maxOf(histogram: hdr.Histogram): number {
  return histogram.maxValue === 0 ? 0 : slotTop(histogram.maxValue) / 1000;
}

/** Samples taken once per second from the engine. */
export interface Gauges {
  connections(): number;
  targetRate(second: number): number | undefined;
  /** The generator's CPU and event-loop share since the previous second. */
  generator?(): GeneratorSecond;
}

/**
 * Counters, HDR histograms and a per-second timeline for one thread. Recording is a few integer
 * additions and one array increment: nothing is allocated per request.
 */
export class Recorder {
  /** Findings raised while this thread ran; see `addWarning`. */
  readonly warnings: Warning[] = [];
  sent = 0;
  completed = 0;
  errors = 0;
  missed = 0;
  retried = 0;
  bytesSent = 0;
  bytesReceived = 0;
  readonly #statusCounts = new Uint32Array(1000);
  readonly #errorCodes = new Map<string, number>();
  /** Every latency recorded before the last flush; `#pending` holds the rest. */
  readonly #latency = createHistogram();
  readonly #latencyUncorrected = createHistogram();
  readonly #pending = new PendingLatencies();
  readonly #pendingUncorrected = new PendingLatencies();
  /** Some response's uncorrected latency differed from its corrected one (open loop). */
  #uncorrectedApart = false;
  /** This second's latencies, also in `#pending`: encoded at the second's end, never added into a histogram. */
  readonly #secondPending = new PendingLatencies();
  readonly #timeline: ShardSecond[] = [];
  #second = 0;
  #secondSent = 0;
  #secondCompleted = 0;
  #secondErrors = 0;
  #secondRetried = 0;
  #nextSecondAt: number;

  constructor(
    /** Start of the measured run, performance.now() ms (`start` can set it later). */
    public startAt: number,
    readonly gauges: Gauges,
    readonly onSecond: ((summary: SecondSummary) => void) | undefined,
  ) {
    this.#nextSecondAt = startAt + 1000;
  }

  /** The measured run starts at `startAt` (performance.now() ms): for a recorder built before its clock started. */
  start(startAt: number): void {
    this.startAt = startAt;
    this.#nextSecondAt = startAt + 1000;
  }

  recordSent(bytes: number, now: number): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.sent++;
    this.#secondSent++;
    this.bytesSent += bytes;
  }

  /** More bytes of a request already counted by `recordSent` (see `TransportSink.onSentMore`). */
  recordSentBytes(bytes: number): void {
    this.bytesSent += bytes;
  }

  /** Bytes of a response counted as an error (its `onResponse` hook threw). */
  recordReceivedBytes(bytes: number): void {
    this.bytesReceived += bytes;
  }

  /** A request already counted by `recordSent` sent again, `bytes` of it (see `TransportSink.onRetry`). */
  recordRetry(bytes: number, now: number): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.retried++;
    this.#secondRetried++;
    this.bytesSent += bytes;
  }

  /**
   * Takes back a request counted by `recordSent` that never reached the wire. It is taken from the
   * second it failed in: its connection fails within the second it was sent but for a rare one that
   * straddles the boundary, whose second keeps it rather than going below zero.
   */
  recordUnsent(bytes: number, now: number): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.sent--;
    if (this.#secondSent > 0) this.#secondSent--;
    this.bytesSent -= bytes;
  }

  recordResponse(status: number, bytes: number, latencyMs: number, uncorrectedMs: number, now: number): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.completed++;
    this.#secondCompleted++;
    this.bytesReceived += bytes;
    this.#statusCounts[status < 1000 ? status : 0]!++;
    // Closed-loop latencies are the same measured both ways: keep one histogram until they differ.
    if (uncorrectedMs !== latencyMs && !this.#uncorrectedApart) {
      this.#flush();
      // Adding walks every slot: worth it only for what was recorded (in open loop, usually nothing yet).
      if (this.#latency.totalCount > 0) this.#latencyUncorrected.add(this.#latency);
      this.#uncorrectedApart = true;
    }
    this.#recordLatency(latencyMs);
    if (this.#uncorrectedApart) this.#pendingUncorrected.record(latencyUs(uncorrectedMs));
  }

  /** One latency (ms) for the run and for its second. */
  #recordLatency(latencyMs: number): void {
    const us = latencyUs(latencyMs);
    this.#pending.record(us);
    this.#secondPending.record(us);
  }

  /**
   * One WebSocket message received: `latencyMs` when it was timed (a reply, or a message with a
   * timestamp), negative when it was not.
   */
  recordMessage(bytes: number, latencyMs: number, now: number): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.completed++;
    this.#secondCompleted++;
    this.bytesReceived += bytes;
    if (latencyMs >= 0) this.#recordLatency(latencyMs);
  }

  #flush(): void {
    this.#pending.flushInto(this.#latency);
    this.#pendingUncorrected.flushInto(this.#latencyUncorrected);
  }

  get #uncorrected(): hdr.Histogram {
    return this.#uncorrectedApart ? this.#latencyUncorrected : this.#latency;
  }

  recordError(code: string, now: number): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.errors++;
    this.#secondErrors++;
    this.#errorCodes.set(code, (this.#errorCodes.get(code) ?? 0) + 1);
  }

  /** Closes every whole second before `now` (the engine calls this from its tick too). */
  rollTo(now: number): void {
    while (now >= this.#nextSecondAt) {
      this.#closeSecond();
      this.#nextSecondAt += 1000;
    }
  }

  /** The second's latencies are encoded from their own counts; the run's stay pending until read. */
  #closeSecond(): void {
    const second = this.#second++;
    const seconds = this.#secondPending;
    const percentiles = this.onSecond && {
      p50: seconds.valueAtPercentile(50) / 1000,
      p90: seconds.valueAtPercentile(90) / 1000,
      p99: seconds.valueAtPercentile(99) / 1000,
    };
    const entry: ShardSecond = {
      second,
      sent: this.#secondSent,
      completed: this.#secondCompleted,
      errors: this.#secondErrors,
      retried: this.#secondRetried,
      connections: this.gauges.connections(),
      targetRate: this.gauges.targetRate(second),
      histogram: seconds.takeEncoded(),
      ...(this.gauges.generator?.() ?? { cpuPercent: 0, eventLoopUtilization: 0 }),
    };
    this.#timeline.push(entry);
    if (percentiles) this.onSecond!({ ...entry, ...percentiles });
    this.#secondSent = this.#secondCompleted = this.#secondErrors = this.#secondRetried = 0;
  }

  /**
   * The counts and maxima measured so far, in `LoadResult`'s shape, for `abortOnFail` (read about
   * once per second, never per request). Rates and percentiles are left out: they cannot decide early.
   */
  snapshot(checks: CheckStats | undefined): PartialLoadResult {
    this.#flush();
    return {
      requests: { sent: this.sent, completed: this.completed, retried: this.retried },
      latency: { max: maxOf(this.#latency) },
      latencyUncorrected: { max: maxOf(this.#uncorrected) },
      statusCodes: this.#statusCodes(),
      errors: { total: this.errors, byCode: Object.fromEntries(this.#errorCodes) },
      bytes: { sent: this.bytesSent, received: this.bytesReceived },
      ...(checks ? { checks } : {}),
    };
  }

  /** The counts so far, read once per closed second when someone listens (no histogram work). */
  totals(): RunningTotals {
    return {
      sent: this.sent,
      completed: this.completed,
      errors: this.errors,
      retried: this.retried,
      statusCodes: this.#statusCodes(),
      errorsByCode: Object.fromEntries(this.#errorCodes),
    };
  }

  #statusCodes(): Record<string, number> {
    const statusCodes: Record<string, number> = {};
    this.#statusCounts.forEach((count, status) => {
      if (count > 0) statusCodes[String(status)] = count;
    });
    return statusCodes;
  }

  /** Final numbers; a last partial second is kept when anything happened in it. */
  finish(endAt: number, durationMs: number, aborted: boolean, checks: CheckStats | undefined): ShardStats {
    this.rollTo(endAt);
    if (this.#secondSent + this.#secondCompleted + this.#secondErrors + this.#secondRetried > 0) this.#closeSecond();
    this.#flush();
    return {
      sent: this.sent,
      completed: this.completed,
      missed: this.missed,
      retried: this.retried,
      errors: this.errors,
      errorsByCode: Object.fromEntries(this.#errorCodes),
      statusCodes: this.#statusCodes(),
      bytesSent: this.bytesSent,
      bytesReceived: this.bytesReceived,
      durationMs,
      startedAt: performance.timeOrigin + this.startAt,
      aborted,
      histogram: encodeHistogram(this.#latency),
      histogramUncorrected: encodeHistogram(this.#uncorrected),
      timeline: this.#timeline,
      checks,
      warnings: this.warnings,
      // The engine adds its GeneratorMonitor's reading.
      generator: undefined,
    };
  }
}
