/**
 * The WebSocket run's plain-data shapes: its part of the Plan, and what one thread measured beyond
 * the Recorder's counts.
 */
import type { WebSocketOptions } from './load-options.js';
import type { ShardStage } from './stage.js';

export type { ShardStage } from './stage.js';

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

/** What one thread of a WebSocket run measured besides the Recorder's numbers. */
export interface ShardWebSocket {
  closeCodes: Record<string, number>;
  stages: ShardStage[] | undefined;
}

/** The `socketio` option after validation, as plain data that crosses into worker threads. */
export interface PlannedSocketIo {
  /** The Engine.IO WebSocket url: `ws(s)://host/socket.io/?EIO=4&transport=websocket`. */
  engineUrl: string;
  namespace: string;
  /** The namespace connect's auth payload, as JSON. */
  authJson: string | undefined;
  /** The event each connection emits, its packet's arguments as JSON (`["echo",{"hello":1}]`). */
  emit: { event: string; argsJson: string } | undefined;
  /** Emits per second per connection; undefined: closed loop. */
  rate: number | undefined;
  /** Latency is the acknowledgement's round trip. */
  ack: boolean;
  /** Latency is the time to the next event of this name. */
  reply: string | undefined;
  /** Events timed by a timestamp field of their first argument (or only counted, without `timestamp`). */
  listen: { event: string; timestampField: string | undefined } | undefined;
  /** Headers of the opening handshake (the run's `headers`). */
  headers: Record<string, string>;
}
