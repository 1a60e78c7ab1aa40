/**
 * The WebSocket run's plain-data shapes: its part of the Plan, and what one thread measured beyond
 * the Recorder's counts.
 */
import type { WebSocketOptions } from './load-options.js';

/** The `websocket` option after validation, as plain data that crosses into worker threads. */
export interface PlannedWebSocket {
  /** A fixed message: text, or binary bytes (a Buffer arrives in a worker as a Uint8Array). */
  message: string | Uint8Array | undefined;
  /** `message` is a function (in `PlanHooks.websocket`): this thread builds each message. */
  dynamicMessage: boolean;
  /** Messages per second per connection; undefined: the next one as soon as the reply came. */
  rate: number | undefined;
  /** `timestamp: { field }`: the JSON field holding the send time. */
  timestampField: string | undefined;
  /** `timestamp` is a function (in `PlanHooks.websocket`). */
  timestampFunction: boolean;
  perMessageDeflate: boolean;
  protocols: string[];
  /** Headers of the opening handshake (the run's `headers`). */
  headers: Record<string, string>;
}

/** The `websocket` functions, which stay in the thread that planned the run. */
export interface WebSocketHooks {
  message?: Extract<WebSocketOptions['message'], (...args: never[]) => unknown>;
  timestamp?: Extract<WebSocketOptions['timestamp'], (...args: never[]) => unknown>;
}

/** One connection stage as one thread measured it. */
export interface ShardStage {
  /** Time spent in the stage, ms. */
  durationMs: number;
  /** This thread's share of the stage's connections. */
  connections: number;
  /** This thread's connections open at the stage's end. */
  open: number;
  sent: number;
  received: number;
  /** Latencies timed during the stage (µs, compressed base64). */
  histogram: string;
}

/** What one thread of a WebSocket run measured besides the Recorder's numbers. */
export interface ShardWebSocket {
  closeCodes: Record<string, number>;
  stages: ShardStage[] | undefined;
}
