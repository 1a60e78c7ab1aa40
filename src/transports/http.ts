import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { watchConnect } from './connect-timing.js';
import { preopenAgentSocket } from './agent-preopen.js';
import type { ResolvedRequest } from '../shared/exchange.js';
import type { Transport, TransportConfig, TransportFactory, TransportSink } from './transport.js';
import { flattenHeaders, isIdempotentMethod, Lane, responseHeadBytes } from './transport.js';
import { encodeRequest } from '../http1/request.js';
import { errorCode } from './error-code.js';
import { cachedLookup } from './lookup-cache.js';
import { sharedSecureContext } from './tls-setup.js';

interface HttpRequest {
  options: http.RequestOptions;
  /** The same on the retry Agent: a new connection, never one kept (see `HttpTransport.#retryAgent`). */
  retryOptions: http.RequestOptions;
  body: Buffer | undefined;
  /** With keep-alive: `options` on each connection's own Agent, by connection, made on first use. */
  byConnection: http.RequestOptions[];
  /** Bytes of the request on the wire, with the headers node:http adds. */
  wireBytes: number;
  idempotent: boolean;
}

/** How node:http reports a reused connection that closed or was reset under a request ('socket hang up' is ECONNRESET). */
const CLOSED_UNDER_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);

/** node:http's own header on a kept-alive request. */
const KEEP_ALIVE_HEADER_BYTES = 'Connection: keep-alive\r\n'.length;
/** Methods node:http sends without `Content-Length: 0` when they have no body (`useChunkedEncodingByDefault` off). */
const BODILESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

const ignore = (): void => {};

/** Per-lane state, made once, so the response path reuses bound handlers instead of new closures. */
class HttpLane {
  request: http.ClientRequest | undefined;
  /** The response being read, so that a late event from an earlier one cannot end this lane's request. */
  response: http.IncomingMessage | undefined;
  status = 0;
  bytes = 0;
  /** The request was handed to the OS ('finish'); one that failed before never reached the wire. */
  written = false;
  /**
   * Its socket connected: node:http emits 'finish' once the request is buffered on a socket still
   * connecting, so one whose connection was then refused would count as written.
   */
  connected = false;
  /** The request sent now, to send again. */
  prepared: HttpRequest | undefined;
  /** Its socket, and how much had been read on it when the request got it: whether any of its response came. */
  socket: Socket | undefined;
  readBefore = 0;
  /** How much had been written on its socket when the request got it: whether any of the request left. */
  writtenBefore = 0;
  headers: http.IncomingHttpHeaders = {};
  chunks: Buffer[] = [];
  readonly onResponse: (response: http.IncomingMessage) => void;
  readonly onData: (chunk: Buffer) => void;
  readonly onEnd: () => void;
  readonly onError: (error: Error) => void;
  /**
   * 'close' on the response: before its end, the connection went away mid-body (a Content-Length not
   * reached, a chunked body without its last chunk). node:http emits no 'end' then, and without this
   * the request would wait out its whole timeout and be counted as one.
   */
  readonly onResponseClose: (this: http.IncomingMessage) => void;
  /** A socket still connecting is a new connection: its connect and TLS times are recorded. */
  readonly onSocket: (socket: Socket) => void;
  readonly onConnect: () => void;
  /** 'finish': the request has been handed to the OS, after its connection opened. */
  readonly onFinish: () => void;

  constructor(lane: Lane, transport: HttpTransport) {
    this.onSocket = (socket) => {
      this.socket = socket;
      this.readBefore = socket.bytesRead;
      this.writtenBefore = socket.bytesWritten;
      this.connected = !socket.connecting;
      if (socket.connecting) {
        socket.once('connect', this.onConnect);
        watchConnect(socket, transport.secure, transport.phases);
      }
    };
    this.onConnect = () => {
      this.connected = true;
    };
    this.onFinish = () => {
      lane.writtenAt = performance.now();
      this.written = true;
    };
    this.onResponse = (response) => {
      // node:http tells of a response once its head is parsed: the first byte, when the head came in one read.
      lane.firstByteAt = performance.now();
      this.status = response.statusCode ?? 0;
      if (transport.capture) this.headers = response.headers;
      this.bytes = responseHeadBytes(response.statusMessage, response.rawHeaders);
      this.response = response;
      response.on('data', this.onData);
      response.on('end', this.onEnd);
      response.on('error', this.onError);
      response.on('close', this.onResponseClose);
      if (transport.heads && !transport.sink.onHead!(lane, this.status, response.headers['content-type']))
        return transport.endEarly(lane, this);
      const coding = transport.stream ? response.headers['content-encoding'] : undefined;
      if (coding !== undefined && !transport.sink.onEncoding!(lane, coding)) transport.endEarly(lane, this);
    };
    this.onData = (chunk) => {
      this.bytes += chunk.length;
      if (transport.capture) this.chunks.push(chunk);
      if (transport.stream && !transport.sink.onBody!(lane, chunk, 0, chunk.length)) transport.endEarly(lane, this);
    };
    this.onEnd = () => transport.finish(lane, this);
    this.onError = (error) => transport.fail(lane, this, errorCode(error));
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the function below has its own `this` (the socket or handle calling it)
    const state = this;
    this.onResponseClose = function () {
      if (state.response === this && !this.complete) transport.fail(lane, state, 'ECONNRESET');
    };
  }
}

/**
 * node:http: the reference client. With keep-alive each connection is an Agent of one socket, and a
 * lane's requests go on its connection's: the engine spreads the load over the connections (one
 * Agent of `connections` sockets opens another only when all are busy, so a modest rate stayed on
 * one or two of them). Without keep-alive one Agent opens a connection per request.
 */
class HttpTransport implements Transport<HttpRequest> {
  readonly #config: TransportConfig;
  readonly #sink: TransportSink;
  /** Without keep-alive: the one Agent, which opens a connection per request. */
  readonly #agent: http.Agent | undefined;
  /** With keep-alive: each connection's Agent of one socket, by connection, made on first use. */
  readonly #agents: Array<http.Agent | undefined> | undefined;
  readonly #createAgent: (sockets: number) => http.Agent;
  /**
   * Retries go out on a connection of their own: their connection's Agent would hand them its idle
   * socket, which a server closing idle connections may be closing too (the race again). Its sockets
   * are closed after their response, not kept; requests on it still say keep-alive, as the others do.
   */
  readonly #retryAgent: http.Agent;
  readonly #request: typeof http.request;
  readonly #lanes = new Map<number, HttpLane>();
  /** Sockets opened ahead of the clock (`connect`), destroyed at the end whether or not an Agent took them. */
  readonly #preopened: Socket[] = [];
  readonly capture: boolean;
  readonly stream: boolean;
  readonly heads: boolean;
  readonly sink: TransportSink;
  readonly secure: boolean;
  readonly phases: TransportConfig['phases'];

  constructor(config: TransportConfig, sink: TransportSink) {
    this.#config = config;
    this.#sink = sink;
    this.capture = config.captureResponses;
    this.stream = config.stream ?? false;
    this.heads = config.heads ?? false;
    this.sink = sink;
    this.phases = config.phases;
    const secure = config.url.protocol === 'https:';
    this.secure = secure;
    // Without keep-alive no request may wait in the Agent's queue, where a finished socket would be
    // handed to it: the engine's lanes bound the concurrency instead. One Agent for all requests then
    // (an `agent: false` request builds an Agent of its own), so that its TLS session cache resumes
    // sessions on new connections; with keep-alive each connection's Agent resumes its own when it
    // reconnects. Every Agent shares one secure context.
    const lookup = cachedLookup();
    const createAgent = (sockets: number): http.Agent => {
      const agentOptions = {
        lookup,
        keepAlive: config.keepAlive,
        maxSockets: config.keepAlive ? sockets : Infinity,
        maxFreeSockets: sockets,
      };
      return secure
        ? new https.Agent({
            ...config.tls,
            ...agentOptions,
            secureContext: sharedSecureContext(config.tls ?? {}),
            ...(config.tlsSessionReuse ? {} : { maxCachedSessions: 0 }),
          })
        : new http.Agent(agentOptions);
    };
    this.#createAgent = createAgent;
    if (config.keepAlive) this.#agents = new Array<http.Agent | undefined>(config.connections).fill(undefined);
    else this.#agent = createAgent(config.connections);
    this.#retryAgent = createAgent(config.connections);
    this.#retryAgent.keepSocketAlive = () => false;
    this.#request = secure ? https.request : http.request;
  }

  prepare(request: ResolvedRequest): HttpRequest {
    const { url } = this.#config;
    const headers: Record<string, string> = { ...request.headers };
    if (request.body) headers['content-length'] = String(request.body.length);
    // An Agent without keepAlive still reuses a socket for queued requests unless told not to.
    if (!this.#config.keepAlive) headers.connection = 'close';
    // With keep-alive the agent is the connection's, added per connection (`#optionsOn`).
    const options: http.RequestOptions = {
      ...(this.#agent === undefined ? {} : { agent: this.#agent }),
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || undefined,
      method: request.method,
      path: request.path,
      headers,
    };
    return {
      options,
      retryOptions: { ...options, agent: this.#retryAgent },
      body: request.body,
      byConnection: [],
      wireBytes:
        encodeRequest(url, request, this.#config.keepAlive).length +
        (this.#config.keepAlive ? KEEP_ALIVE_HEADER_BYTES : 0) +
        (request.body === undefined && !BODILESS_METHODS.has(request.method) ? 'Content-Length: 0\r\n'.length : 0),
      idempotent: isIdempotentMethod(request.method),
    };
  }

  send(lane: Lane, prepared: HttpRequest): number {
    let state = this.#lanes.get(lane.id);
    if (state === undefined) {
      state = new HttpLane(lane, this);
      this.#lanes.set(lane.id, state);
    }
    state.chunks = this.capture ? [] : state.chunks;
    state.prepared = prepared;
    this.#dispatch(state, this.#optionsOn(lane.connection, prepared), prepared.body);
    return prepared.wireBytes;
  }

  #optionsOn(connection: number, prepared: HttpRequest): http.RequestOptions {
    const agents = this.#agents;
    if (agents === undefined) return prepared.options;
    return (prepared.byConnection[connection] ??= {
      ...prepared.options,
      agent: (agents[connection] ??= this.#createAgent(1)),
    });
  }

  unwritten(lane: Lane): boolean {
    const state = this.#lanes.get(lane.id);
    // Still in the Agent's queue or its socket's buffer: node:http had not handed it to the kernel.
    return state?.request !== undefined && !state.written && !lane.retried;
  }

  #dispatch(state: HttpLane, options: http.RequestOptions, body: Buffer | undefined): void {
    state.written = false;
    state.connected = false;
    state.socket = undefined;
    const request = this.#request(options, state.onResponse);
    state.request = request;
    request.on('error', state.onError);
    request.on('socket', state.onSocket);
    request.on('finish', state.onFinish);
    request.end(body);
  }

  finish(lane: Lane, state: HttpLane): void {
    if (state.request === undefined) return;
    state.request = undefined;
    state.response = undefined;
    // node:http hands over the body without its chunked framing; on plain TCP, where nothing but this
    // response came on the socket since it took the request, what it read is the response as sent.
    const socket = state.socket;
    if (!this.secure && socket !== undefined && socket.bytesRead - state.readBefore > state.bytes)
      state.bytes = socket.bytesRead - state.readBefore;
    this.finishWith(lane, state);
  }

  finishWith(lane: Lane, state: HttpLane): void {
    if (!this.capture) {
      this.#sink.onResponse(lane, state.status, state.bytes);
      return;
    }
    this.#sink.onResponse(lane, state.status, state.bytes, {
      headers: flattenHeaders(state.headers),
      body: Buffer.concat(state.chunks),
    });
  }

  /**
   * `onBody` ended the response: it completes now, and its request is destroyed (closing the socket)
   * with its listeners taken off first, since the lane may send its next request from `onResponse`.
   */
  endEarly(lane: Lane, state: HttpLane): void {
    if (!this.#detach(state)) return;
    this.finishWith(lane, state);
  }

  /** Destroys the lane's request with its listeners taken off first: the sink may send the lane's next request at once. */
  #detach(state: HttpLane): boolean {
    const request = state.request;
    if (request === undefined) return false;
    state.request = undefined;
    const response = state.response;
    state.response = undefined;
    for (const emitter of [request, response]) {
      emitter?.removeAllListeners();
      emitter?.on('error', ignore);
    }
    request.destroy();
    return true;
  }

  fail(lane: Lane, state: HttpLane, code: string): void {
    if (state.request === undefined) return;
    state.request = undefined;
    // 'finish' comes once the whole request was handed over; on a reused (connected) socket a reset
    // can come between the write and it.
    if (state.readBefore > 0 && state.socket!.bytesWritten > state.writtenBefore) state.written = true;
    if (!state.connected) state.written = false;
    const answering =
      state.response !== undefined || (state.socket !== undefined && state.socket.bytesRead > state.readBefore);
    state.response = undefined;
    // An idempotent request on a reused connection (one that had answered before: node:http's
    // reusedSocket misses a socket the Agent hands straight to a queued request) that closed before
    // any byte of its response: sent again, once. node:http never pipelines, so the request was alone
    // on its socket, written once the response before it had ended: the keep-alive race, the only
    // close `net` and `undici` send again too.
    const prepared = state.prepared!;
    const reused = state.readBefore > 0;
    if (
      this.#config.retry &&
      !lane.retried &&
      prepared.idempotent &&
      reused &&
      !answering &&
      CLOSED_UNDER_CODES.has(code)
    ) {
      lane.retried = true;
      const written = state.written;
      this.#dispatch(state, prepared.retryOptions, prepared.body);
      this.#sink.onRetry?.(lane, written ? prepared.wireBytes : 0);
      return;
    }
    // A retried request went on the wire once, on the connection before.
    this.#sink.onError(lane, code, !state.written && !lane.retried);
  }

  cancel(lane: Lane, code: string): void {
    const state = this.#lanes.get(lane.id);
    if (state === undefined || !this.#detach(state)) return;
    this.#sink.onError(lane, code, !state.written && !lane.retried);
  }

  /** With keep-alive, each connection's socket opens before the clock, as `net` opens its own; without, every request opens one. */
  async connect(count: number): Promise<void> {
    const agents = this.#agents;
    if (agents === undefined) return;
    const opening: Array<Promise<Socket | undefined>> = [];
    for (let connection = 0; connection < Math.min(count, agents.length); connection++) {
      if (agents[connection] !== undefined) continue;
      const agent = (agents[connection] = this.#createAgent(1));
      opening.push(preopenAgentSocket(agent, this.#config.url, this.secure, this.phases));
    }
    for (const socket of await Promise.all(opening)) if (socket !== undefined) this.#preopened.push(socket);
  }

  release(): void {
    // The Agent keeps at most `connections` sockets and closes idle ones itself.
  }

  openConnections(): number {
    let open = 0;
    for (const agent of [this.#agent, ...(this.#agents ?? [])]) {
      if (agent === undefined) continue;
      for (const list of Object.values(agent.sockets)) open += list?.length ?? 0;
      for (const list of Object.values(agent.freeSockets)) open += list?.length ?? 0;
    }
    return open;
  }

  async close(): Promise<void> {
    for (const state of this.#lanes.values()) {
      state.request?.destroy();
      state.request = undefined;
    }
    this.#agent?.destroy();
    for (const agent of this.#agents ?? []) agent?.destroy();
    this.#retryAgent.destroy();
    for (const socket of this.#preopened) socket.destroy();
  }
}

export const createHttpTransport: TransportFactory = (config, sink) => new HttpTransport(config, sink);
