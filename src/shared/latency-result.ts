// A result's latency distributions and connection phases.
/**
 * Latency distribution in milliseconds (floats with microsecond precision). When nothing was timed
 * (`count` 0: no response came, or no message carried a timestamp) every statistic is NaN, `null`
 * once the result is JSON: no latency is not zero latency.
 */
export interface LatencyStats {
  /** How many responses (or messages) were timed. */
  count: number;
  min: number;
  mean: number;
  stddev: number;
  max: number;
  p50: number;
  p75: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
}

/** One phase of the requests or connections, in milliseconds (see `LoadResult.phases`). */
export interface PhaseStats {
  /** How many times it was measured: connections opened (`connect`, `tls`) or responses (`ttfb`, `receive`). */
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Where the time goes, after k6's http_req_connecting / tls_handshaking / waiting / receiving. */
export interface Phases {
  /** TCP connect of each new connection (after any DNS lookup); reused connections are not in it. */
  connect: PhaseStats;
  /** TLS handshake of each new `https:` connection; count 0 for `http:`. */
  tls: PhaseStats;
  /** Request written to the first byte of its response (the server's think time plus one round trip). */
  ttfb: PhaseStats;
  /** First byte of a response to its last. */
  receive: PhaseStats;
  /** WebSocket runs: the opening handshake, from the connection (and TLS) being ready to the 101 response. */
  handshake?: PhaseStats;
}

/** The four phase histograms (µs), hdr-histogram-js compressed base64. */
export interface PhaseHistograms {
  connect: string;
  tls: string;
  ttfb: string;
  receive: string;
  handshake?: string;
}
