import type { Segment, Thresholds, TransportName } from './terms.js';
import type { Warning } from './warnings.js';
import type { RunKind } from './run-kind.js';
import type { StreamFormat, StreamMergeInfo } from './stream.js';
import type { PrewarmStats } from './prewarm.js';

export type { PrewarmStats } from './prewarm.js';

/**
 * What a result's `transport` says: the HTTP client used, `'websocket'` for a `ws:`/`wss:` run,
 * `'socket.io'` for a run with `socketio`, or `'task'` for a run of a user's function (`task`).
 */
export type ResultTransport = TransportName | 'websocket' | 'socket.io' | 'task';

/**
 * What `onProgress` receives about once per second: the second that just closed, as it will appear
 * in `result.timeline`, with the run's totals so far.
 */
export interface ProgressEvent extends TimelineEntry {
  /** Totals since the measured run began. */
  totals: { sent: number; completed: number; errors: number; retried: number };
  /** With `scenarios`: each scenario's part of this second, its totals its own (absent until it starts). */
  byScenario?: Record<string, Omit<ProgressEvent, 'second' | 'byScenario' | 'server'>>;
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
  connections: number;
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
  server?: { cpuPercent?: number; cpuPerRequestMs?: number };
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

/** The whole run's plan as plain JSON: an option the run did not have is absent, never `undefined`. */
export interface MergePlan {
  /** What the run drove (absent in results saved before 1.0, whose `transport` says it). */
  kind?: RunKind;
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
  /** A run with `scenarios`: each scenario's plan (the rest of this plan is what they share or add up to). */
  scenarios?: Record<string, MergePlan>;
  /** A Socket.IO run's exchange, for the reports to name it. */
  socketio?: MergeSocketIo;
}

/** What each connection of a Socket.IO run did (`merge.plan.socketio`). */
export interface MergeSocketIo {
  namespace: string;
  /** The event each connection emits; absent when it only listens. */
  emit?: string;
  /** Emits per second per connection (rate mode). */
  rate?: number;
  /**
   * How a message is timed: `ack` (its acknowledgement), `reply` (the next `event`), `listen`
   * (`event`s pushed by the server, by their timestamp or only counted), `none` (emits not timed).
   */
  mode: 'ack' | 'reply' | 'listen' | 'none';
  /** The event `reply` waits for, or `listen` listens to. */
  event?: string;
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
  /** `stream`: the histograms behind `result.stream` and each second's first-event histogram. */
  stream?: StreamMergeInfo;
}

/** One monitored source's readings, one per timeline second (`null` where it did not answer). */
export interface ServerSeries {
  source: string;
  scope: 'process' | 'machine';
  /** The cores its CPU is out of: the machine's (node_exporter's CPUs; this machine's for a pid); absent when unknown. */
  cores?: number;
  /** The first failure, if any. */
  error?: string;
  /** Another source that watched the same process (the same start time and CPU): this one is not counted. */
  sameProcessAs?: string;
  /** Wall-clock start of its first second, epoch ms (the run's `startedAt`). */
  startedAt: number;
  seconds: Array<ServerReadingSecond | null>;
}

/** What one source said over one second: counters as differences, gauges at the second's end. */
export interface ServerReadingSecond {
  wallMs: number;
  cpuMs?: number;
  /** A process's resident memory, or the machine's memory in use. */
  rssBytes?: number;
  /** The machine's network bytes, less the monitor's own scrapes of it. */
  receivedBytes?: number;
  sentBytes?: number;
  eventLoopLagMs?: number;
}

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

/** One error kept with its message (`result.errors.samples`): what a count alone cannot say. */
export interface ErrorSample {
  /** The `errors.byCode` key it was counted under. */
  code: string;
  message: string;
  /** The top lines of its stack, where it was thrown. */
  stack?: string;
  /** For an exception of the user's code: which function threw, as the options name it (`requests[1].setupRequest`). */
  where?: string;
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
  /**
   * Median latency of responses completed during this second, ms. NaN (`null` once the result is
   * JSON) in a second that timed nothing (no response completed, or no message carried a
   * timestamp): no latency is not zero latency.
   */
  p50: number;
  /** 99th percentile latency of responses completed during this second, ms; NaN (`null` in JSON) as `p50`. */
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
  /** Each request name's share of this second (see `LoadResult.byName`). */
  byName?: Record<string, NameSecond>;
  /** A `stream` run's events, tokens and first-event times in this second. */
  stream?: StreamSecond;
}

/** One request name's part of a timeline second. */
export interface NameSecond {
  sent: number;
  completed: number;
  errors: number;
  /** The name's latencies in this second, ms; NaN (`null` in JSON) when it timed nothing (see `TimelineEntry.p50`). */
  p50: number;
  p99: number;
}

/**
 * One request name's statistics (`result.byName`): the run's own numbers, for the requests of that
 * name only. Connections are the run's: a name's `phases` have its `ttfb` and `receive`, and
 * `connect` and `tls` only when the run has a single name. `requests.missed` is the run's with a
 * single name and 0 with several: a slot that was never sent had no request, so no name, yet.
 */
export interface NameStats {
  requests: LoadResult['requests'];
  latency: LatencyStats;
  latencyUncorrected: LatencyStats;
  statusCodes: Record<string, number>;
  errors: { total: number; byCode: Record<string, number> };
  /** The name's failed requests (see `LoadResult.failed`). */
  failed: FailedStats;
  bytes: { sent: number; received: number };
  phases: Phases;
  phaseHistograms: PhaseHistograms;
  checks?: CheckStats;
  /** The name's latency histograms, encoded as `result.histogram`, for exact merging. */
  histogram: string;
  histogramUncorrected: string;
  /** The name's streams (`stream`), as `result.stream`. */
  stream?: StreamStats;
  /** Its per-second latency histograms, one per `result.timeline` entry (`''` where none), and its streams' histograms. */
  merge: { timeline: string[]; stream?: StreamMergeInfo };
}

/**
 * One second of the watched server (`timeline[i].server`): the watched processes (pids, prom-client
 * apps) added up, and the machine (node_exporter) apart; a field no source gave is absent.
 */
export interface ServerSecond {
  /** The processes' CPU, 100 = one core. */
  cpuPercent?: number;
  /** The processes' resident memory at the end of the second, bytes. */
  rssBytes?: number;
  /** A prom-client app's event-loop lag (its p99 when it exports one), ms. */
  eventLoopLagMs?: number;
  /** The whole machine, from node_exporter: load generator included when it runs there. */
  machine?: MachineSecond;
}

/** One second of the machine (`timeline[i].server.machine`), from node_exporter. */
export interface MachineSecond {
  /** Busy CPU over all its cores, 100 = one core. */
  cpuPercent?: number;
  /** Memory in use (MemTotal - MemAvailable) at the end of the second, bytes. */
  usedBytes?: number;
  /** Network bytes received and sent per second, on the chosen devices, less the monitor's own scrapes. */
  receivedBytesPerSecond?: number;
  sentBytesPerSecond?: number;
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
  /** Another source that watched the same process: this one's figures are not added to the server's. */
  sameProcessAs?: string;
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
 * The system under test over the measured run (`result.server`), from `monitor`. The figures at the
 * top are the watched processes (pids, prom-client apps), each process counted once; the machine
 * (node_exporter) is `machine`, never the server's figures. A field no source gave is absent, never zero.
 */
export interface ServerStats {
  /** The processes' CPU, 100 = one core. */
  cpuPercent?: number;
  /**
   * The processes' CPU per completed request (per received message in a WebSocket or Socket.IO run),
   * ms: over the seconds the CPU sources answered.
   */
  cpuPerRequestMs?: number;
  /** The processes' resident memory, added up: mean and highest, bytes. */
  memory?: { rssBytes: number; peakRssBytes: number };
  /** Highest event-loop lag of a second, ms (prom-client apps). */
  eventLoopLagMs?: number;
  /** The cores the processes' CPU is out of (`cpuPercent` 100 × cores is all of them), when the sources say. */
  cores?: number;
  /** The machine, from node_exporter (its CPU and network include salvo's own when salvo runs there). */
  machine?: MachineStats;
  /** What was read, and whether it answered. */
  sources: ServerSourceStats[];
}

/** `result.server.machine`: what node_exporter said of the whole machine over the measured run. */
export interface MachineStats {
  /** Busy CPU over all its cores, 100 = one core. */
  cpuPercent?: number;
  /** Its cores (node_exporter machines added up). */
  cores?: number;
  /** Memory in use (MemTotal - MemAvailable): mean and highest, bytes. */
  memory?: { usedBytes: number; peakUsedBytes: number };
  /** Network bytes per second on the chosen devices, less the monitor's own scrapes. */
  network?: { receivedBytesPerSecond: number; sentBytesPerSecond: number };
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
  /** What the pre-warm cost (`prewarm`); absent when no thread pre-warmed. */
  prewarm?: PrewarmStats;
}

/** `result.failed`: failed requests (see `LoadResult.failed`). */
export interface FailedStats {
  /** Errors plus responses whose status the run does not accept. */
  total: number;
  /** The responses whose status the run does not accept, by status (the errors are in `errors.byCode`). */
  byStatus: Record<string, number>;
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
  /** The metric's value; for a windowed threshold the worst window's (the one furthest from passing). */
  actual: number;
  passed: boolean;
  /** Why it failed when that is not its value: a `{name:...}` or `{scenario:...}` the run does not have. */
  message?: string;
  /** A threshold with `window`: how every window of the run fared. */
  windows?: ThresholdWindows;
}

/**
 * The windows a windowed threshold was judged on: every span of `durationMs` whole seconds of the
 * timeline, one second apart (a run shorter than a window is one window). Seconds count from 0 as in
 * `timeline`; latency in a window comes from its seconds' histograms added together.
 */
export interface ThresholdWindows {
  /** The window's length, ms. */
  durationMs: number;
  /** How many windows were judged. */
  judged: number;
  /** The windows where the expression failed: seconds `from` (inclusive) to `to` (exclusive), and the value there. */
  failed: Array<{ from: number; to: number; actual: number }>;
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
    /**
     * Requests sent: written, or failed before they could be (a refused connection, a failed TLS
     * handshake, a `setupRequest` that threw), each with its error.
     */
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
    /**
     * Requests sent that had no answer yet when the run ended (a server that hangs, a slow response
     * at the end): `sent = completed + errors.total + unfinished`.
     */
    unfinished: number;
    /**
     * Requests sent during the warm-up (`warmup`), counted as `sent` counts them, and in no other
     * count or statistic. Absent from a run without a warm-up.
     */
    warmup?: number;
  };
  /** WebSocket runs: messages sent and received. */
  messages?: MessageStats;
  /** WebSocket runs: close codes and the per-stage summary. */
  websocket?: WebSocketStats;
  /** `stream`: time to first event, gaps between events, events, and the LLM figures with `tokens`. */
  stream?: StreamStats;
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
  /**
   * Errors by code; `samples`: the first few errors that came with a message (a task's exception),
   * at most 3 per code and 10 in all, absent when there were none.
   */
  errors: { total: number; byCode: Record<string, number>; samples?: ErrorSample[] };
  /**
   * Failed requests, as k6's `http_req_failed`: a response whose status the run does not accept (by
   * default 400 and above; `expect.status` sets what is accepted), or a request that ended in an
   * error.
   */
  failed: FailedStats;
  bytes: { sent: number; received: number };
  /** Length of the measured part of the run. */
  durationMs: number;
  /** Wall-clock start of the measured run, epoch ms (with sub-ms precision). */
  startedAt: number;
  timeline: TimelineEntry[];
  /** True when the run was ended by `signal` or an `abortOnFail` threshold. */
  aborted: boolean;
  /**
   * Per request name (`name`, or `METHOD /path`): the same statistics for that name's requests. They
   * add up to the run's. Absent in a WebSocket run.
   */
  byName?: Record<string, NameStats>;
  /**
   * A run with `scenarios`: each scenario's own result, as `runLoad` would give it for that scenario
   * alone. The run's numbers are their exact sum.
   */
  byScenario?: Record<string, LoadResult>;
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

/**
 * `result.stream`: responses read as event streams. Times in ms; `firstEvent`, `ttft` count from the
 * request's intended send time, as `latency` does.
 */
export interface StreamStats {
  format: StreamFormat;
  /** Streamed responses that ended (their body's end, or `until`). */
  streams: number;
  /** Of them, ended by `until`. */
  ended: number;
  /** Events received, those of streams still open at the run's end included. */
  events: number;
  /** Events per second of the measured run. */
  perSecond: number;
  /** Mean events per ended stream: the events of the `streams`, over them (streams still open at the end count in neither). */
  eventsPerStream: number;
  /** Time to first event: from the request to its response's first complete event. */
  firstEvent: LatencyStats;
  /** Every gap between consecutive events of a response. */
  gap: LatencyStats;
  /** From a stream's first event to its end. */
  duration: LatencyStats;
  /** `timestamp`: each event's arrival minus the send time it carries. */
  delivery?: LatencyStats;
  /**
   * `tokens`: output tokens received (reasoning ones included, as OpenAI's `completion_tokens`), those
   * of streams still open at the run's end included; an ended stream whose server reported `usage`
   * counts the server's number.
   */
  outputTokens?: number;
  /** `tokens`: output tokens per second of the measured run (vLLM's output token throughput). */
  outputTokensPerSecond?: number;
  /** `tokens`: mean output tokens per ended stream, of the ended streams only (GenAI-Perf's output sequence length). */
  outputTokensPerStream?: number;
  /** `tokens`: time to first token, from the request to the first event with a token, reasoning or answer. */
  ttft?: LatencyStats;
  /** `tokens`: time to the first answer token (past any reasoning), from the request; equal to `ttft` for a stream without reasoning. */
  answerTtft?: LatencyStats;
  /**
   * `tokens`: inter-token latency: an event carrying k tokens g ms after the last event with tokens
   * gives k values of g / k (vLLM's ITL); the first event's tokens give TTFT only.
   */
  itl?: LatencyStats;
  /** `tokens`: reasoning tokens (`reasoning_content`, `reasoning`, `thinking` beside the answer's path; the server's `reasoning_tokens` when it reports them). */
  reasoningTokens?: number;
  /** `tokens`: input (prompt) tokens of the ended streams whose server reported `usage`. */
  inputTokens?: number;
  /** `tokens`: mean input tokens per stream that reported `usage`. */
  inputTokensPerStream?: number;
  /** `tokens`: ended streams whose token counts came from the server's `usage`. */
  usageStreams?: number;
  /** `tokens`: time per output token after the first, per stream: (end - first token) / (tokens - 1). */
  tpot?: LatencyStats;
  /** `subscribe`: the clients' long-lived subscriptions. */
  subscriptions?: SubscriptionStats;
}

/**
 * `result.stream.subscriptions`: SSE subscriptions held for the run (`stream.subscribe`). The events,
 * their rate and their delivery times are `result.stream`'s `events`, `perSecond` and `delivery`.
 */
export interface SubscriptionStats {
  /** Subscriptions the server accepted (a 200 `text/event-stream` head), reconnections included. */
  subscribed: number;
  /** Subscriptions open when the run ended. */
  open: number;
  /** Subscription requests sent again after a close the client did not ask for. */
  reconnects: number;
  /**
   * Subscriptions that ended, by cause, salvo's own closes (ramp-downs, the run's end) aside:
   * `ended` (the server ended the response), `lost` (the connection broke mid-stream), `failed` (no
   * response: refused, reset, `TIMEOUT`), which reconnect after the server's `retry:`; and
   * `noContent` (a 204) and `rejected` (another status, or no `text/event-stream`), which stop the
   * client, as they stop an EventSource.
   */
  closes: Record<string, number>;
  /**
   * Per connection stage (`stages`), as `websocket.stages`: `sent` counts subscription requests,
   * `received` events, `perSecond` events per second, `p50` and `p99` their delivery times.
   */
  stages?: WebSocketStageStats[];
}

/** A timeline second's streams (`timeline[i].stream`). */
export interface StreamSecond {
  events: number;
  outputTokens: number;
  /** Time to first event of the streams whose first event came in this second, ms; NaN (`null` in JSON) in a second with none. */
  firstEventP50: number;
  firstEventP99: number;
  /** `tokens`: time to first token of the streams whose first token came in this second, ms; NaN as `firstEventP50`. */
  ttftP50?: number;
  ttftP99?: number;
}
