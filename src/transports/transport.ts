import type { ConnectionOptions } from 'node:tls';
import type { ResolvedRequest, ResponseDetails } from '../shared/exchange.js';
import type { PhaseRecorder } from '../stats/phases.js';

/**
 * One request slot. The engine owns lanes and sends at most one request on a lane at a time; a
 * connection carries `pipelining` lanes. Fields are plain so that the hot path allocates nothing.
 */
export class Lane {
  /** Request written at (performance.now() ms). */
  sentAt = 0;
  /** Request was due at (open loop: its scheduled time; closed loop: equal to `sentAt`). */
  intendedAt = 0;
  /** A request is in flight on this lane. */
  busy = false;
  /** Counted in the statistics (false during warm-up). */
  measured = true;
  /** Index of the request within the sequence being sent. */
  requestIndex = 0;
  /**
   * Request fully written (performance.now() ms): the engine sets `sentAt`, a transport moves it
   * later when the request waited for its connection to open.
   */
  writtenAt = 0;
  /**
   * First byte of the response, set by the transport: a time, `FIRST_BYTE_IN_LAST_READ`, or 0 when
   * it cannot tell (then no `ttfb` or `receive` is recorded).
   */
  firstByteAt = 0;
  /** Bytes of the request on this lane, as `send` returned them. */
  sentBytes = 0;
  /**
   * The request on this lane was sent again (set by the transport as it calls `onRetry`; the engine
   * clears it on each new request): a request is retried once.
   */
  retried = false;
  /** Consecutive errors, for the engine's reconnect backoff. */
  failures = 0;
  /** Its last errors say the server is down (see the engine's `DownServer`). */
  down = false;
  /** Open loop: when the lane last became free for a slot (performance.now() ms; 0 before the start). */
  freedAt = 0;

  constructor(
    /** Index among this thread's lanes. */
    readonly id: number,
    /** Index of the connection that carries this lane (`id / pipelining` rounded down). */
    readonly connection: number,
  ) {}
}

/**
 * `Lane.firstByteAt` of a response that arrived whole in the read that completed it: its first byte
 * came when it was delivered, and the transport saves a clock read per response by saying so.
 */
export const FIRST_BYTE_IN_LAST_READ = -1;

/** What a transport calls back. Each request sent ends in exactly one `onResponse` or `onError`. */
export interface TransportSink {
  /**
   * The response to the lane's request has fully arrived (1xx informational responses excluded).
   * `details` is given only when the transport was created with `captureResponses`.
   */
  onResponse(lane: Lane, status: number, bytesReceived: number, details?: ResponseDetails): void;
  /**
   * The lane's request failed: a network error code, `TIMEOUT`, or `HPE_*` for a malformed response.
   * `unsent`: it never reached the wire (its connection never opened: refused, a TLS handshake or
   * certificate that failed), so it is taken back out of `requests.sent` and `bytes.sent`.
   */
  onError(lane: Lane, code: string, unsent?: boolean): void;
  /**
   * More of the lane's request went out after `send` returned (`bytes` of it): an HTTP/2 body that
   * flow control held back. Added to `bytes.sent`, so a body that never got its window is not counted.
   */
  onSentMore?(lane: Lane, bytes: number): void;
  /**
   * With `TransportConfig.stream`: body bytes `data[start, end)` of the lane's response as they arrive
   * (the buffer may be reused after the call). Returning false ends the response there: the transport
   * reports `onResponse` for it with the bytes received so far and discards the rest (HTTP/1.1
   * closes the connection, HTTP/2 cancels the stream); nothing is counted as an error.
   */
  onBody?(lane: Lane, data: Uint8Array, start: number, end: number): boolean;
  /**
   * With `TransportConfig.heads`: the final response's head arrived (status and `content-type`),
   * before any of its body. Returning false ends the response there, as `onBody` returning false does.
   */
  onHead?(lane: Lane, status: number, contentType: string | undefined): boolean;
  /**
   * With `TransportConfig.stream`: the final response's body is content-coded (its `content-encoding`
   * header, repeated ones joined with ', '), told before any of its body, whose bytes `onBody` gets
   * as they came on the wire. Returning false ends the response there, as `onBody` returning false does.
   */
  onEncoding?(lane: Lane, contentEncoding: string): boolean;
  /**
   * The lane's request was sent again on a new connection, `bytes` of it written, because the server
   * provably never processed the first send (`TransportConfig.retry`). It stays one request: counted
   * once in `requests.sent`, timed from its first send, and it still ends in one `onResponse` or
   * `onError`. The bytes are added to `bytes.sent` (they went on the wire) and the retry is counted
   * in `requests.retried`.
   */
  onRetry?(lane: Lane, bytes: number): void;
  /**
   * A finding about the run that the counts alone do not show (`result.warnings`), such as a server
   * that allows fewer HTTP/2 streams than asked for. The first message for a code wins.
   */
  onWarning?(code: string, message: string): void;
}

/** Settings every transport gets, resolved from the options once. */
export interface TransportConfig {
  url: URL;
  /** Connections this thread opens. */
  connections: number;
  /** Requests in flight per connection. */
  pipelining: number;
  keepAlive: boolean;
  tls: ConnectionOptions | undefined;
  /** Resume TLS sessions on new connections (`tlsSessionReuse`); false forces full handshakes. */
  tlsSessionReuse: boolean;
  /** Per-request timeout, ms; the engine enforces it with `cancel`, the transport may use it as a bound. */
  timeoutMs: number;
  /**
   * Send again, once and on a new connection, a request the server provably never processed (the
   * `retry` option); report it with `onRetry`. False: every such close is an error.
   */
  retry: boolean;
  /** Deliver headers and body to `onResponse` (checks and hooks need them). */
  captureResponses: boolean;
  /** Hand every response's body bytes to `onBody` as they arrive (`stream`). */
  stream?: boolean;
  /** Tell `onHead` of every response's head as it arrives (SSE subscriptions check it before the body). */
  heads?: boolean;
  /** Where the transport records each new connection's connect and TLS times (`watchConnect`). */
  phases: PhaseRecorder;
}

/**
 * A way of sending HTTP requests. One file per backend in this folder; nothing transport-specific
 * leaks into the engine. `P` is the transport's own pre-encoded form of a request.
 */
export interface Transport<P = unknown> {
  /** Encodes a request once; the result is passed to `send` as often as needed. */
  prepare(request: ResolvedRequest): P;
  /**
   * Sends `request` on `lane` (lane.connection says which connection). Returns the bytes written, or
   * the best estimate the backend allows. Opens the connection first when it is not open.
   */
  send(lane: Lane, request: P): number;
  /**
   * Ends the lane's request now (timeout or stop): the transport reports `onError(lane, code)` for it,
   * and for every other lane whose request was lost with it, exactly once each, before returning.
   */
  cancel(lane: Lane, code: string): void;
  /**
   * At the end of a run: whether the request in flight on `lane` has not reached the wire yet (it
   * waits for its connection to open, or in the backend's own queue), so it is not counted as sent.
   */
  unwritten?(lane: Lane): boolean;
  /**
   * Opens the first `count` connections ahead of the start (best effort: failures are left to
   * `send`); a ramp opens the others when it reaches them.
   */
  connect(count: number): Promise<void>;
  /** Closes connection `connection` once its lanes are idle (ramping connections down). */
  release(connection: number): void;
  /** Connections open now. */
  openConnections(): number;
  /**
   * Lanes per connection the server allows, once `connect` has learnt it (HTTP/2's
   * SETTINGS_MAX_CONCURRENT_STREAMS); the engine leaves a connection's lanes above it idle.
   * Undefined when every lane may be used.
   */
  lanesPerConnection?(): number | undefined;
  /** Destroys every connection. Requests still in flight are not reported. */
  close(): Promise<void>;
}

/**
 * Methods whose request may be sent twice with the effect of once (RFC 9110 9.2.2): what a transport
 * may send again after a close that left it unknown whether the server processed it.
 */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

export const isIdempotentMethod = (method: string): boolean => IDEMPOTENT_METHODS.has(method);

/** Creates a transport bound to a sink. */
export type TransportFactory = (config: TransportConfig, sink: TransportSink) => Transport;

/**
 * Bytes of a response head as it was on the wire, from what node:http and undici hand over parsed:
 * `HTTP/1.1 200 ` + reason + CRLF, `name: value` + CRLF per header line, and the blank line.
 */
export function responseHeadBytes(
  statusMessage: string | undefined,
  rawHeaders: ArrayLike<{ length: number }>,
): number {
  let bytes = 17 + (statusMessage?.length ?? 0);
  for (let i = 0; i < rawHeaders.length; i++) bytes += rawHeaders[i]!.length + 2;
  return bytes;
}

/** Node-style parsed headers to `ResponseDetails.headers` (repeats joined as `joinFieldValue` joins them). */
export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value !== undefined)
      flat[lower] = Array.isArray(value) ? value.join(lower === 'set-cookie' ? '\n' : ', ') : value;
  }
  return flat;
}
