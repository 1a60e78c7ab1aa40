// What the test server counts in each of its modes: the ground truth a load test's numbers are
// checked against. A file of its own, so that server.ts and each mode's file (h2-server.ts,
// ws-server.ts), which fill it, import it without a cycle.

/** What the test server counted: the ground truth for a load test's numbers. */
export interface TestServerStats {
  /** Complete requests received. */
  requests: number;
  /** Connections accepted. */
  connections: number;
  /** Connections open now. */
  openConnections: number;
  /** Bytes received from clients. */
  bytesReceived: number;
  /** Bytes written to clients. */
  bytesSent: number;
  /** Requests per status code answered. */
  statusCodes: Record<string, number>;
  /**
   * Mean delay actually applied to delayed responses, ms, from the request's arrival to the write:
   * the ground truth for a client's latency (timers and a busy machine can add to `delayMs`).
   */
  appliedDelayMs: number;
  /** HTTP/2 mode only: sessions, streams and the most streams in flight on one session. */
  h2?: H2Stats;
  /** WebSocket mode only: messages received and sent, broadcasts, closes and garbage frames. */
  websocket?: WebSocketServerStats;
}

/** What the HTTP/2 mode counts, in `stats.h2`. */
export interface H2Stats {
  /** Sessions (connections) accepted. */
  sessions: number;
  /** Streams opened by clients, answered or not. */
  streams: number;
  /** The most requests any one session had received and not yet answered at the same time. */
  maxStreamsInFlight: number;
  /** Streams reset by `resetEvery`. */
  resets: number;
  /** GOAWAY frames sent by `goawayAfter`. */
  goaways: number;
}

/** What the WebSocket mode counts, in `stats.websocket`. */
export interface WebSocketServerStats {
  /** Messages received from clients. */
  messagesReceived: number;
  /** Messages sent to clients: echoes and broadcast deliveries. */
  messagesSent: number;
  /** Broadcast rounds sent (each to every open connection). */
  broadcasts: number;
  /** Connections closed by `closeAfter`, and garbage frames written by `garbageAfter`. */
  closed: number;
  garbage: number;
}

/** Zeroes the counts every mode keeps (`reset()`); open connections stay as they are. */
export function resetCounts(stats: TestServerStats): void {
  Object.assign(stats, {
    requests: 0,
    connections: 0,
    bytesReceived: 0,
    bytesSent: 0,
    statusCodes: {},
    appliedDelayMs: 0,
  });
}
