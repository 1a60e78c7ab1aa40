import net, { type Socket } from 'node:net';
import tls from 'node:tls';
import { HeadTemplate } from '../http1/head-template.js';
import { ResponseParser, type ResponseHandler, type ResponseParserOptions } from '../http1/parser.js';
import { encodeRequest, isHeadRequest } from '../http1/request.js';
import { errorCode } from './error-code.js';
import { createHandleWriter, type HandleWriter } from './handle-writer.js';
import type {
  Lane,
  ResolvedRequest,
  ResponseDetails,
  Transport,
  TransportConfig,
  TransportFactory,
  TransportSink,
} from './transport.js';

/**
 * The code for requests still in flight when the server closes the connection cleanly (FIN, no
 * reset) before answering them, for example the pipelined requests behind a `Connection: close`
 * response. They are counted as errors, never re-sent.
 */
export const CONNECTION_CLOSED = 'ECONNCLOSED';

/**
 * Plain TCP reads go into one buffer per transport (one per thread): libuv delivers one read at a
 * time and the parser is done with it before returning, so sharing keeps memory flat at any
 * connection count and the buffer hot in cache.
 */
const SHARED_READ_BUFFER_BYTES = 64 * 1024;
/**
 * TLS can deliver decrypted bytes from inside a write call (TLSWrap::DoWrite runs ClearOut), that
 * is while another socket's read is still being parsed, so each TLS connection reads into its own
 * buffer. 16 KiB holds the plaintext of one full TLS record.
 */
const TLS_READ_BUFFER_BYTES = 16 * 1024;

const NO_LANES: readonly Lane[] = [];

function uncork(socket: Socket): void {
  socket.uncork();
}

/** Where and how to connect, worked out once from the config. */
interface Endpoint {
  host: string;
  port: number;
  tls: tls.ConnectionOptions | undefined;
  keepAlive: boolean;
}

/**
 * One connection slot: the socket open on it now (or none), its parser, and the lanes in flight on
 * it in send order, since HTTP/1.1 answers pipelined requests in order.
 */
class Connection implements ResponseHandler {
  socket: Socket | undefined;
  connected = false;
  /** Close once idle: the engine is ramping connections down. */
  released = false;

  readonly #owner: NetTransport;
  readonly #endpoint: Endpoint;
  readonly #sink: TransportSink;
  readonly #parser: ResponseParser;
  readonly #readBuffer: Buffer;
  /** Pipelining: requests sent in one tick leave in one write. */
  readonly #batchWrites: boolean;
  /** Ring of lanes in flight, with whether each one's request was a HEAD. */
  #lanes: Array<Lane | undefined>;
  #heads: boolean[];
  #first = 0;
  #count = 0;
  /** The socket whose bytes are being parsed, to tell whether a callback replaced it. */
  #reading: Socket | undefined;
  /** Writes past the Writable stream, once a plain-TCP socket is connected and not pipelining. */
  #writer: HandleWriter | undefined;

  constructor(owner: NetTransport, endpoint: Endpoint, sink: TransportSink, readBuffer: Buffer, capacity: number, parsing: ResponseParserOptions) {
    this.#owner = owner;
    this.#endpoint = endpoint;
    this.#sink = sink;
    this.#readBuffer = readBuffer;
    this.#parser = new ResponseParser(this, parsing);
    this.#batchWrites = capacity > 1;
    this.#lanes = new Array<Lane | undefined>(capacity).fill(undefined);
    this.#heads = new Array<boolean>(capacity).fill(false);
  }

  open(): Socket {
    const { host, port, tls: tlsOptions } = this.#endpoint;
    this.#parser.reset();
    this.released = false;
    const onread: net.OnReadOpts = {
      buffer: this.#readBuffer,
      callback: (nread: number, buffer: Uint8Array): boolean => {
        this.#onRead(socket, nread, buffer as Buffer);
        return true;
      },
    };
    let socket: Socket;
    if (tlsOptions === undefined) {
      socket = net.connect({ host, port, onread, noDelay: true });
      socket.on('connect', () => this.#onConnect(socket));
    } else {
      const servername = tlsOptions.servername ?? (net.isIP(host) === 0 ? host : undefined);
      // Node honours `onread` for TLS sockets it creates; @types/node only declares it for net.
      const options: tls.ConnectionOptions & { onread: net.OnReadOpts } = { ...tlsOptions, host, port, servername, onread };
      socket = tls.connect(options);
      socket.setNoDelay(true);
      socket.on('secureConnect', () => this.#onConnect(socket));
    }
    socket.on('error', (error) => this.#onError(socket, error));
    socket.on('end', () => this.#onEnd(socket));
    socket.on('close', () => this.#onClose(socket));
    this.socket = socket;
    return socket;
  }

  send(lane: Lane, request: Buffer): void {
    const socket = this.socket ?? this.open();
    this.released = false;
    this.#push(lane, isHeadRequest(request));
    if (this.#writer !== undefined) {
      this.#writer.write(request);
      return;
    }
    // Inside a read the socket is already corked; elsewhere (a pipelining burst, a paced tick) the
    // requests sent in the same tick are gathered into one write. With one request in flight there
    // is nothing to gather, and a corked write takes the slower writev path.
    if (this.#batchWrites && socket.writableCorked === 0) {
      socket.cork();
      process.nextTick(uncork, socket);
    }
    socket.write(request);
  }

  carries(lane: Lane): boolean {
    for (let i = 0; i < this.#count; i++) {
      if (this.#lanes[(this.#first + i) % this.#lanes.length] === lane) return true;
    }
    return false;
  }

  /** Destroys the socket and reports every lane in flight on it: the first with `firstCode`. */
  abort(firstCode: string, restCode: string): void {
    const lost = this.#drain();
    this.#detach();
    for (let i = 0; i < lost.length; i++) this.#sink.onError(lost[i]!, i === 0 ? firstCode : restCode);
  }

  release(): void {
    this.released = true;
    if (this.#count === 0) this.#detach();
  }

  /** Destroys the socket without reporting anything; resolves once it has closed. */
  discard(): Promise<void> {
    const socket = this.socket;
    this.#drain();
    this.#detach();
    if (socket === undefined || socket.closed) return Promise.resolve();
    return new Promise((resolve) => socket.once('close', () => resolve()));
  }

  onResponse(status: number, bytes: number, willClose: boolean, details: ResponseDetails | undefined): boolean {
    const lane = this.#shift();
    if (lane === undefined) {
      // A response nobody asked for: the stream cannot be trusted to line up with requests any more.
      this.#detach();
      return false;
    }
    const reading = this.#reading;
    if (willClose || !this.#endpoint.keepAlive || (this.released && this.#count === 0)) {
      const lost = this.#drain();
      this.#detach();
      this.#sink.onResponse(lane, status, bytes, details);
      for (const other of lost) this.#sink.onError(other, CONNECTION_CLOSED);
      return false;
    }
    if (this.#count > 0) this.#parser.headRequest = this.#heads[this.#first]!;
    this.#sink.onResponse(lane, status, bytes, details);
    // The sink may have cancelled a lane of this connection, which replaced the socket.
    return this.socket === reading;
  }

  #onConnect(socket: Socket): void {
    if (socket !== this.socket) return;
    this.connected = true;
    this.#owner.connectedCount++;
    if (this.#endpoint.tls === undefined && !this.#batchWrites) this.#writer = createHandleWriter(socket);
  }

  #onRead(socket: Socket, nread: number, buffer: Buffer): void {
    if (socket !== this.socket) return;
    if (this.#count === 0) {
      this.#detach();
      return;
    }
    this.#reading = socket;
    // Requests the sink sends while responses are parsed leave in one write.
    if (this.#batchWrites) socket.cork();
    const error = this.#parser.execute(buffer, 0, nread);
    if (this.#batchWrites) socket.uncork();
    if (error !== undefined && socket === this.socket) this.abort(error, error);
  }

  #onError(socket: Socket, error: Error): void {
    if (socket !== this.socket) return;
    const code = errorCode(error);
    this.abort(code, code);
  }

  #onEnd(socket: Socket): void {
    if (socket !== this.socket) return;
    this.#reading = socket;
    // A body delimited by the close completes here; a response cut short is a parse error.
    const error = this.#parser.finish();
    if (socket !== this.socket) return;
    this.abort(error ?? CONNECTION_CLOSED, CONNECTION_CLOSED);
  }

  #onClose(socket: Socket): void {
    if (socket !== this.socket) return;
    this.abort(CONNECTION_CLOSED, CONNECTION_CLOSED);
  }

  #detach(): void {
    const socket = this.socket;
    if (socket === undefined) return;
    this.socket = undefined;
    this.#writer = undefined;
    if (this.connected) {
      this.connected = false;
      this.#owner.connectedCount--;
    }
    socket.destroy();
  }

  #push(lane: Lane, head: boolean): void {
    if (this.#count === this.#lanes.length) this.#grow();
    const index = (this.#first + this.#count) % this.#lanes.length;
    this.#lanes[index] = lane;
    this.#heads[index] = head;
    if (this.#count === 0) this.#parser.headRequest = head;
    this.#count++;
  }

  #shift(): Lane | undefined {
    if (this.#count === 0) return undefined;
    const lane = this.#lanes[this.#first];
    this.#lanes[this.#first] = undefined;
    this.#first = (this.#first + 1) % this.#lanes.length;
    this.#count--;
    return lane;
  }

  /** Empties the ring; allocates only when lanes were in flight, which is never the hot path. */
  #drain(): readonly Lane[] {
    if (this.#count === 0) return NO_LANES;
    const lost: Lane[] = [];
    for (let lane = this.#shift(); lane !== undefined; lane = this.#shift()) lost.push(lane);
    return lost;
  }

  #grow(): void {
    const lanes: Array<Lane | undefined> = [];
    const heads: boolean[] = [];
    for (let i = 0; i < this.#count; i++) {
      const index = (this.#first + i) % this.#lanes.length;
      lanes.push(this.#lanes[index]);
      heads.push(this.#heads[index]!);
    }
    const capacity = Math.max(1, 2 * this.#lanes.length);
    while (lanes.length < capacity) {
      lanes.push(undefined);
      heads.push(false);
    }
    this.#lanes = lanes;
    this.#heads = heads;
    this.#first = 0;
  }
}

/**
 * HTTP/1.1 straight over `net`/`tls` sockets: requests are encoded once and written as ready
 * Buffers, responses are parsed in the socket's read buffer by `ResponseParser`.
 */
class NetTransport implements Transport<Buffer> {
  /** Sockets connected now; kept by the connections. */
  connectedCount = 0;

  readonly #config: TransportConfig;
  readonly #sink: TransportSink;
  readonly #endpoint: Endpoint;
  readonly #connections: Array<Connection | undefined>;
  readonly #sharedReadBuffer: Buffer | undefined;
  /** Every connection usually gets the same head: one template, hot in cache, for all of them. */
  readonly #parsing: ResponseParserOptions;

  constructor(config: TransportConfig, sink: TransportSink) {
    this.#config = config;
    this.#sink = sink;
    const { url } = config;
    const secure = url.protocol === 'https:';
    this.#endpoint = {
      // URL keeps IPv6 literals in brackets; sockets want them bare.
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      tls: secure ? (config.tls ?? {}) : undefined,
      keepAlive: config.keepAlive,
    };
    // Without keep-alive each request needs its own socket, so every lane gets a slot of its own.
    const slots = config.keepAlive ? config.connections : config.connections * config.pipelining;
    this.#connections = new Array<Connection | undefined>(slots).fill(undefined);
    this.#sharedReadBuffer = secure ? undefined : Buffer.allocUnsafe(SHARED_READ_BUFFER_BYTES);
    this.#parsing = { capture: config.captureResponses, template: new HeadTemplate() };
  }

  prepare(request: ResolvedRequest): Buffer {
    return encodeRequest(this.#config.url, request, this.#config.keepAlive);
  }

  send(lane: Lane, request: Buffer): number {
    this.#connection(this.#slotOf(lane)).send(lane, request);
    return request.length;
  }

  cancel(lane: Lane, code: string): void {
    const connection = this.#connections[this.#slotOf(lane)];
    if (connection !== undefined && connection.carries(lane)) connection.abort(code, code);
  }

  async connect(count: number): Promise<void> {
    const connecting: Array<Promise<void>> = [];
    for (let slot = 0; slot < Math.min(count, this.#connections.length); slot++) {
      const connection = this.#connection(slot);
      if (connection.socket !== undefined) continue;
      const socket = connection.open();
      const connectEvent = this.#endpoint.tls === undefined ? 'connect' : 'secureConnect';
      connecting.push(
        new Promise((resolve) => {
          socket.once(connectEvent, () => resolve());
          socket.once('close', () => resolve());
        }),
      );
    }
    await Promise.all(connecting);
  }

  release(connection: number): void {
    if (this.#config.keepAlive) {
      this.#connections[connection]?.release();
      return;
    }
    const { pipelining } = this.#config;
    for (let slot = connection * pipelining; slot < (connection + 1) * pipelining; slot++) {
      this.#connections[slot]?.release();
    }
  }

  openConnections(): number {
    return this.connectedCount;
  }

  async close(): Promise<void> {
    const closing: Array<Promise<void>> = [];
    for (const connection of this.#connections) {
      if (connection !== undefined) closing.push(connection.discard());
    }
    await Promise.all(closing);
  }

  #slotOf(lane: Lane): number {
    return this.#config.keepAlive ? lane.connection : lane.id;
  }

  #connection(slot: number): Connection {
    let connection = this.#connections[slot];
    if (connection === undefined) {
      const readBuffer = this.#sharedReadBuffer ?? Buffer.allocUnsafe(TLS_READ_BUFFER_BYTES);
      const capacity = this.#config.keepAlive ? this.#config.pipelining : 1;
      connection = new Connection(this, this.#endpoint, this.#sink, readBuffer, capacity, this.#parsing);
      this.#connections[slot] = connection;
    }
    return connection;
  }
}

/** The `net` transport: see `NetTransport`. */
export const createNetTransport: TransportFactory = (config, sink) => new NetTransport(config, sink);
