import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { buildConnector as BuildConnector, Dispatcher, Pool } from 'undici';
import type { PhaseRecorder } from '../stats/phases.js';
import { watchConnect } from './connect-timing.js';
import type { ResolvedRequest } from '../shared/exchange.js';
import type { Transport, TransportConfig, TransportFactory, TransportSink } from './transport.js';
import { flattenHeaders, Lane, responseHeadBytes } from './transport.js';
import { encodeRequest } from '../http1/request.js';
import { CONNECTION_CLOSED, errorCode } from './error-code.js';
import { cachedLookup } from './lookup-cache.js';
import { sharedSecureContext } from './tls-setup.js';

interface UndiciRequest {
  options: Dispatcher.DispatchOptions;
  wireBytes: number;
}

/**
 * The dispatch handler of one lane, reused for every request on it. A cancelled request may still
 * call back later, so cancel() retires the handler (`lane` set to null) and the lane gets a new one.
 */
class LaneHandler implements Dispatcher.DispatchHandler {
  controller: Dispatcher.DispatchController | undefined;
  status = 0;
  bytes = 0;
  headers: Record<string, string> | undefined;
  chunks: Buffer[] = [];
  /** undici started the request on a connected socket (`onRequestStart`): it reached the wire. */
  written = false;

  constructor(
    public lane: Lane | null,
    readonly transport: UndiciTransport,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.lane === null) {
      // Cancelled (timed out) while still queued in the Pool: the engine counted it as never sent
      // and the lane has sent another, so it must not reach the wire. undici has no way to take a
      // request out of its queue; aborting here, before the write, closes the socket it was about to
      // go out on. Nothing is in flight there: what was queued before it timed out before it.
      controller.abort(new Error('cancelled before it was written'));
      return;
    }
    if (this.written) {
      // undici sends again the pipelined requests behind the head of a connection that closed (a
      // timeout cancelled the head, the server closed after a response): the server would see
      // them twice. As on `net`, a request in flight on a connection that closed is ECONNCLOSED,
      // never re-sent. The abort closes the fresh socket before anything is written on it.
      controller.abort(Object.assign(new Error('its connection closed while it was in flight'), { code: CONNECTION_CLOSED }));
      return;
    }
    this.controller = controller;
    this.status = 0;
    this.written = true;
    // undici starts a request when it writes it to a ready socket, not when it is dispatched.
    if (this.lane !== null) this.lane.writtenAt = performance.now();
  }

  /** llhttp's message begin: the first byte of the response. */
  onResponseStarted(): void {
    if (this.lane !== null && this.lane.firstByteAt === 0) this.lane.firstByteAt = performance.now();
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
    statusMessage?: string,
  ): void {
    this.status = statusCode;
    const raw = controller.rawHeaders;
    this.bytes = responseHeadBytes(statusMessage, Array.isArray(raw) ? raw : []);
    if (this.transport.capture) this.headers = flattenHeaders(headers);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.transport.capture) this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const lane = this.lane;
    if (lane === null) return;
    this.controller = undefined;
    if (this.transport.capture) {
      const body = Buffer.concat(this.chunks);
      this.chunks = [];
      this.transport.sink.onResponse(lane, this.status, this.bytes, { headers: this.headers ?? {}, body });
    } else {
      this.transport.sink.onResponse(lane, this.status, this.bytes);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const lane = this.lane;
    if (lane === null) return;
    this.controller = undefined;
    const code = errorCode(error);
    // undici checks Content-Length against the body even for 204 and 304, which never have one
    // (RFC 9110 8.6 allows the header on a 304), and fails the request after its final status
    // arrived. The response did arrive whole: count it as the response it is.
    if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' && (this.status === 204 || this.status === 304)) {
      this.onResponseEnd();
      return;
    }
    this.chunks = [];
    this.transport.sink.onError(lane, code, !this.written);
  }
}

/** undici's Pool with `connections` sockets and `pipelining` requests in flight on each. */
class UndiciTransport implements Transport<UndiciRequest> {
  readonly #config: TransportConfig;
  readonly #pool: Pool;
  readonly #handlers: LaneHandler[] = [];
  readonly sink: TransportSink;
  readonly capture: boolean;

  constructor(PoolClass: typeof Pool, buildConnector: typeof BuildConnector, config: TransportConfig, sink: TransportSink) {
    this.#config = config;
    this.sink = sink;
    this.capture = config.captureResponses;
    this.#pool = new PoolClass(config.url.origin, {
      connections: config.connections,
      pipelining: config.pipelining,
      // The engine enforces the per-request timeout; undici's own timers would race it.
      headersTimeout: 0,
      bodyTimeout: 0,
      // undici's connector resumes TLS sessions itself (its cache of 100 per origin, given to
      // buildConnector: the Pool's own maxCachedSessions is ignored with a connector function); it
      // gets one secure context for all its connections, and no cache when full handshakes are asked for.
      connect: timedConnector(
        buildConnector({
          ...config.tls,
          lookup: cachedLookup(),
          ...(config.url.protocol === 'https:' ? { secureContext: sharedSecureContext(config.tls ?? {}) } : {}),
          ...(config.tlsSessionReuse ? {} : { maxCachedSessions: 0 }),
        } as BuildConnector.BuildOptions),
        config.url.protocol === 'https:',
        config.phases,
      ),
    });
  }

  prepare(request: ResolvedRequest): UndiciRequest {
    return {
      options: {
        path: request.path,
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        body: request.body ?? null,
        // reset: true sends `connection: close` and does not reuse the socket.
        reset: !this.#config.keepAlive,
        // undici holds the pipeline behind any request but HEAD until its response head arrives
        // (`blocking`), and behind any but GET and HEAD until its response ends (`idempotent`): with
        // them `pipelining` kept one request in flight, and the wait behind it counted as latency.
        // Asked for pipelining, every request is pipelined, as on `net`.
        blocking: false,
        ...(this.#config.pipelining > 1 ? { idempotent: true } : {}),
      },
      wireBytes: encodeRequest(this.#config.url, request, this.#config.keepAlive).length,
    };
  }

  send(lane: Lane, prepared: UndiciRequest): number {
    let handler = this.#handlers[lane.id];
    if (handler === undefined) {
      handler = new LaneHandler(lane, this);
      this.#handlers[lane.id] = handler;
    }
    handler.written = false;
    this.#pool.dispatch(prepared.options, handler);
    return prepared.wireBytes;
  }

  cancel(lane: Lane, code: string): void {
    const handler = this.#handlers[lane.id];
    if (handler === undefined || handler.lane === null) return;
    handler.lane = null;
    this.#handlers[lane.id] = new LaneHandler(lane, this);
    handler.controller?.abort(new Error(code));
    this.sink.onError(lane, code, !handler.written);
  }

  unwritten(lane: Lane): boolean {
    const handler = this.#handlers[lane.id];
    return handler !== undefined && handler.lane !== null && !handler.written;
  }

  async connect(): Promise<void> {
    // undici connects on the first dispatch; a Pool has no way to open sockets ahead of requests.
  }

  release(): void {
    // The Pool keeps its sockets and closes idle ones after keepAliveTimeout.
  }

  openConnections(): number {
    return this.#pool.stats.connected;
  }

  async close(): Promise<void> {
    for (const handler of this.#handlers) if (handler) handler.lane = null;
    await this.#pool.destroy();
  }
}

/**
 * undici's own connector, with each new socket's connect and TLS times recorded. Not undici's
 * diagnostics channels: they are process-wide (Node's bundled fetch and every other Pool publish
 * there too), cannot tell TCP connect from TLS, and once subscribed make undici build a message per
 * request. The connector returns the socket it opens, although its type says void.
 */
function timedConnector(connector: BuildConnector.connector, secure: boolean, phases: PhaseRecorder): BuildConnector.connector {
  return (options, callback) => {
    const socket = (connector as (...args: Parameters<BuildConnector.connector>) => Socket | undefined)(options, callback);
    if (socket !== undefined) watchConnect(socket, secure, phases);
  };
}

/** Imports undici (only when this transport is chosen) and returns the factory. */
export async function loadUndiciTransport(): Promise<TransportFactory> {
  const { Pool, buildConnector } = await import('undici');
  return (config, sink) => new UndiciTransport(Pool, buildConnector, config, sink);
}
