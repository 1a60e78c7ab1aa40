import type { ConnectionOptions } from 'node:tls';
import type { Warning } from './stats/warnings.js';

export type { Warning };

/** Which client sends the requests. */
export type TransportName = 'net' | 'undici' | 'http' | 'h2';

/**
 * What a result's `transport` says: the HTTP client used, `'websocket'` for a `ws:`/`wss:` run, or
 * `'socket.io'` for a run with `socketio`.
 */
export type ResultTransport = TransportName | 'websocket' | 'socket.io';

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
  totals: { sent: number; completed: number; errors: number; retried: number };
}

/**
 * An `outputs` entry: the run's per-second series written live to Prometheus's remote-write
 * endpoint (`prometheus --web.enable-remote-write-receiver`, Mimir, Thanos, VictoriaMetrics...).
 */
export interface PrometheusOutput {
  type: 'prometheus';
  /** The remote-write URL, such as `http://prometheus:9090/api/v1/write`. */
  url: string;
  /** Labels on every series. `testid` names the run; without it one is generated and printed. */
  labels?: Record<string, string>;
  /** Headers of each write, such as `authorization`. */
  headers?: Record<string, string>;
}

/** Where `outputs` can send a run's series live; more kinds can follow. */
export type OutputOptions = PrometheusOutput;

/** Options of `runLoad`. Only `url` is required. */
export interface LoadOptions {
  /** Target URL, `http:` or `https:`; `ws:` or `wss:` runs a WebSocket load test (see `websocket`). */
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
   * HTTP/2 (`transport: 'h2'`): concurrent streams per session, that is requests in flight on each
   * of the `connections`. Default 1. Capped by the server's SETTINGS_MAX_CONCURRENT_STREAMS; when it
   * is, `result.warnings` has `H2_STREAMS_CAPPED` with the limit.
   */
  streams?: number;
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
  /**
   * Resume TLS sessions on new connections, as browsers and wrk do: each worker thread keeps the
   * last session the server issued and offers it on every new connection (the `session` option of
   * `tls.connect`), so a returning visitor's abbreviated handshake is what `keepAlive: false`
   * measures. `false` forces a full handshake on every connection (first-visit cost). Default true.
   */
  tlsSessionReuse?: boolean;
  /**
   * Send again, once and on a new connection, a request the server provably never processed: one
   * pipelined behind a response that announced the close (`Connection: close`), and an idempotent one
   * (GET HEAD OPTIONS TRACE PUT DELETE) on a reused connection that closed before any byte of its
   * response, as browsers and Go's client do. Counted once in `requests.sent`, in `requests.retried`,
   * with its latency from its first send. `false` reports every such close as an error. Default true.
   */
  retry?: boolean;
  /** Aborting it ends the run promptly with the partial result and `aborted: true`. */
  signal?: AbortSignal;
  /**
   * Called about once per second with the last second's numbers and the totals (over all workers).
   * A string is a module path or `file:` URL whose default or `onProgress` export is the callback.
   */
  onProgress?: ((event: ProgressEvent) => void) | string;
  /**
   * Run only the `index`-th (from 0) of `count` shares of this plan: connections, `amount`, `rate`
   * and stages split exactly as over worker threads, with the rate schedule offset so that the
   * shares' sends interleave. One process or machine per segment, every segment given the same
   * options; `mergeResults` puts their results back together. `count` is at most `connections`
   * (and `amount`, `rate`).
   */
  segment?: Segment;
  /**
   * Wall-clock instant (epoch ms, or a Date) at which the measured run starts: the connections are
   * opened and the warm-up is run before it. Give every segment the same one so that their seconds
   * line up. A time already past starts at once and adds a `LATE_START` warning.
   */
  startAt?: number | Date;
  /**
   * What each connection of a WebSocket run (`ws:`/`wss:` url) does: send `message` and time each
   * reply (echo / request-reply), and/or time messages the server pushes by the `timestamp` they
   * carry (listen / broadcast). Only with a `ws:`/`wss:` url.
   */
  websocket?: WebSocketOptions;
  /**
   * Live series out, every second of the run (over all workers), and the final totals after it:
   * `[{ type: 'prometheus', url, labels: { testid } }]`. An endpoint that fails costs an
   * `OUTPUT_FAILED` warning, never the run or its numbers.
   */
  outputs?: OutputOptions[];
  /**
   * Watch the server while the run goes, once a second in the main thread on the timeline's
   * seconds: local processes by pid and Prometheus text endpoints. What they say is in
   * `result.server` and each timeline entry's `server`.
   */
  monitor?: MonitorOptions;
  /**
   * A Socket.IO run (Engine.IO 4 over WebSocket; Socket.IO 3 and 4 servers): `url` is the server's
   * origin (`http:`, `https:`, `ws:` or `wss:`), and each connection connects to a namespace, emits
   * `emit` and times its acknowledgement or `reply`, and/or times the `listen` events the server
   * pushes. The result is a WebSocket run's, with `transport: 'socket.io'`.
   */
  socketio?: SocketIoOptions;
}

/** Options of a Socket.IO run (`socketio`). */
export interface SocketIoOptions {
  /** The server's Socket.IO path. Default `/socket.io/`. */
  path?: string;
  /** The namespace each connection connects to. Default `/`. */
  namespace?: string;
  /** The namespace connect's auth payload (`socket.handshake.auth` on the server). */
  auth?: Record<string, unknown>;
  /** What each connection emits: an event name and its one argument (JSON), if any. */
  emit?: { event: string; data?: unknown };
  /**
   * Emits per second per connection, on schedule (open loop). Without it, each connection emits the
   * next as soon as the previous one's acknowledgement or reply came (closed loop).
   */
  rate?: number;
  /** Ask for an acknowledgement of each emit: latency is its round trip. */
  ack?: boolean;
  /** Latency is the time from an emit to the next event of this name on that connection. */
  reply?: string;
  /**
   * Events the server pushes to time: with `timestamp: { field }`, from the top-level number `field`
   * of their first argument (epoch ms), as `websocket.timestamp` times messages. Every event and ack
   * received counts in `messages.received`, whatever its name.
   */
  listen?: { event: string; timestamp?: { field: string } };
}

/** A Prometheus text endpoint to scrape: its URL, and for node_exporter which network devices count. */
export interface PrometheusSource {
  /** `http:` or `https:` URL of the metrics, such as `'http://127.0.0.1:9100/metrics'`. */
  url: string;
  /** node_exporter: the network devices whose bytes count (`['eth0']`). Default: all of them. */
  devices?: string[];
}

/** What `monitor` watches. */
export interface MonitorOptions {
  /** Local processes by pid, all their threads included (read from `/proc`: Linux only). */
  processes?: number[];
  /**
   * Prometheus text endpoints: node_exporter (the machine's CPU over all cores, memory in use,
   * network bytes) or a Node app's prom-client endpoint (its process CPU, resident memory and event
   * loop lag).
   */
  prometheus?: Array<string | PrometheusSource>;
}

/** The message a WebSocket connection sends: fixed, or built per send. */
export type WebSocketMessage = string | Buffer | ((connection: number, sequence: number) => string | Buffer);

/**
 * Options of a WebSocket run (`websocket`). With `message`, each connection sends it and times the
 * reply (the next message the server sends on that connection, first in first out); with
 * `timestamp`, messages that carry one are timed from it; with both, a message whose `timestamp`
 * gives a number is a broadcast and any other is a reply.
 */
export interface WebSocketOptions {
  /**
   * Sent on every connection: a string (text frame), a Buffer (binary frame), or a function of the
   * connection's index within its thread and the message's sequence number on that connection
   * (from 0; in-process only, so `workers: 1`).
   */
  message?: WebSocketMessage;
  /**
   * Messages per second per connection, sent on schedule whether or not replies came (open loop).
   * Without it, each connection sends its next message as soon as the reply to the previous one came.
   */
  rate?: number;
  /**
   * Where a received message says when it was sent, epoch ms: a function of the message (text as a
   * string, binary as a Buffer) returning the time, or `undefined` for a message without one; or
   * `{ field: 'ts' }` to read a top-level number of a JSON message (works with workers). Its latency
   * is the receive time minus that. The clocks of server and client must agree: clearly negative
   * latencies add a `CLOCK_SKEW` warning.
   */
  timestamp?: ((data: string | Buffer) => number | undefined) | { field: string };
  /** Negotiate permessage-deflate compression. Default false (as most load tests and servers expect). */
  perMessageDeflate?: boolean;
  /** Subprotocols offered in `Sec-WebSocket-Protocol`. */
  protocols?: string | string[];
}

/** `result.messages` of a WebSocket run. */
export interface MessageStats {
  /** Messages sent during the measured run. */
  sent: number;
  /** Messages received during the measured run (replies and pushed messages). */
  received: number;
  /** Received messages per measured second. */
  perSecond: number;
}

/** One connection stage of a WebSocket run (`result.websocket.stages`). */
export interface WebSocketStageStats {
  /** Index into `stages`. */
  stage: number;
  /** How long the run spent in this stage, ms (shorter than the stage when the run ended early). */
  durationMs: number;
  /** The connections the stage ramps to (its `connections`). */
  clients: number;
  /** Connections open when the stage ended. */
  open: number;
  /** Messages sent and received during the stage. */
  sent: number;
  received: number;
  /** Received messages per second of the stage. */
  perSecond: number;
  /** Median and 99th percentile latency of the messages timed during the stage, ms. */
  p50: number;
  p99: number;
  /**
   * With `monitor`: the server's CPU over the stage's seconds (a second counts for the stage its
   * middle falls in), 100 = one core, and per received message, ms.
   */
  server?: { cpuPercent?: number; cpuPerRequest?: number };
}

/** What only a WebSocket run has (`result.websocket`). */
export interface WebSocketStats {
  /**
   * Closes that salvo did not ask for (the server's, the network's), by close code: `1006` is a
   * connection lost without a close frame, `1002` a protocol error. Closed connections reconnect.
   */
  closeCodes: Record<string, number>;
  /** Per connection stage, when the run has `stages`. */
  stages?: WebSocketStageStats[];
}

/** One share of a run split over processes or machines (`segment` option, `result.merge.segment`). */
export interface Segment {
  /** Which share, from 0. */
  index: number;
  /** How many shares the run is split into. */
  count: number;
}

/**
 * The whole run's plan as far as it decides whether results belong together: every segment of one
 * run carries the same one.
 */
/** The whole run's plan as plain JSON: an option the run did not have is absent, never `undefined`. */
export interface MergePlan {
  transport: ResultTransport;
  connections: number;
  durationMs?: number;
  amount?: number;
  rate?: number;
  stages?: Array<{ durationMs: number; rate?: number; connections?: number }>;
  pipelining: number;
  keepAlive: boolean;
  warmupMs: number;
  /** `METHOD /path` of each request of the sequence. */
  requests: string[];
}

/** What `mergeResults` needs besides the numbers of a result; plain JSON. */
export interface MergeInfo {
  /** Which share of a segmented run this result is; absent for a whole run. */
  segment?: Segment;
  /** The whole run's plan (before it was split into segments). */
  plan: MergePlan;
  /** The thresholds the run was given, evaluated again on a merged result. */
  thresholds?: Thresholds;
  /**
   * The corrected latency histogram (µs, compressed base64, as `histogram`) of each `timeline`
   * entry, in the same order; `''` for a second with no responses.
   */
  timeline: string[];
  /** The send-lag histogram (µs, compressed base64) behind `generator.sendLag`, in rate mode. */
  sendLag?: string;
  /** WebSocket runs with stages: each stage's latency histogram (µs, compressed base64), in order. */
  stages?: string[];
  /** `monitor`: each source's per-second readings, so that merged segments count a source once. */
  server?: ServerSeries[];
}

/** One monitored source's readings, one per timeline second (`null` where it did not answer). */
export interface ServerSeries {
  source: string;
  scope: 'process' | 'machine';
  /** The cores its CPU is out of: the machine's (node_exporter's CPUs; this machine's for a pid); absent when unknown. */
  cores?: number;
  /** The first failure, if any. */
  error?: string;
  /** Wall-clock start of its first second, epoch ms (the run's `startedAt`). */
  startedAt: number;
  seconds: Array<ServerReadingSecond | null>;
}

/** What one source said over one second: counters as differences, gauges at the second's end. */
export interface ServerReadingSecond {
  wallMs: number;
  cpuMs?: number;
  rssBytes?: number;
  receivedBytes?: number;
  sentBytes?: number;
  eventLoopLagMs?: number;
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
  /** Requests sent again during this second (see `requests.retried`). */
  retried: number;
  /** Median latency of responses completed during this second, ms. */
  p50: number;
  /** 99th percentile latency of responses completed during this second, ms. */
  p99: number;
  /** Open connections at the end of this second. */
  connections: number;
  /** Target rate during this second (open-loop runs), requests/s. */
  targetRate?: number;
  /** The load generator's process CPU in this second, 100 = one core (the busiest reading over workers). */
  cpuPercent: number;
  /** The load generator's event-loop utilization in this second, 0..1 (the busiest thread). */
  eventLoopUtilization: number;
  /** The server in this second, when `monitor` watched it (fields no source gave are absent). */
  server?: ServerSecond;
}

/** One second of the watched server (`timeline[i].server`); a field no source gave is absent. */
export interface ServerSecond {
  /** Server CPU, 100 = one core. */
  cpuPercent?: number;
  /** Resident memory of the processes (or the machine's memory in use), bytes, at the end of the second. */
  rssBytes?: number;
  /** Network bytes received and sent by the machine (node_exporter), per second. */
  receivedBytesPerSecond?: number;
  sentBytesPerSecond?: number;
  /** A prom-client app's event-loop lag (its p99 when it exports one), ms. */
  eventLoopLagMs?: number;
}

/** One source `monitor` read (`result.server.sources`). */
export interface ServerSourceStats {
  /** `pid 1234`, or the metrics URL. */
  source: string;
  /** `process`: a pid or a prom-client app; `machine`: node_exporter. */
  scope: 'process' | 'machine';
  /** Whether it answered every sample of the run. */
  answered: boolean;
  /** The first failure, when it did not. */
  error?: string;
  /** Measured seconds it answered. */
  seconds: number;
  /** CPU over the seconds it answered, 100 = one core. */
  cpuPercent?: number;
  /** Mean and highest resident memory (machine: memory in use), bytes. */
  rssBytes?: number;
  peakRssBytes?: number;
  receivedBytesPerSecond?: number;
  sentBytesPerSecond?: number;
  /** Highest event-loop lag of a second, ms (prom-client). */
  eventLoopLagMs?: number;
}

/**
 * The system under test over the measured run (`result.server`), from `monitor`. CPU and memory
 * come from the process sources (pids, prom-client apps), added up, or from the machine
 * (node_exporter) when none gives them; network from node_exporter. A field no source gave is
 * absent, never zero.
 */
export interface ServerStats {
  /** Server CPU, 100 = one core. */
  cpuPercent?: number;
  /**
   * Server CPU per completed request (per received message in a WebSocket run), ms: over the
   * seconds the CPU sources answered.
   */
  cpuPerRequest?: number;
  memory?: { rssBytes: number; peakRssBytes: number };
  network?: { receivedBytesPerSecond: number; sentBytesPerSecond: number };
  /** Highest event-loop lag of a second, ms (prom-client apps). */
  eventLoopLagMs?: number;
  /** The cores the CPU is out of (`cpuPercent` 100 × cores is all of them), when the sources say. */
  cores?: number;
  /** What was read, and whether it answered. */
  sources: ServerSourceStats[];
}

/**
 * The load generator's own load (`result.generator`): when it is near its limit, the numbers may
 * show salvo's limit rather than the server's, and `warnings` holds `GENERATOR_SATURATED`.
 */
export interface GeneratorStats {
  /** Process CPU over the measured run, 100 = one core (the whole process: every worker thread and the pacer). */
  cpuPercent: number;
  /** Event-loop utilization (`performance.eventLoopUtilization`), 0..1; the busiest thread with workers. */
  eventLoopUtilization: number;
  /** 99th percentile of the event-loop delay (`monitorEventLoopDelay`), ms; the busiest thread with workers. */
  eventLoopDelayP99Ms: number;
  /**
   * Rate mode only: how late salvo wrote requests, ms: from the intended time, or from when a
   * connection became free for a slot that had to wait for one (that wait is the connections' doing).
   */
  sendLag?: { p50: number; p99: number; max: number };
  /** The generator was the bottleneck: its loop was busy for most of the run, or send lag p99 passed 5 ms. */
  saturated: boolean;
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
  transport: ResultTransport;
  connections: number;
  workers: number;
  /** Target rate, requests/s, when the run was open-loop. */
  rate?: number;
  /** In a WebSocket run the same counts as `messages` (sent, and received as completed). */
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
    /**
     * Requests sent a second time, on a new connection, because the server provably never processed
     * the first (the `retry` option): each is still one request in `sent` and one answer.
     */
    retried: number;
  };
  /** WebSocket runs: messages sent and received. */
  messages?: MessageStats;
  /** WebSocket runs: close codes and the per-stage summary. */
  websocket?: WebSocketStats;
  /**
   * Latency; in a WebSocket run per timed message (reply time minus send time, or receive time minus
   * the message's timestamp); in rate mode measured from the intended send time (coordinated-omission corrected). */
  latency: LatencyStats;
  /** Latency measured from the actual write. Equal to `latency` in closed-loop runs. */
  latencyUncorrected: LatencyStats;
  /**
   * Connection setup and request phases: `connect` and `tls` once per connection opened (warm-up
   * and ahead-of-start included), `ttfb` and `receive` for every measured response.
   */
  phases: Phases;
  /** The phase histograms (µs), encoded like `histogram`, for exact merging elsewhere. */
  phaseHistograms: PhaseHistograms;
  /** Status codes of the responses (in a WebSocket run: of the opening handshakes, 101 when accepted). */
  statusCodes: Record<string, number>;
  errors: { total: number; byCode: Record<string, number> };
  bytes: { sent: number; received: number };
  /** Length of the measured part of the run. */
  durationMs: number;
  /** Wall-clock start of the measured run, epoch ms (with sub-ms precision). */
  startedAt: number;
  timeline: TimelineEntry[];
  /** True when the run was ended by `signal` or an `abortOnFail` threshold. */
  aborted: boolean;
  checks?: CheckStats;
  /**
   * Findings that the numbers alone do not show, each `{ code, message }`, one per code; empty when
   * all is well. The message says what it means and what to do.
   */
  warnings: Warning[];
  /** The load generator's own CPU, event loop and send lag, with a saturation verdict. */
  generator: GeneratorStats;
  /** The server's CPU, memory and network, when `monitor` watched it. */
  server?: ServerStats;
  thresholds?: ThresholdResult[];
  /** False when a threshold failed. */
  ok: boolean;
  /** The corrected latency histogram in microseconds, hdr-histogram-js compressed base64. */
  histogram: string;
  /** The uncorrected latency histogram, encoded the same way. */
  histogramUncorrected: string;
  /** What an exact `mergeResults` needs: segment, whole plan, thresholds, per-second histograms. */
  merge: MergeInfo;
}
