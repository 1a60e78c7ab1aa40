import { performance } from 'node:perf_hooks';
import { encodeRequest, type H2Request } from '../http2/request.js';
import { H2Connection, H2Stream, H2_NOT_SUPPORTED, type H2ConnectionOwner, type H2Endpoint } from './h2-connection.js';
import { cachedLookup } from './lookup-cache.js';
import { sharedTlsOptions, socketTarget } from './endpoint.js';
import { SessionStore } from './tls-setup.js';
import type { Lane, Transport, TransportConfig, TransportFactory, TransportSink } from './transport.js';
import type { ResolvedRequest } from '../shared/exchange.js';

/*
 * HTTP/2 framed by hand over raw sockets (h2-connection.ts, ../http2/), as `net` does HTTP/1.1:
 * node:http2 spends most of its CPU per stream (benchmarks/README.md, "Measurements behind the
 * code"). A request is a pre-encoded HEADERS frame whose stream id is patched in, frames sent in one
 * tick leave in one write, and the HPACK decoder skips the header strings nobody asked for.
 */

/** Plain-TCP reads share one buffer per transport: each read is parsed before the next one. */
const SHARED_READ_BUFFER_BYTES = 64 * 1024;

/**
 * HTTP/2: `connections` connections (h2 over TLS with ALPN for https:, h2c with prior knowledge
 * for http:), each carrying its lanes as concurrent streams. Streams fail alone: a reset or a
 * timeout ends one request, not the connection.
 */
class H2Transport implements Transport<H2Request>, H2ConnectionOwner {
  connectedCount = 0;
  readonly sink: TransportSink;
  readonly capture: boolean;
  readonly stream: boolean;
  readonly heads: boolean;
  readonly keepAlive: boolean;
  readonly retry: boolean;

  readonly #config: TransportConfig;
  readonly #endpoint: H2Endpoint;
  /** The connection taking new streams in each slot (one per connection, or per lane without keep-alive). */
  readonly #slots: Array<H2Connection | undefined>;
  readonly #streams: Array<H2Stream | undefined> = [];
  /** Every connection not yet closed, including retired ones still finishing their streams. */
  readonly #live = new Set<H2Connection>();
  /** The lowest SETTINGS_MAX_CONCURRENT_STREAMS any connection was given, when below the lanes. */
  #streamLimit: number | undefined;

  constructor(config: TransportConfig, sink: TransportSink) {
    this.#config = config;
    this.sink = sink;
    this.capture = config.captureResponses;
    this.stream = config.stream ?? false;
    this.heads = config.heads ?? false;
    this.keepAlive = config.keepAlive;
    this.retry = config.retry;
    const { secure, host, port } = socketTarget(config.url);
    const lookup = cachedLookup();
    const sessions = secure && config.tlsSessionReuse ? new SessionStore(config.tls) : undefined;
    const tlsOptions = secure
      ? { ...sharedTlsOptions(config.tls ?? {}, host, port, lookup), ALPNProtocols: ['h2'] }
      : undefined;
    this.#endpoint = {
      host,
      port,
      tls: tlsOptions === undefined ? undefined : (sessions?.connectOptions(tlsOptions) ?? tlsOptions),
      phases: config.phases,
      lookup,
      readBuffer: secure ? undefined : Buffer.allocUnsafe(SHARED_READ_BUFFER_BYTES),
      sessions,
      settingsTimeoutMs: config.timeoutMs,
    };
    this.#slots = new Array<H2Connection | undefined>(
      config.keepAlive ? config.connections : config.connections * config.pipelining,
    ).fill(undefined);
  }

  prepare(request: ResolvedRequest): H2Request {
    return encodeRequest(this.#config.url, request);
  }

  send(lane: Lane, request: H2Request): number {
    let stream = this.#streams[lane.id];
    if (stream === undefined) {
      stream = new H2Stream(lane);
      this.#streams[lane.id] = stream;
    }
    return this.#sendOnSlot(stream, request);
  }

  resend(stream: H2Stream, written: boolean): void {
    const { lane } = stream;
    if (written) lane.retried = true;
    // The request that will be answered is written now; its latency still runs from the first send.
    lane.writtenAt = performance.now();
    const queued = this.#sendOnSlot(stream, stream.request!);
    if (written) this.sink.onRetry?.(lane, queued);
    else if (queued > 0) this.sink.onSentMore?.(lane, queued);
  }

  cancel(lane: Lane, code: string): void {
    const stream = this.#streams[lane.id];
    if (stream?.connection === undefined) return;
    // The request timer and the SETTINGS timer run out together: either way the server is not HTTP/2.
    if (code === 'TIMEOUT' && stream.connection.notH2IfSilent()) return;
    const unsent = stream.connection.cancel(stream);
    this.sink.onError(lane, code, unsent);
  }

  unwritten(lane: Lane): boolean {
    const stream = this.#streams[lane.id];
    const connection = stream?.connection;
    if (connection === undefined) return false;
    // Waiting for the server's stream limit, or on a session that never opened.
    return stream!.queued !== undefined || (!connection.connected && !lane.retried);
  }

  async connect(count: number): Promise<void> {
    const opening: Array<Promise<void>> = [];
    for (let slot = 0; slot < Math.min(count, this.#slots.length); slot++) {
      if (this.#slots[slot] === undefined) opening.push(this.#open(slot).whenSettled());
    }
    // An h2c server that never sends SETTINGS is closed as not HTTP/2 after the request timeout (see
    // H2Connection); one that never finishes connecting is left to the engine's bound on the start.
    await Promise.all(opening);
  }

  release(connection: number): void {
    if (this.#config.keepAlive) {
      this.#slots[connection]?.release();
      return;
    }
    const { pipelining } = this.#config;
    for (let slot = connection * pipelining; slot < (connection + 1) * pipelining; slot++) this.#slots[slot]?.release();
  }

  openConnections(): number {
    return this.connectedCount;
  }

  lanesPerConnection(): number | undefined {
    return this.#streamLimit;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#live].map((connection) => connection.discard()));
  }

  onStreamLimit(allowed: number): void {
    const { pipelining } = this.#config;
    if (allowed >= pipelining) return;
    const cap = Math.max(1, allowed);
    if (this.#streamLimit === undefined || cap < this.#streamLimit) this.#streamLimit = cap;
    this.sink.onWarning?.(
      'H2_STREAMS_CAPPED',
      `the server allows ${allowed} concurrent streams per session (SETTINGS_MAX_CONCURRENT_STREAMS) and h2Streams was ` +
        `${pipelining}: each session carried at most ${cap}, so at most ${cap} x connections ` +
        "requests were in flight. Raise connections for more concurrency, or the server's limit.",
    );
  }

  onNotH2(): void {
    const secure = this.#endpoint.tls !== undefined;
    this.sink.onWarning?.(
      H2_NOT_SUPPORTED,
      `${this.#config.url.origin} does not speak HTTP/2 (${secure ? 'TLS did not negotiate h2 by ALPN' : 'it did not answer the h2c preface with SETTINGS'}): ` +
        "its requests are counted under H2_NOT_SUPPORTED. Use transport 'net' for an HTTP/1.1 server.",
    );
  }

  onRetired(connection: H2Connection): void {
    if (this.#slots[connection.slot] === connection) this.#slots[connection.slot] = undefined;
  }

  onClosed(connection: H2Connection): void {
    this.#live.delete(connection);
  }

  #sendOnSlot(stream: H2Stream, request: H2Request): number {
    const slot = this.#slotOf(stream.lane);
    let connection = this.#slots[slot] ?? this.#open(slot);
    connection.released = false;
    let queued = connection.send(stream, request);
    if (queued < 0) {
      // Out of stream ids (2^31 of them): the slot gets a new connection.
      connection = this.#open(slot);
      queued = connection.send(stream, request);
    }
    return queued;
  }

  #slotOf(lane: Lane): number {
    return this.#config.keepAlive ? lane.connection : lane.id;
  }

  #open(slot: number): H2Connection {
    const connection = new H2Connection(this, this.#endpoint, slot);
    this.#slots[slot] = connection;
    this.#live.add(connection);
    return connection;
  }
}

/** The `h2` transport: see `H2Transport`. */
export const createH2Transport: TransportFactory = (config, sink) => new H2Transport(config, sink);
