import * as hdr from 'hdr-histogram-js';
import type { CheckStats } from '../types.js';
import type { PartialLoadResult } from './thresholds.js';

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

/** One second of one shard, encoded for merging. */
export interface ShardSecond {
  second: number;
  sent: number;
  completed: number;
  errors: number;
  connections: number;
  targetRate: number | undefined;
  /** Corrected latencies of the responses completed in this second. */
  histogram: string;
}

/** Everything one thread measured, as plain data that crosses threads and merges exactly. */
export interface ShardStats {
  sent: number;
  completed: number;
  missed: number;
  errors: number;
  errorsByCode: Record<string, number>;
  statusCodes: Record<string, number>;
  bytesSent: number;
  bytesReceived: number;
  durationMs: number;
  aborted: boolean;
  histogram: string;
  histogramUncorrected: string;
  timeline: ShardSecond[];
  checks: CheckStats | undefined;
}

/** The second that just closed, live, for `onProgress`. */
export interface SecondSummary extends ShardSecond {
  p50: number;
  p99: number;
}

/** Samples taken once per second from the engine. */
export interface Gauges {
  connections(): number;
  targetRate(second: number): number | undefined;
}

/**
 * Counters, HDR histograms and a per-second timeline for one thread. Recording is a few integer
 * additions and histogram increments: nothing is allocated per request.
 */
export class Recorder {
  sent = 0;
  completed = 0;
  errors = 0;
  missed = 0;
  bytesSent = 0;
  bytesReceived = 0;
  readonly #statusCounts = new Uint32Array(1000);
  readonly #errorCodes = new Map<string, number>();
  readonly #latency = createHistogram();
  readonly #latencyUncorrected = createHistogram();
  /** Some response's uncorrected latency differed from its corrected one (open loop). */
  #uncorrectedApart = false;
  readonly #secondLatency = createHistogram();
  readonly #timeline: ShardSecond[] = [];
  #second = 0;
  #secondSent = 0;
  #secondCompleted = 0;
  #secondErrors = 0;
  #nextSecondAt: number;

  constructor(
    /** Start of the measured run, performance.now() ms. */
    readonly startAt: number,
    readonly gauges: Gauges,
    readonly onSecond: ((summary: SecondSummary) => void) | undefined,
  ) {
    this.#nextSecondAt = startAt + 1000;
  }

  recordSent(bytes: number, now: number): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.sent++;
    this.#secondSent++;
    this.bytesSent += bytes;
  }

  recordResponse(status: number, bytes: number, latencyMs: number, uncorrectedMs: number, now: number): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.completed++;
    this.#secondCompleted++;
    this.bytesReceived += bytes;
    this.#statusCounts[status < 1000 ? status : 0]!++;
    // Closed-loop latencies are the same measured both ways: keep one histogram until they differ.
    if (uncorrectedMs !== latencyMs && !this.#uncorrectedApart) {
      this.#latencyUncorrected.add(this.#latency);
      this.#uncorrectedApart = true;
    }
    const us = Math.min(HIGHEST_US, Math.round(latencyMs * 1000));
    this.#latency.recordValue(us);
    this.#secondLatency.recordValue(us);
    if (this.#uncorrectedApart) {
      this.#latencyUncorrected.recordValue(Math.min(HIGHEST_US, Math.round(uncorrectedMs * 1000)));
    }
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

  #closeSecond(): void {
    const second = this.#second++;
    const entry: ShardSecond = {
      second,
      sent: this.#secondSent,
      completed: this.#secondCompleted,
      errors: this.#secondErrors,
      connections: this.gauges.connections(),
      targetRate: this.gauges.targetRate(second),
      histogram: encodeHistogram(this.#secondLatency),
    };
    this.#timeline.push(entry);
    this.onSecond?.({
      ...entry,
      p50: this.#secondLatency.getValueAtPercentile(50) / 1000,
      p99: this.#secondLatency.getValueAtPercentile(99) / 1000,
    });
    this.#secondLatency.reset();
    this.#secondSent = this.#secondCompleted = this.#secondErrors = 0;
  }

  /**
   * The counts and maxima measured so far, in `LoadResult`'s shape, for `abortOnFail` (read about
   * once per second, never per request). Rates and percentiles are left out: they cannot decide early.
   */
  snapshot(checks: CheckStats | undefined): PartialLoadResult {
    return {
      requests: { sent: this.sent, completed: this.completed },
      latency: { max: this.#latency.maxValue / 1000 },
      latencyUncorrected: { max: this.#uncorrected.maxValue / 1000 },
      statusCodes: this.#statusCodes(),
      errors: { total: this.errors, byCode: Object.fromEntries(this.#errorCodes) },
      bytes: { sent: this.bytesSent, received: this.bytesReceived },
      ...(checks ? { checks } : {}),
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
    if (this.#secondSent + this.#secondCompleted + this.#secondErrors > 0) this.#closeSecond();
    return {
      sent: this.sent,
      completed: this.completed,
      missed: this.missed,
      errors: this.errors,
      errorsByCode: Object.fromEntries(this.#errorCodes),
      statusCodes: this.#statusCodes(),
      bytesSent: this.bytesSent,
      bytesReceived: this.bytesReceived,
      durationMs,
      aborted,
      histogram: encodeHistogram(this.#latency),
      histogramUncorrected: encodeHistogram(this.#uncorrected),
      timeline: this.#timeline,
      checks,
    };
  }
}
