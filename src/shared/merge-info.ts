// What `mergeResults` needs besides a result's numbers: the run's plan as JSON and its histograms.
import type { ServerSeries } from './server-result.js';
import type { RunKind } from './run-kind.js';
import type { StreamMergeInfo } from './stream.js';
import type { Segment, Thresholds, TransportName } from './terms.js';

/**
 * What a result's `transport` says: the HTTP client used, `'websocket'` for a `ws:`/`wss:` run,
 * `'socket.io'` for a run with `socketio`, or `'task'` for a run of a user's function (`task`).
 */
export type ResultTransport = TransportName | 'websocket' | 'socket.io' | 'task';

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
