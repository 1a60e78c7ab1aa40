import type { Socket } from 'node:net';
import type { buildConnector as BuildConnector, Client, Dispatcher } from 'undici';
import type { PhaseRecorder } from '../stats/phases.js';
import { watchConnect } from './connect-timing.js';
import type { ResolvedRequest } from '../shared/exchange.js';
import type { Transport, TransportConfig, TransportFactory, TransportSink } from './transport.js';
import { isIdempotentMethod, Lane } from './transport.js';
import { encodeRequest } from '../http1/request.js';
import { cachedLookup } from './lookup-cache.js';
import { sharedSecureContext } from './tls-setup.js';
import { PreopenedSockets } from './undici-preopen.js';
import { Fate, LaneHandler, SocketState, type HandlerTransport, type UndiciRequest } from './undici-handler.js';

/** undici's own header on a kept-alive request. */
const KEEP_ALIVE_HEADER_BYTES = 'connection: keep-alive\r\n'.length;
/** undici sends `content-length: 0` for these methods without a body (RFC 9110 8.6). */
const PAYLOAD_METHODS: ReadonlySet<string> = new Set(['PUT', 'POST', 'PATCH', 'QUERY', 'PROPFIND', 'PROPPATCH']);

/**
 * One undici Client per connection, `pipelining` requests in flight on each, each lane's requests on
 * its own connection's Client: the engine spreads the load over the connections (a Pool would hand
 * every request to its first Client with room, leaving the others idle at a modest rate).
 */
class UndiciTransport implements Transport<UndiciRequest>, HandlerTransport {
  readonly #config: TransportConfig;
  readonly #clients: Array<Client | undefined>;
  readonly #createClient: (connection: number) => Client;
  readonly #preopened: PreopenedSockets;
  /** Each lane's handler, by lane id. */
  readonly handlers: LaneHandler[] = [];
  readonly sink: TransportSink;
  readonly capture: boolean;
  readonly stream: boolean;
  readonly heads: boolean;
  readonly retry: boolean;
  readonly secure: boolean;
  /** The handler whose request undici is starting: the next socket write is its (see `timedConnector`). */
  writing: LaneHandler | undefined;
  /**
   * Each request is dispatched `blocking` (alone on its connection until its response head comes)
   * rather than pipelined behind a close: until a connection has answered a second response (the
   * server keeps connections open), and again once a connection closes after its first.
   */
  closesEveryResponse: boolean;
  /** A connection was reset under pipelined requests: no more pipelining (see `lostPipelined`). */
  #pipelinedLost = false;

  constructor(
    ClientClass: typeof Client,
    buildConnector: typeof BuildConnector,
    config: TransportConfig,
    sink: TransportSink,
  ) {
    this.#config = config;
    this.sink = sink;
    this.capture = config.captureResponses;
    this.stream = config.stream ?? false;
    this.heads = config.heads ?? false;
    this.retry = config.retry;
    this.secure = config.url.protocol === 'https:';
    this.closesEveryResponse = config.keepAlive && config.pipelining > 1;
    this.#clients = new Array<Client | undefined>(config.connections).fill(undefined);
    // undici's connector resumes TLS sessions itself (its cache of 100 per origin, given to
    // buildConnector: the Client's own maxCachedSessions is ignored with a connector function); it
    // gets one secure context for all its connections, and no cache when full handshakes are asked for.
    const tls = {
      ...config.tls,
      lookup: cachedLookup(),
      ...(this.secure ? { secureContext: sharedSecureContext(config.tls ?? {}) } : {}),
      ...(config.tlsSessionReuse ? {} : { maxCachedSessions: 0 }),
    };
    this.#preopened = new PreopenedSockets(
      timedConnector(buildConnector(tls as BuildConnector.BuildOptions), this.secure, config.phases, this),
      config.url,
    );
    const options: Client.Options = {
      pipelining: config.pipelining,
      // The engine enforces the per-request timeout; undici's own timers would race it.
      headersTimeout: 0,
      bodyTimeout: 0,
    };
    this.#createClient = (connection) =>
      new ClientClass(config.url.origin, { ...options, connect: this.#preopened.connectorFor(connection) });
  }

  #client(lane: Lane): Client {
    return (this.#clients[lane.connection] ??= this.#openClient(lane.connection));
  }

  /**
   * A Client whose connection failed to open keeps some queued requests (undici fails only those
   * for its server name after ERR_TLS_CERT_ALTNAME_INVALID): it is destroyed with the error, which
   * fails every request still queued on it, and the connection's next request gets a new Client.
   */
  #openClient(connection: number): Client {
    const client = this.#createClient(connection);
    client.on('connectionError', (_origin, _targets, error) => {
      if (this.#clients[connection] !== client) return;
      this.#clients[connection] = undefined;
      void client.destroy(error).catch(() => {});
    });
    return client;
  }

  prepare(request: ResolvedRequest): UndiciRequest {
    const options: Dispatcher.DispatchOptions = {
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
    };
    return {
      options,
      blockingOptions: { ...options, blocking: true },
      wireBytes: this.#wireBytes(request),
      idempotent: isIdempotentMethod(request.method),
    };
  }

  /** What a connection just showed of the server's closes (see `closesEveryResponse`). */
  learnCloses(closes: boolean): void {
    if (this.#config.keepAlive && this.#config.pipelining > 1 && !this.#pipelinedLost)
      this.closesEveryResponse = closes;
  }

  /**
   * A connection was reset under pipelined requests: its server's close destroys responses it sent
   * (RFC 9112 9.6; node:http closing with requests unread), which undici loses where `net` reads
   * them. Every request from then on is dispatched `blocking`, alone on its connection.
   */
  lostPipelined(): void {
    if (!this.#config.keepAlive || this.#config.pipelining === 1) return;
    this.#pipelinedLost = true;
    this.closesEveryResponse = true;
  }

  /** The bytes undici writes for `request`: salvo's encoding, with the headers undici adds itself. */
  #wireBytes(request: ResolvedRequest): number {
    const { keepAlive } = this.#config;
    let bytes = encodeRequest(this.#config.url, request, keepAlive).length;
    if (keepAlive) bytes += KEEP_ALIVE_HEADER_BYTES;
    if (request.body === undefined && PAYLOAD_METHODS.has(request.method)) bytes += 'content-length: 0\r\n'.length;
    return bytes;
  }

  send(lane: Lane, prepared: UndiciRequest): number {
    let handler = this.handlers[lane.id];
    if (handler === undefined) {
      handler = new LaneHandler(lane, this);
      this.handlers[lane.id] = handler;
    }
    handler.written = false;
    handler.resending = false;
    handler.request = prepared;
    this.#client(lane).dispatch(this.closesEveryResponse ? prepared.blockingOptions : prepared.options, handler);
    return prepared.wireBytes;
  }

  /** Dispatches a handler's request again (a retry). */
  dispatch(handler: LaneHandler): void {
    const { options, blockingOptions } = handler.request!;
    this.#client(handler.lane!).dispatch(this.closesEveryResponse ? blockingOptions : options, handler);
  }

  cancel(lane: Lane, code: string): void {
    const handler = this.handlers[lane.id];
    if (handler === undefined || handler.lane === null) return;
    handler.lane = null;
    this.handlers[lane.id] = new LaneHandler(lane, this);
    // What was pipelined behind it is not known to be unprocessed: not sent again.
    if (handler.written && handler.socket !== undefined) {
      handler.socket.fate = Fate.Abandoned;
      handler.settleBehind(code);
    }
    handler.controller?.abort(new Error(code));
    this.sink.onError(lane, code, !handler.written && !lane.retried);
  }

  unwritten(lane: Lane): boolean {
    const handler = this.handlers[lane.id];
    return handler !== undefined && handler.lane !== null && !handler.written && !lane.retried;
  }

  connect(count: number): Promise<void> {
    return this.#preopened.open(
      Math.min(count, this.#clients.length),
      (connection) => this.#clients[connection] !== undefined,
    );
  }

  release(): void {
    // Each Client keeps its socket and closes it once idle past keepAliveTimeout.
  }

  openConnections(): number {
    let open = 0;
    for (const client of this.#clients) if (client?.stats.connected) open++;
    return open;
  }

  async close(): Promise<void> {
    for (const handler of this.handlers) if (handler) handler.lane = null;
    await Promise.all(this.#clients.map((client) => client?.destroy()));
    this.#preopened.destroy();
  }
}

/**
 * undici's own connector, with each new socket's connect and TLS times recorded. Not undici's
 * diagnostics channels: they are process-wide (Node's bundled fetch and every other Pool publish
 * there too), cannot tell TCP connect from TLS, and once subscribed make undici build a message per
 * request. The connector returns the socket it opens, although its type says void.
 */
function timedConnector(
  connector: BuildConnector.connector,
  secure: boolean,
  phases: PhaseRecorder,
  transport: UndiciTransport,
): BuildConnector.connector {
  return (options, callback) => {
    const socket = (connector as (...args: Parameters<BuildConnector.connector>) => Socket | undefined)(
      options,
      callback,
    );
    if (socket === undefined) return;
    watchConnect(socket, secure, phases);
    watchWrites(socket, transport);
  };
}

/**
 * Tells the transport which socket each request goes out on: undici writes a request's head
 * synchronously after `onRequestStart`, so the first write after it is that request's. The retry
 * rules need it (whether the socket answered before, how it went); undici does not say.
 */
function watchWrites(socket: Socket, transport: UndiciTransport): void {
  const state = new SocketState(socket);
  const write = socket.write;
  socket.write = function (this: Socket, chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    const handler = transport.writing;
    if (handler !== undefined) {
      handler.socket = state;
      transport.writing = undefined;
      state.lastWrittenIdle = state.inFlight === 0;
      state.inFlight++;
    }
    return (write as (chunk: unknown, encoding?: unknown, callback?: unknown) => boolean).call(
      this,
      chunk,
      encoding,
      callback,
    );
  } as Socket['write'];
}

/** Imports undici (only when this transport is chosen) and returns the factory. */
export async function loadUndiciTransport(): Promise<TransportFactory> {
  const { Client, buildConnector } = await import('undici');
  return (config, sink) => new UndiciTransport(Client, buildConnector, config, sink);
}
