import http2, { type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import net, { type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { watchConnect } from './connect-timing.js';
import { CONNECTION_CLOSED, errorCode } from './error-code.js';
import type { Lane, ResolvedRequest, Transport, TransportConfig, TransportFactory, TransportSink } from './transport.js';
import { flattenHeaders } from './transport.js';

/*
 * Built on node:http2, not undici. undici's HTTP/2 (Client with allowH2, H2CClient for h2c) is a
 * layer over node:http2 sessions, so it can only add cost: against nginx (h2c, 2 B body, one worker
 * on core 1, the client alone on core 0, 3 alternating rounds of 2 s, a host shared with other
 * work) node:http2 took 156-240 CPU µs per request at 10 sessions x 10 streams where undici 7.30
 * took 369-420, and 227-380 µs at 100 sessions x 1 stream where undici took 298-582.
 */

/** HTTP/2 error codes by number (RFC 9113 section 7), for `H2_RST_<NAME>`. */
const ERROR_NAMES = [
  'NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED',
  'FRAME_SIZE_ERROR', 'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED',
];
const RESET_CODES = ERROR_NAMES.map((name) => `H2_RST_${name}`);

/** The code of a request whose stream the server reset with RST_STREAM: `H2_RST_REFUSED_STREAM`, ... */
export function resetCode(errorCodeNumber: number): string {
  return RESET_CODES[errorCodeNumber] ?? `H2_RST_${errorCodeNumber}`;
}

/**
 * A request in flight on a stream above the last stream id of the server's GOAWAY: the server never
 * processed it. Counted once and never sent again on another session.
 */
export const H2_GOAWAY = 'H2_GOAWAY';
/** The server does not speak HTTP/2: it answered h2c's preface in HTTP/1.1, or TLS did not pick h2. */
export const H2_NOT_SUPPORTED = 'H2_NOT_SUPPORTED';

/** Headers that are HTTP/1.1 connection-specific and forbidden in HTTP/2 (RFC 9113 8.2.2). */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);
/** Frame header of a HEADERS or DATA frame: the estimate of bytes on the wire counts one per frame. */
const FRAME_HEADER_BYTES = 9;
/**
 * Our receive windows: as large as HTTP/2 allows (h2load's default too), so that a large body is
 * never held back by the client's flow control; the data is consumed as it arrives.
 */
const WINDOW_BYTES = 2 ** 31 - 1;

interface H2Request {
  headers: OutgoingHttpHeaders;
  options: http2.ClientSessionRequestOptions;
  body: Buffer | undefined;
  /** HEADERS as literal header fields plus the body in DATA frames: HPACK can only make it smaller. */
  wireBytes: number;
}

/** One HTTP/2 session (one TCP or TLS connection) and the state the transport keeps on it. */
class Session {
  connected = false;
  /** When the session was ready (performance.now() ms): a stream sent before waited until then. */
  connectedAt = 0;
  /** The server's first SETTINGS arrived: it speaks HTTP/2. */
  settled = false;
  /** Takes no new streams: GOAWAY received, released, or one session per request. */
  draining = false;
  released = false;
  /** TLS agreed on a protocol other than h2. */
  notH2 = false;
  inFlight = 0;
  /** The socket closed: counted out once, whichever of the socket and the session says so first. */
  closed = false;
  error: Error | undefined;

  constructor(
    readonly slot: number,
    readonly socket: Socket,
    readonly session: ClientHttp2Session,
  ) {}
}

/**
 * Per-lane state, made once: its handlers are bound here and receive the stream as `this`, so that
 * events of a stream the lane has finished with (a cancelled one) are told apart without closures
 * per request.
 */
class H2Lane {
  stream: ClientHttp2Stream | undefined;
  owner: Session | undefined;
  status = 0;
  bytes = 0;
  headers: IncomingHttpHeaders | undefined;
  chunks: Buffer[] = [];
  error: Error | undefined;
  readonly onResponse: (this: ClientHttp2Stream, headers: IncomingHttpHeaders) => void;
  readonly onData: (this: ClientHttp2Stream, chunk: Buffer) => void;
  readonly onEnd: (this: ClientHttp2Stream) => void;
  readonly onClose: (this: ClientHttp2Stream) => void;
  readonly onError: (this: ClientHttp2Stream, error: Error) => void;

  constructor(
    readonly lane: Lane,
    transport: H2Transport,
  ) {
    const state = this;
    this.onResponse = function (headers) {
      if (state.stream !== this) return;
      const { lane } = state;
      lane.firstByteAt = performance.now();
      // A stream opened before its session was ready went out when it was.
      if (state.owner!.connectedAt > lane.writtenAt) lane.writtenAt = state.owner!.connectedAt;
      state.status = Number(headers[':status']);
      let bytes = FRAME_HEADER_BYTES;
      for (const name in headers) {
        const value = headers[name];
        bytes += name.length + (typeof value === 'string' ? value.length : Array.isArray(value) ? value.join(', ').length : 3);
      }
      state.bytes = bytes;
      if (transport.capture) state.headers = headers;
    };
    this.onData = function (chunk) {
      if (state.stream !== this) return;
      state.bytes += chunk.length;
      if (transport.capture) state.chunks.push(chunk);
    };
    this.onEnd = function () {
      if (state.stream === this) transport.finish(state);
    };
    this.onClose = function () {
      if (state.stream === this) transport.fail(state, transport.lossCode(state.owner!, state.error, this.rstCode));
    };
    this.onError = function (error) {
      if (state.stream === this) state.error = error;
    };
  }
}

/**
 * HTTP/2 over node:http2: `connections` sessions (h2 over TLS with ALPN for https:, h2c with prior
 * knowledge for http:), each carrying its connection's lanes as concurrent streams. Streams fail
 * alone: a reset or a timeout ends one request, not the session.
 */
class H2Transport implements Transport<H2Request> {
  readonly #config: TransportConfig;
  readonly #sink: TransportSink;
  readonly #sessions: Array<Session | undefined>;
  readonly #lanes: Array<H2Lane | undefined> = [];
  /** Every session not yet closed, including retired ones still finishing their streams. */
  readonly #live = new Set<Session>();
  readonly #sessionOptions: http2.ClientSessionOptions;
  readonly #secure: boolean;
  readonly #host: string;
  readonly #port: number;
  #connected = 0;
  /** The lowest SETTINGS_MAX_CONCURRENT_STREAMS any session was given, when below the lanes. */
  #streamLimit: number | undefined;
  readonly capture: boolean;

  constructor(config: TransportConfig, sink: TransportSink) {
    this.#config = config;
    this.#sink = sink;
    this.capture = config.captureResponses;
    this.#secure = config.url.protocol === 'https:';
    // Without keep-alive each request gets a session of its own, so every lane gets a slot.
    this.#sessions = new Array<Session | undefined>(config.keepAlive ? config.connections : config.connections * config.pipelining).fill(undefined);
    const { url } = config;
    // URL keeps IPv6 literals in brackets; sockets want them bare.
    this.#host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.#port = url.port === '' ? (this.#secure ? 443 : 80) : Number(url.port);
    this.#sessionOptions = {
      settings: { enablePush: false, initialWindowSize: WINDOW_BYTES },
      // Until the server's SETTINGS arrive, allow every lane rather than node's default of 100.
      peerMaxConcurrentStreams: Math.max(100, config.pipelining),
    };
  }

  prepare(request: ResolvedRequest): H2Request {
    const { url } = this.#config;
    const headers: OutgoingHttpHeaders = {
      ':method': request.method,
      ':path': request.path,
      ':scheme': url.protocol.slice(0, -1),
      ':authority': request.headers.host ?? url.host,
    };
    let wireBytes = FRAME_HEADER_BYTES;
    for (const [name, value] of Object.entries(request.headers)) {
      if (!CONNECTION_HEADERS.has(name) && !(name === 'te' && value !== 'trailers')) headers[name] = value;
    }
    if (request.body) headers['content-length'] = String(request.body.length);
    for (const [name, value] of Object.entries(headers)) wireBytes += 2 + name.length + String(value).length;
    if (request.body) wireBytes += FRAME_HEADER_BYTES + request.body.length;
    return { headers, options: { endStream: request.body === undefined }, body: request.body, wireBytes };
  }

  send(lane: Lane, prepared: H2Request): number {
    let state = this.#lanes[lane.id];
    if (state === undefined) {
      state = new H2Lane(lane, this);
      this.#lanes[lane.id] = state;
    }
    const slot = this.#config.keepAlive ? lane.connection : lane.id;
    const owner = this.#sessions[slot] ?? this.#open(slot);
    owner.released = false;
    let stream: ClientHttp2Stream;
    try {
      stream = owner.session.request(prepared.headers, prepared.options);
    } catch (error) {
      // A session out of stream ids (2^31 of them) or already closing: the next send opens another.
      this.#retire(owner);
      this.#sink.onError(lane, errorCode(error));
      return prepared.wireBytes;
    }
    owner.inFlight++;
    if (!this.#config.keepAlive) this.#retire(owner);
    state.stream = stream;
    state.owner = owner;
    state.status = 0;
    state.error = undefined;
    if (this.capture) state.chunks = [];
    stream.on('response', state.onResponse);
    stream.on('data', state.onData);
    stream.on('end', state.onEnd);
    stream.on('close', state.onClose);
    stream.on('error', state.onError);
    if (prepared.body) stream.end(prepared.body);
    return prepared.wireBytes;
  }

  finish(state: H2Lane): void {
    this.#end(state);
    if (!this.capture) {
      this.#sink.onResponse(state.lane, state.status, state.bytes);
      return;
    }
    const body = Buffer.concat(state.chunks);
    state.chunks = [];
    this.#sink.onResponse(state.lane, state.status, state.bytes, { headers: flattenHeaders(state.headers ?? {}), body });
  }

  fail(state: H2Lane, code: string): void {
    this.#end(state);
    if (code === H2_NOT_SUPPORTED) {
      this.#sink.onWarning?.(
        H2_NOT_SUPPORTED,
        `${this.#config.url.origin} does not speak HTTP/2 (${this.#secure ? 'TLS did not negotiate h2 by ALPN' : 'it did not answer the h2c preface with SETTINGS'}): ` +
          "its requests are counted under H2_NOT_SUPPORTED. Use transport 'net' for an HTTP/1.1 server.",
      );
    }
    this.#sink.onError(state.lane, code);
  }

  /**
   * The code a request lost with its stream is counted under: the server is not an HTTP/2 server,
   * the connection failed (its own code), the server reset the stream (`H2_RST_<NAME>`), or the
   * connection closed under it.
   */
  lossCode(owner: Session, streamError: Error | undefined, rstCode: number): string {
    if (owner.notH2) return H2_NOT_SUPPORTED;
    const error = unwrap(streamError) ?? owner.error;
    const code = error === undefined ? undefined : errorCode(error);
    // A TLS server without h2 refuses the ALPN offer; over h2c, bytes that are not a SETTINGS frame
    // (an HTTP/1.1 answer to the preface) are a protocol error before the server's first SETTINGS.
    if (code === 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL' || (code === 'ERR_HTTP2_ERROR' && !owner.settled)) return H2_NOT_SUPPORTED;
    if (code !== undefined && code !== 'ERR_HTTP2_STREAM_ERROR') return code;
    if (rstCode !== 0 && rstCode !== undefined) return resetCode(rstCode);
    return CONNECTION_CLOSED;
  }

  cancel(lane: Lane, code: string): void {
    const state = this.#lanes[lane.id];
    const stream = state?.stream;
    if (state === undefined || stream === undefined) return;
    this.#end(state);
    // RST_STREAM(CANCEL) ends this stream alone; the session and its other streams go on.
    stream.close(http2.constants.NGHTTP2_CANCEL);
    this.#sink.onError(lane, code);
  }

  async connect(count: number): Promise<void> {
    const opening: Array<Promise<void>> = [];
    for (let slot = 0; slot < Math.min(count, this.#sessions.length); slot++) {
      if (this.#sessions[slot] !== undefined) continue;
      const { session } = this.#open(slot);
      opening.push(
        new Promise((resolve) => {
          session.once('remoteSettings', () => resolve());
          session.once('close', () => resolve());
        }),
      );
    }
    await Promise.all(opening);
  }

  release(connection: number): void {
    const owner = this.#sessions[connection];
    if (owner === undefined) return;
    owner.released = true;
    if (owner.inFlight === 0) this.#retire(owner);
  }

  openConnections(): number {
    return this.#connected;
  }

  lanesPerConnection(): number | undefined {
    return this.#streamLimit;
  }

  async close(): Promise<void> {
    for (const state of this.#lanes) {
      if (state !== undefined) state.stream = undefined;
    }
    await afterCallbacks();
    const closing: Array<Promise<void>> = [];
    // Waits on the socket, not the session: node keeps a session that got GOAWAY open until the
    // server closes its side, so that one's socket is destroyed here. A live session's socket is
    // left to the session (destroying it under node's HTTP/2 handle corrupted the heap).
    for (const { session, socket } of this.#live) {
      closing.push(new Promise((resolve) => socket.once('close', () => resolve())));
      if (session.destroyed) socket.destroy();
      else session.destroy();
    }
    await Promise.all(closing);
  }

  #open(slot: number): Session {
    const socket = this.#secure ? this.#connectTls() : net.connect({ host: this.#host, port: this.#port, noDelay: true });
    watchConnect(socket, this.#secure, this.#config.phases);
    const session = http2.connect(this.#config.url.origin, { ...this.#sessionOptions, createConnection: () => socket });
    const owner = new Session(slot, socket, session);
    this.#sessions[slot] = owner;
    this.#live.add(owner);
    session.on('connect', () => this.#onConnect(owner));
    session.on('remoteSettings', (settings) => this.#onSettings(owner, settings));
    session.on('goaway', (code, lastStreamId) => this.#onGoaway(owner, code, lastStreamId));
    session.on('error', (error) => (owner.error ??= error));
    session.on('close', () => this.#onSessionClose(owner));
    socket.on('close', () => this.#onSessionClose(owner));
    return owner;
  }

  #connectTls(): Socket {
    const options = this.#config.tls ?? {};
    const servername = options.servername ?? (net.isIP(this.#host) === 0 ? this.#host : undefined);
    const socket = tls.connect({ ...options, host: this.#host, port: this.#port, servername, ALPNProtocols: ['h2'] });
    socket.setNoDelay(true);
    return socket;
  }

  #onConnect(owner: Session): void {
    owner.connected = true;
    owner.connectedAt = performance.now();
    this.#connected++;
    // A TLS server without ALPN leaves the choice to us; it did not choose h2, so it is not one.
    if (this.#secure && owner.session.alpnProtocol !== 'h2') {
      owner.notH2 = true;
      owner.session.destroy();
    }
  }

  #onSettings(owner: Session, settings: http2.Settings): void {
    const first = !owner.settled;
    owner.settled = true;
    const allowed = settings.maxConcurrentStreams;
    const { pipelining } = this.#config;
    if (allowed === undefined || allowed >= pipelining) return;
    if (first && (this.#streamLimit === undefined || allowed < this.#streamLimit)) this.#streamLimit = Math.max(1, allowed);
    this.#sink.onWarning?.(
      'H2_STREAMS_CAPPED',
      `the server allows ${allowed} concurrent streams per session (SETTINGS_MAX_CONCURRENT_STREAMS) and streams was ` +
        `${pipelining}: each session carried at most ${Math.max(1, allowed)}, so at most ${Math.max(1, allowed)} x connections ` +
        'requests were in flight. Raise connections for more concurrency, or the server\'s limit.',
    );
  }

  #onGoaway(owner: Session, code: number, lastStreamId: number): void {
    this.#retire(owner);
    if (owner.inFlight === 0) return;
    for (const state of this.#lanes) {
      const stream = state?.stream;
      if (state === undefined || stream === undefined || state.owner !== owner) continue;
      // Streams at or below the last id are being answered (or fail with the session's error).
      if (stream.id !== undefined && stream.id <= lastStreamId) continue;
      this.fail(state, H2_GOAWAY);
    }
    if (code !== http2.constants.NGHTTP2_NO_ERROR) owner.error ??= new Error(`GOAWAY ${ERROR_NAMES[code] ?? code}`);
  }

  #onSessionClose(owner: Session): void {
    if (owner.closed) return;
    owner.closed = true;
    this.#live.delete(owner);
    if (owner.connected) {
      owner.connected = false;
      this.#connected--;
    }
    if (this.#sessions[owner.slot] === owner) this.#sessions[owner.slot] = undefined;
    if (owner.inFlight === 0) return;
    const code = this.lossCode(owner, undefined, 0);
    for (const state of this.#lanes) {
      if (state !== undefined && state.stream !== undefined && state.owner === owner) this.fail(state, code);
    }
  }

  /** The lane's request is over: detach it from its stream and session. */
  #end(state: H2Lane): void {
    const owner = state.owner!;
    state.stream = undefined;
    state.owner = undefined;
    owner.inFlight--;
    if (owner.inFlight === 0 && (owner.draining || owner.released)) this.#retire(owner);
  }

  /** No new streams on this session; it closes once its streams are done. */
  #retire(owner: Session): void {
    owner.draining = true;
    if (this.#sessions[owner.slot] === owner) this.#sessions[owner.slot] = undefined;
    if (owner.inFlight === 0 && !owner.session.closed) setImmediate(closeSession, owner.session);
  }
}

/**
 * Closing a session from inside one of its stream's events (the engine stops the run, or retires a
 * session, from a response handler) corrupted node 20's heap now and then ("corrupted size vs.
 * prev_size", about one run in three at 10 x 10 streams): nghttp2 is still in its read callback.
 * Sessions are closed once that has returned.
 */
function afterCallbacks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function closeSession(session: ClientHttp2Session): void {
  if (!session.closed) session.close();
}

/** node:http2 wraps the cause of a stream cancelled before it was sent (a TLS failure, say). */
function unwrap(error: Error | undefined): Error | undefined {
  if (error === undefined) return undefined;
  const { code, cause } = error as Error & { code?: string; cause?: unknown };
  return code === 'ERR_HTTP2_STREAM_CANCEL' && cause instanceof Error ? cause : error;
}

/** The `h2` transport: see `H2Transport`. */
export const createH2Transport: TransportFactory = (config, sink) => new H2Transport(config, sink);
