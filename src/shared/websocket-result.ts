// What only WebSocket and Socket.IO runs' results have.
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
