import type { ConnectionOptions } from 'node:tls';

/** Which client sends the requests. */
export type TransportName = 'net' | 'undici' | 'http';

/** A duration: milliseconds as a number, or a string such as `'500ms'`, `'10s'`, `'2m'`, `'1h'`. */
export type Duration = number | string;

/** A request body: a string, a Buffer, or any other value sent as JSON. */
export type RequestBody = string | Buffer | Uint8Array | Record<string, unknown> | unknown[];

/** One request of a sequence that each connection walks in order and repeats. */
export interface RequestSpec {
  /** HTTP method. Default: the run's `method`. */
  method?: string;
  /** Path and query, such as `'/users?id=1'`. Default: the path of `url`. */
  path?: string;
  /** Extra headers, merged over the run's `headers`. */
  headers?: Record<string, string>;
  /** Body; objects are sent as JSON with `content-type: application/json`. */
  body?: RequestBody;
  /**
   * Builds the request just before it is sent (an id, a token). Only requests with this hook are
   * encoded per send; the others stay pre-encoded. Mutate `request` or return a new spec.
   */
  setupRequest?: (request: RequestSpec, context: RequestContext) => RequestSpec | void;
  /** Called with each response of this request; its body is buffered only when this hook exists. */
  onResponse?: (status: number, body: Buffer, context: RequestContext) => void;
}

/** State that one connection carries from one request of a sequence to the next. */
export interface RequestContext {
  /** Free-form values set by `onResponse` and read by `setupRequest`. */
  values: Record<string, unknown>;
  /** Index of this connection within its thread. */
  connection: number;
  /** How many times this connection has walked the sequence so far. */
  iteration: number;
}

/**
 * One step of a ramp: `rate` ramps an open-loop run, `connections` ramps a closed-loop run. Each stage
 * moves linearly from where the previous one ended to its own target, reached at its end.
 */
export interface Stage {
  /** How long this stage lasts. */
  duration: Duration;
  /**
   * Target requests/s reached at the end of this stage (k6's ramping arrival rate): the rate, and
   * so the spacing of requests, changes smoothly over the stage, never in steps per second.
   */
  rate?: number;
  /** Open connections reached at the end of this stage; connections are opened and closed as it goes. */
  connections?: number;
}

/** Checks applied to every response; their outcome is in `result.checks`. */
export interface ExpectOptions {
  /** A status code, a list of codes, or a class such as `'2xx'`. */
  status?: number | string | Array<number | string>;
  /** The body includes this string, or matches this RegExp. */
  body?: string | RegExp;
  /** Each named header equals the string, or matches the RegExp (names are case-insensitive). */
  headers?: Record<string, string | RegExp>;
}

/**
 * k6-style pass/fail criteria keyed by metric path, for example
 * `{ 'latency.p99': '< 50', 'errors.rate': '< 0.01' }`. A value may be a list of expressions, or
 * `{ threshold, abortOnFail }` to stop the run early once it can no longer pass.
 */
export type Thresholds = Record<
  string,
  string | string[] | { threshold: string | string[]; abortOnFail?: boolean }
>;

/**
 * What `onProgress` receives about once per second: the second that just closed, as it will appear
 * in `result.timeline`, with the run's totals so far.
 */
export interface ProgressEvent extends TimelineEntry {
  /** Totals since the measured run began. */
  totals: { sent: number; completed: number; errors: number };
}

/** Options of `runLoad`. Only `url` is required. */
export interface LoadOptions {
  /** Target URL, `http:` or `https:`. */
  url: string;
  /** Which client sends the requests. Default `'net'`. */
  transport?: TransportName;
  /** Concurrent connections over all workers. Default 10. */
  connections?: number;
  /** How long to run. Default 10 s unless `amount` is given. */
  duration?: Duration;
  /** Send exactly this many requests, then stop. */
  amount?: number;
  /**
   * Target requests/s over all workers; turns on open-loop mode with coordinated-omission correction.
   * Request i is due at start + i / rate and goes out on whichever connection is free; when none is,
   * it waits, and its latency still counts from when it was due. Slots still waiting at the end are
   * counted in `requests.missed`. Give enough `connections` for rate × latency requests in flight.
   */
  rate?: number;
  /**
   * Ramping stages, run one after the other; together they set the run length (no `duration`).
   * Rate stages (`{ duration, rate }`, open loop) ramp from `rate`, or from 0 when `rate` is not
   * given; connection stages (`{ duration, connections }`, closed loop, no `rate`) ramp from
   * `connections`. Each timeline second shows the target rate and the open connections.
   */
  stages?: Stage[];
  /** Requests in flight per connection. Default 1. */
  pipelining?: number;
  /**
   * Worker threads: 1 runs in this thread; `'auto'` uses one per core, leaving one free. Default 1.
   * Capped so that each worker has at least one connection (and one request of `amount`, 1 req/s of
   * `rate`); `result.workers` is the number used.
   */
  workers?: number | 'auto';
  /** Reuse connections. Default true; false opens one connection per request. */
  keepAlive?: boolean;
  /** HTTP method. Default `'GET'`. */
  method?: string;
  /** Request headers. */
  headers?: Record<string, string>;
  /** Request body; objects are sent as JSON. */
  body?: RequestBody;
  /**
   * A sequence of requests each connection walks in order and repeats, instead of one request. With
   * `workers` > 1, specs with `setupRequest`/`onResponse` hooks must come from a module: give its path
   * or `file:` URL (default or `requests` export); each worker imports it.
   */
  requests?: RequestSpec[] | string;
  /** Per-request timeout. Default 10 s. Timeouts are counted under `errors.byCode.TIMEOUT`. */
  timeout?: Duration;
  /**
   * A period before the measured run whose requests are sent but kept out of every statistic (counts,
   * latency, timeline, checks, bytes). Open loop: it runs at `rate` (required with rate stages), and
   * the stages start after it. Default 0.
   */
  warmup?: Duration;
  /** Checks applied to every response. */
  expect?: ExpectOptions;
  /** Pass/fail criteria evaluated on the result. */
  thresholds?: Thresholds;
  /** Options for `tls.connect`. Certificates are verified unless `rejectUnauthorized: false`. */
  tls?: ConnectionOptions;
  /** Aborting it ends the run promptly with the partial result and `aborted: true`. */
  signal?: AbortSignal;
  /**
   * Called about once per second with the last second's numbers and the totals (over all workers).
   * A string is a module path or `file:` URL whose default or `onProgress` export is the callback.
   */
  onProgress?: ((event: ProgressEvent) => void) | string;
}

/** Latency distribution in milliseconds (floats with microsecond precision). */
export interface LatencyStats {
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

/** One second of the run. */
export interface TimelineEntry {
  /** Seconds since the measured run began, starting at 0. */
  second: number;
  /** Requests sent during this second. */
  sent: number;
  /** Responses completed during this second. */
  completed: number;
  /** Errors during this second. */
  errors: number;
  /** Median latency of responses completed during this second, ms. */
  p50: number;
  /** 99th percentile latency of responses completed during this second, ms. */
  p99: number;
  /** Open connections at the end of this second. */
  connections: number;
  /** Target rate during this second (open-loop runs), requests/s. */
  targetRate?: number;
}

/** Outcome of the `expect` checks. */
export interface CheckStats {
  passed: number;
  failed: number;
  /** Pass/fail count per check name (`status`, `body`, `header:<name>`). */
  byName: Record<string, { passed: number; failed: number }>;
  /** A few failures, for the report. */
  examples: Array<{ name: string; message: string }>;
}

/** Outcome of one threshold expression. */
export interface ThresholdResult {
  metric: string;
  expression: string;
  actual: number;
  passed: boolean;
}

/** What `runLoad` resolves to. All times are milliseconds. */
export interface LoadResult {
  url: string;
  transport: TransportName;
  connections: number;
  workers: number;
  /** Target rate, requests/s, when the run was open-loop. */
  rate?: number;
  requests: {
    /** Requests written. */
    sent: number;
    /** Responses received (any status). */
    completed: number;
    /** Completed responses per measured second. */
    perSecond: number;
    /**
     * Open-loop slots due during the measured run that were never sent: no connection was free for
     * them before the end (or, rarely, the load generator itself was held up right at the end).
     */
    missed: number;
  };
  /** Latency; in rate mode measured from the intended send time (coordinated-omission corrected). */
  latency: LatencyStats;
  /** Latency measured from the actual write. Equal to `latency` in closed-loop runs. */
  latencyUncorrected: LatencyStats;
  statusCodes: Record<string, number>;
  errors: { total: number; byCode: Record<string, number> };
  bytes: { sent: number; received: number };
  /** Length of the measured part of the run. */
  durationMs: number;
  timeline: TimelineEntry[];
  /** True when the run was ended by `signal` or an `abortOnFail` threshold. */
  aborted: boolean;
  checks?: CheckStats;
  thresholds?: ThresholdResult[];
  /** False when a threshold failed. */
  ok: boolean;
  /** The corrected latency histogram in microseconds, hdr-histogram-js compressed base64. */
  histogram: string;
  /** The uncorrected latency histogram, encoded the same way. */
  histogramUncorrected: string;
}
