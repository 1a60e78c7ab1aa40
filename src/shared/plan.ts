import type { ConnectionOptions } from 'node:tls';
import type { ResolvedRequest } from './exchange.js';
import type { ExpectOptions, LoadOptions, RequestSpec } from './load-options.js';
import type { Segment, Thresholds } from './terms.js';
import type { ResultTransport } from './load-result.js';
import type { PlannedWebSocket, WebSocketHooks } from './websocket.js';

/** A ramp stage with its duration resolved. */
export interface PlannedStage {
  durationMs: number;
  rate?: number;
  connections?: number;
}

/** One request of the sequence, resolved; `spec` keeps the user's hooks (in-process only). */
export interface PlannedRequest extends ResolvedRequest {
  dynamic: boolean;
  capture: boolean;
}

/**
 * The options after validation, with defaults applied. Everything but `hooks` is plain data, so a
 * Plan (or a shard of it) can be sent to a worker thread.
 */
export interface Plan {
  url: string;
  /** The HTTP transport, or `'websocket'` for a `ws:`/`wss:` url (then `websocket` is set). */
  transport: ResultTransport;
  connections: number;
  /** Measured run length; undefined when only `amount` bounds the run. */
  durationMs: number | undefined;
  amount: number | undefined;
  rate: number | undefined;
  stages: PlannedStage[] | undefined;
  pipelining: number;
  workers: number;
  keepAlive: boolean;
  requests: PlannedRequest[];
  /** The `file:`/`data:` URL `requests` was imported from; each worker imports it again for the hooks. */
  requestsModule: string | undefined;
  /**
   * A worker shard's offset into the rate schedule, in slots (0 <= phase < 1): shard i of n has i / n,
   * so the shards' sends interleave. Absent outside worker shards.
   */
  ratePhase?: number;
  timeoutMs: number;
  warmupMs: number;
  expect: ExpectOptions | undefined;
  thresholds: Thresholds | undefined;
  tls: ConnectionOptions | undefined;
  tlsSessionReuse: boolean;
  /** The share of the whole plan this run is; the plan itself stays whole until `run.ts` splits it. */
  segment: Segment | undefined;
  /** Wall-clock start of the measured run, epoch ms. */
  startAtMs: number | undefined;
  /** A WebSocket run (`ws:`/`wss:` url): what each connection does. */
  websocket: PlannedWebSocket | undefined;
}

/** The parts of the options that cannot leave this thread. */
export interface PlanHooks {
  requests: RequestSpec[] | undefined;
  signal: AbortSignal | undefined;
  onProgress: LoadOptions['onProgress'];
  /** A WebSocket run's `message` / `timestamp` functions. */
  websocket?: WebSocketHooks;
}
