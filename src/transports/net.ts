import net from 'node:net';
import { HeadTemplate } from '../http1/head-template.js';
import type { ResponseParserOptions } from '../http1/response-handler.js';
import { encodeRequest } from '../http1/request.js';
import { cachedLookup } from './lookup-cache.js';
import { sharedTlsOptions, socketTarget, type Endpoint } from './endpoint.js';
import { Connection, opensRawTcp, type ConnectionOwner } from './net-connection.js';
import { SessionStore } from './tls-setup.js';
import type { Lane, Transport, TransportConfig, TransportFactory, TransportSink } from './transport.js';
import type { ResolvedRequest } from '../shared/exchange.js';

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

/**
 * HTTP/1.1 straight over `net`/`tls` sockets: requests are encoded once and written as ready
 * Buffers, responses are parsed in the socket's read buffer by `ResponseParser`.
 */
class NetTransport implements Transport<Buffer>, ConnectionOwner {
  /** Sockets connected now; kept by the connections. */
  connectedCount = 0;
  readonly retry: boolean;
  closesEveryResponse = false;

  readonly #config: TransportConfig;
  readonly #sink: TransportSink;
  readonly #endpoint: Endpoint;
  readonly #connections: Array<Connection | undefined>;
  readonly #sharedReadBuffer: Buffer | undefined;
  readonly #sessions: SessionStore | undefined;
  /** Every connection usually gets the same head: one template, hot in cache, for all of them. */
  readonly #parsing: ResponseParserOptions;
  /** Requests in flight per connection: `pipelining` with keep-alive, else each lane has its own. */
  readonly #capacity: number;

  constructor(config: TransportConfig, sink: TransportSink) {
    this.#config = config;
    this.#sink = sink;
    this.retry = config.retry;
    const { secure, host, port } = socketTarget(config.url);
    const lookup = cachedLookup();
    this.#sessions = secure && config.tlsSessionReuse ? new SessionStore(config.tls) : undefined;
    const tlsOptions = secure ? sharedTlsOptions(config.tls ?? {}, host, port, lookup) : undefined;
    this.#endpoint = {
      host,
      port,
      tls: tlsOptions === undefined ? undefined : (this.#sessions?.connectOptions(tlsOptions) ?? tlsOptions),
      keepAlive: config.keepAlive,
      phases: config.phases,
      lookup,
      address: net.isIP(host) === 0 ? undefined : { ip: host, family: net.isIP(host) },
    };
    // Without keep-alive each request needs its own socket, so every lane gets a slot of its own.
    const slots = config.keepAlive ? config.connections : config.connections * config.pipelining;
    this.#connections = new Array<Connection | undefined>(slots).fill(undefined);
    this.#sharedReadBuffer = secure ? undefined : Buffer.allocUnsafe(SHARED_READ_BUFFER_BYTES);
    this.#capacity = config.keepAlive ? config.pipelining : 1;
    this.#parsing = {
      capture: config.captureResponses,
      template: new HeadTemplate(),
      body: config.stream,
      heads: config.heads,
    };
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

  unwritten(lane: Lane): boolean {
    const connection = this.#connections[this.#slotOf(lane)];
    return connection !== undefined && connection.unwritten(lane);
  }

  async connect(count: number): Promise<void> {
    await this.#resolveAddress();
    const connecting: Array<Promise<void>> = [];
    for (let slot = 0; slot < Math.min(count, this.#connections.length); slot++) {
      const connection = this.#connection(slot);
      if (!connection.isOpen) connecting.push(connection.whenOpen());
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

  /**
   * A host name that resolves to one address is connected to on bare TCP handles (see `Endpoint`);
   * through the transport's lookup, so the sockets' lookups later are answered from its cache. A
   * failed lookup leaves the name to the sockets, which report it per request.
   */
  #resolveAddress(): Promise<void> {
    const endpoint = this.#endpoint;
    if (endpoint.address !== undefined || !opensRawTcp(endpoint, this.#capacity)) return Promise.resolve();
    return new Promise((resolve) => {
      endpoint.lookup(endpoint.host, { all: true }, (error, addresses) => {
        if (error === null && Array.isArray(addresses) && addresses.length === 1) {
          endpoint.address = { ip: addresses[0]!.address, family: addresses[0]!.family };
        }
        resolve();
      });
    });
  }

  #slotOf(lane: Lane): number {
    return this.#config.keepAlive ? lane.connection : lane.id;
  }

  #connection(slot: number): Connection {
    let connection = this.#connections[slot];
    if (connection === undefined) {
      const readBuffer = this.#sharedReadBuffer ?? Buffer.allocUnsafe(TLS_READ_BUFFER_BYTES);
      connection = new Connection(
        this,
        this.#endpoint,
        this.#sink,
        readBuffer,
        this.#capacity,
        this.#parsing,
        this.#sessions,
      );
      this.#connections[slot] = connection;
    }
    return connection;
  }
}

/** The `net` transport: see `NetTransport`. */
export const createNetTransport: TransportFactory = (config, sink) => new NetTransport(config, sink);
