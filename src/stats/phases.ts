/**
 * `result.phases`: where a request's time goes, after k6's http_req_connecting / tls_handshaking /
 * waiting / receiving (lib/netext/httpext/tracer.go), with one difference: k6 records a zero
 * `connecting` for every request on a reused connection, which drags its mean toward zero as
 * keep-alive works; here `connect` and `tls` are recorded once per new connection, so
 * `connect.count` is the number of connections opened and its percentiles describe only those.
 */
import type { Histogram } from 'hdr-histogram-js';
import type { PhaseHistograms as EncodedPhases, PhaseStats, Phases } from '../shared/load-result.js';
import { addEncodedInto, createHistogram, encodeHistogram, moments } from './histogram.js';
import { PendingLatencies } from './pending-latencies.js';

const PHASES = ['connect', 'tls', 'ttfb', 'receive'] as const;
const ALL_PHASES = [...PHASES, 'handshake'] as const;

/** Longer phases (an hour, in µs) are recorded as this, as latencies are. */
const HIGHEST_US = 3_600_000_000;

function toUs(ms: number): number {
  return ms <= 0 ? 0 : Math.min(HIGHEST_US, Math.round(ms * 1000));
}

/**
 * One thread's phase timings. Recording is integer bucket arithmetic into `PendingLatencies`
 * (nothing allocated per request); the HDR histograms are built once, when the thread finishes.
 */
export class PhaseRecorder {
  readonly #connect = new PendingLatencies();
  readonly #tls = new PendingLatencies();
  readonly #ttfb = new PendingLatencies();
  readonly #receive = new PendingLatencies();
  /** WebSocket runs only: their results have `phases.handshake`. */
  readonly #handshake: PendingLatencies | undefined;

  constructor({ handshake = false } = {}) {
    if (handshake) this.#handshake = new PendingLatencies();
  }

  /**
   * A new connection is ready: `connectMs` from the start of the TCP connect (after any DNS lookup)
   * to its completion, `tlsMs` the handshake after it (undefined for plain TCP).
   */
  recordConnection(connectMs: number, tlsMs: number | undefined): void {
    this.#connect.record(toUs(connectMs));
    if (tlsMs !== undefined) this.#tls.record(toUs(tlsMs));
  }

  /**
   * One measured response: `ttfbMs` from the request written to its first response byte, `receiveMs`
   * from that byte to the last. A response whose first byte came before the request was fully
   * written (a server answering early) waits 0, as k6 counts it.
   */
  recordExchange(ttfbMs: number, receiveMs: number): void {
    this.#ttfb.record(toUs(ttfbMs));
    this.#receive.record(toUs(receiveMs));
  }

  /** A WebSocket opening handshake: from the connection (and TLS) ready to the 101 response. */
  recordHandshake(handshakeMs: number): void {
    this.#handshake?.record(toUs(handshakeMs));
  }

  /** Everything recorded, encoded (called once, when the thread finishes). */
  encode(): EncodedPhases {
    const encoded = {} as EncodedPhases;
    const pending = {
      connect: this.#connect,
      tls: this.#tls,
      ttfb: this.#ttfb,
      receive: this.#receive,
      handshake: this.#handshake,
    };
    for (const phase of this.#handshake === undefined ? PHASES : ALL_PHASES) {
      const histogram = createHistogram();
      pending[phase]!.flushInto(histogram);
      encoded[phase] = encodeHistogram(histogram);
      histogram.destroy();
    }
    return encoded;
  }
}

/** A phase histogram (µs) summarised in ms; zeros when it is empty. */
export function phaseStats(histogram: Histogram): PhaseStats {
  const count = histogram.totalCount;
  if (count === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  return {
    count,
    // A phase can take 0 µs (a whole response in one read): minNonZeroValue would skip it.
    min: histogram.getValueAtPercentile(0) / 1000,
    mean: moments(histogram).mean / 1000,
    p50: histogram.getValueAtPercentile(50) / 1000,
    p90: histogram.getValueAtPercentile(90) / 1000,
    p99: histogram.getValueAtPercentile(99) / 1000,
    max: histogram.maxValue / 1000,
  };
}

/**
 * The phases of several shards (or results) merged exactly: histograms added, then summarised.
 * Shards without phases (a crashed worker) contribute nothing.
 */
export function mergePhases(list: ReadonlyArray<EncodedPhases | undefined>): {
  phases: Phases;
  histograms: EncodedPhases;
} {
  const phases = {} as Phases;
  const histograms = {} as EncodedPhases;
  const handshakes = list.some((encoded) => encoded?.handshake !== undefined);
  for (const phase of handshakes ? ALL_PHASES : PHASES) {
    const merged = createHistogram();
    for (const encoded of list) {
      const histogram = encoded?.[phase];
      if (histogram !== undefined) addEncodedInto(merged, histogram);
    }
    phases[phase] = phaseStats(merged);
    histograms[phase] = encodeHistogram(merged);
    merged.destroy();
  }
  return { phases, histograms };
}
