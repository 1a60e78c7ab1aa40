import type { Warning } from './warnings.js';
import type { AgentResult } from './agents.js';
import type { PrewarmStats } from './prewarm.js';
import type { StreamMergeInfo } from './stream.js';
import type { LatencyStats, Phases, PhaseHistograms } from './latency-result.js';
import type { ResultTransport, MergeInfo } from './merge-info.js';
import type { ServerSecond, ServerStats } from './server-result.js';
import type { StreamStats, StreamSecond } from './stream-result.js';
import type { GoodputStats } from './llm.js';
import type { MessageStats, WebSocketStats } from './websocket-result.js';

// The result's parts live in their own files (latency, merge info, server, stream, WebSocket); they are
// re-exported here so that `load-result.js` stays the one place to import a result type from.
export type { LatencyStats, PhaseStats, Phases, PhaseHistograms } from './latency-result.js';
export type { ResultTransport, MergePlan, MergeSocketIo, MergeInfo } from './merge-info.js';
export type {
  ServerSeries,
  ServerReadingSecond,
  ServerSecond,
  MachineSecond,
  ServerSourceStats,
  ServerStats,
  MachineStats,
} from './server-result.js';
export type { StreamStats, SubscriptionStats, StreamSecond } from './stream-result.js';
export type { MessageStats, WebSocketStageStats, WebSocketStats } from './websocket-result.js';
export type { PrewarmStats } from './prewarm.js';

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

/** One change made while a run went (`startLoad`'s handle): the result's `steps`. */
export interface SteerStep {
  /** When it took effect, ms into the measured run (0 for a change made before measuring started). */
  atMs: number;
  /** The new total target rate, req/s. */
  rate?: number;
  /** The new total connections. */
  connections?: number;
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
     * Redirects followed within requests (`followRedirects`): each is a hop of one request, not a
     * request of its own; absent when none was followed.
     */
    redirects?: number;
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
  /** `slo`: the streamed answers that met every objective, and per second (see docs/llm.md). */
  goodput?: GoodputStats;
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
  /** True when the run was ended by `signal`, an `abortOnFail` threshold or `startLoad`'s `stop()`. */
  aborted: boolean;
  /** The changes `startLoad`'s handle made while the run went (`setRate`, `setConnections`), in order. */
  steps?: SteerStep[];
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
  /** A coordinated run (`agents`): each agent's segment and counts, and what a lost one had counted. */
  agents?: AgentResult[];
}
