// The options of WebSocket and Socket.IO runs and of `monitor`, apart from LoadOptions to keep each file readable.

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
