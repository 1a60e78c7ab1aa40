import net, { type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type tls from 'node:tls';
import {
  CLIENT_PREFACE,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_WINDOW_BYTES,
  encodeFrame,
  encodeGoaway,
  encodeRstStream,
  encodeSettings,
  encodeWindowUpdate,
  ERROR_NAMES,
  ErrorCode,
  Flag,
  FRAME_HEADER_BYTES,
  FrameReader,
  FrameType,
  MAX_WINDOW_BYTES,
  readUint31,
  readUint32,
  Setting,
  SETTINGS_ACK,
  writeFrameHeader,
  writeUint31,
  type FrameHandler,
} from '../http2/frames.js';
import { BAD_CONTENT_LENGTH, HpackDecoder, NO_CONTENT_LENGTH } from '../http2/hpack.js';
import type { H2Request } from '../http2/request.js';
import type { PhaseRecorder } from '../stats/phases.js';
import { watchConnect } from './connect-timing.js';
import { CONNECTION_CLOSED, errorCode } from './error-code.js';
import { FrameSlab } from './frame-slab.js';
import { createHandleWriter, type HandleWriter } from './handle-writer.js';
import { connectTls, type SessionStore } from './tls-setup.js';
import { FIRST_BYTE_IN_LAST_READ, type Lane, type TransportSink } from './transport.js';

/**
 * A request on a stream above the last stream id of the server's GOAWAY: never processed, and not sent
 * again (`retry` is off, or it was already sent again once).
 */
export const H2_GOAWAY = 'H2_GOAWAY';
/** The server does not speak HTTP/2: it answered h2c's preface with something other than SETTINGS, or TLS did not pick h2. */
export const H2_NOT_SUPPORTED = 'H2_NOT_SUPPORTED';

const RESET_CODES = ERROR_NAMES.map((name) => `H2_RST_${name}`);
const ERROR_CODES = ERROR_NAMES.map((name) => `H2_${name}`);

/** The code of a request whose stream the server reset with RST_STREAM: `H2_RST_REFUSED_STREAM`, ... */
export function resetCode(code: number): string {
  return RESET_CODES[code] ?? `H2_RST_${code}`;
}

/** The code of requests lost to a connection error: ours (`H2_PROTOCOL_ERROR`, ...) or the server's GOAWAY code. */
function connectionErrorCode(code: number): string {
  return ERROR_CODES[code] ?? `H2_ERROR_${code}`;
}

/**
 * Our receive windows: as large as HTTP/2 allows (h2load's default too), so that a body is never
 * held back by the client's flow control; the data is consumed as it arrives, and the window is
 * topped up once half of it is used.
 */
const RECEIVE_WINDOW_BYTES = MAX_WINDOW_BYTES;
const WINDOW_REFILL_BYTES = 2 ** 30;
const MAX_STREAM_ID = 2 ** 31 - 1;
/**
 * What every connection says first: the preface, SETTINGS (no server push, the largest stream
 * window) and the connection window raised to match.
 */
const OPENING = Buffer.concat([
  CLIENT_PREFACE,
  encodeSettings([
    [Setting.ENABLE_PUSH, 0],
    [Setting.INITIAL_WINDOW_SIZE, RECEIVE_WINDOW_BYTES],
  ]),
  encodeWindowUpdate(0, RECEIVE_WINDOW_BYTES - DEFAULT_WINDOW_BYTES),
]);

/** Per lane, made once and reused by each of its requests: the stream it has open now, if any. */
export class H2Stream {
  /** Stream id while a request is in flight, 0 otherwise. */
  id = 0;
  connection: H2Connection | undefined;
  status = 0;
  /** Frames of this stream received (headers included). */
  bytes = 0;
  /** DATA payload received since this stream's window was last topped up. */
  unacknowledged = 0;
  /** The response's data so far (padding not counted), and what its content-length declared. */
  dataBytes = 0;
  declaredLength = NO_CONTENT_LENGTH;
  head = false;
  /** First byte of the final response head: FIRST_BYTE_IN_LAST_READ until its read ends. */
  firstByteAt = 0;
  headers: Record<string, string> | undefined;
  chunks: Buffer[] = [];
  /** The request body still to send, from `bodyOffset`, within `sendWindow`. */
  body: Buffer | undefined;
  bodyOffset = 0;
  sendWindow = 0;
  /** Waiting for the server's concurrent-stream limit to let it open: its request, not yet written. */
  queued: H2Request | undefined;
  /** The request in flight, kept to send it again when the server did not process it. */
  request: H2Request | undefined;

  constructor(readonly lane: Lane) {}
}

/** What a connection reports to its transport. */
export interface H2ConnectionOwner {
  connectedCount: number;
  readonly sink: TransportSink;
  readonly capture: boolean;
  readonly keepAlive: boolean;
  /** Requests the server provably never processed are sent again, once (`TransportConfig.retry`). */
  readonly retry: boolean;
  /**
   * Sends `stream`'s request again on its slot's connection: `written` when it went on the wire (a
   * retry, reported with `onRetry`), not when it only waited for the stream limit of a connection
   * that went away.
   */
  resend(stream: H2Stream, written: boolean): void;
  /** The server allows fewer concurrent streams than lanes per connection (first SETTINGS of a connection). */
  onStreamLimit(allowed: number): void;
  /** The server is not an HTTP/2 server. */
  onNotH2(): void;
  /** The connection takes no new streams: the transport opens another for its slot. */
  onRetired(connection: H2Connection): void;
  /** The connection is closed and forgotten. */
  onClosed(connection: H2Connection): void;
}

/** Where and how to connect, worked out once per transport. */
export interface H2Endpoint {
  host: string;
  port: number;
  /** tls.connect options with the shared secure context and ALPN h2, or undefined for h2c. */
  tls: tls.ConnectionOptions | undefined;
  phases: PhaseRecorder;
  lookup: net.LookupFunction;
  /** Plain-TCP reads share one buffer per transport (parsed before the read returns); TLS gets its own. */
  readBuffer: Buffer | undefined;
  sessions: SessionStore | undefined;
  /** How long an h2c connection may stay without the server's SETTINGS before it counts as not HTTP/2 (the request timeout). */
  settingsTimeoutMs: number;
}

function flushLater(connection: H2Connection): void {
  connection.flush();
}

/**
 * One HTTP/2 connection: frames written into slabs and sent once per tick (or once per read, for
 * requests sent from a response handler), frames read by `FrameReader` in the socket's read buffer,
 * header blocks decoded by `HpackDecoder` (which skips the strings nobody asked for), flow control
 * both ways.
 */
export class H2Connection implements FrameHandler {
  readonly socket: Socket;
  connected = false;
  /** The server's first SETTINGS arrived: it speaks HTTP/2. */
  settled = false;
  /** Takes no new streams: GOAWAY, released, out of stream ids, or one request per connection. */
  draining = false;
  released = false;
  closed = false;
  readonly streams = new Map<number, H2Stream>();

  readonly #owner: H2ConnectionOwner;
  readonly #reader = new FrameReader(this);
  readonly #decoder = new HpackDecoder();
  readonly #secure: boolean;
  #nextStreamId = 1;
  #readyAt = 0;
  #writer: HandleWriter | undefined;
  readonly #out = new FrameSlab(() => this.flush());
  #flushScheduled = false;
  #reading = false;
  /** A response head arrived in this read without its end: stamp its first byte when the read ends. */
  #stampPending = false;
  /** The peer's limits and our send windows. */
  #peerMaxFrame = DEFAULT_MAX_FRAME_BYTES;
  #peerInitialWindow = DEFAULT_WINDOW_BYTES;
  /** SETTINGS_MAX_CONCURRENT_STREAMS, as the server last set it (unlimited until it does). */
  #peerMaxStreams = Infinity;
  /** Streams beyond that limit, in stream id order: opened as streams end (RFC 9113 5.1.2). */
  readonly #waiting: H2Stream[] = [];
  #sendWindow = DEFAULT_WINDOW_BYTES;
  #blocked: H2Stream[] = [];
  /** DATA received since the connection window was last topped up. */
  #unacknowledged = 0;
  /** A header block arriving in CONTINUATION frames: its stream, HEADERS flags and fragments. */
  #blockStream = 0;
  #blockFlags = 0;
  #blockParts: Buffer[] = [];
  /** What streams lost with the connection are counted under, once known (a GOAWAY code, our own error). */
  #lossCode: string | undefined;
  #settledWaiters: Array<() => void> = [];
  /** h2c: closes the connection as not HTTP/2 if no SETTINGS came within the request timeout. */
  #settingsTimer: NodeJS.Timeout | undefined;
  readonly #settingsTimeoutMs: number;

  constructor(
    owner: H2ConnectionOwner,
    endpoint: H2Endpoint,
    /** The transport's slot this connection was opened for. */
    readonly slot: number,
  ) {
    this.#owner = owner;
    this.#secure = endpoint.tls !== undefined;
    this.#settingsTimeoutMs = endpoint.settingsTimeoutMs;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the read callback's `this` is the socket
    const connection = this;
    const onread: net.OnReadOpts = {
      buffer: endpoint.readBuffer ?? Buffer.allocUnsafe(DEFAULT_MAX_FRAME_BYTES),
      callback(nread: number, buffer: Uint8Array): boolean {
        connection.#onRead(nread, buffer);
        return true;
      },
    };
    const { host, port, lookup } = endpoint;
    let socket: Socket;
    if (endpoint.tls === undefined) {
      socket = net.connect({ host, port, lookup, onread, noDelay: true });
      socket.once('connect', () => this.#onConnect());
    } else {
      const { sessions } = endpoint;
      const secureSocket = connectTls({ ...endpoint.tls, onread } as tls.ConnectionOptions, sessions);
      // Where the session store checks the certificate, one that failed is destroyed ('error' follows).
      secureSocket.once('secureConnect', () => (sessions === undefined || sessions.accept(secureSocket)) && this.#onConnect());
      socket = secureSocket;
    }
    socket.on('error', (error) => this.#lose(this.#errorCode(error)));
    socket.on('end', () => this.#lose(this.#lossCode ?? CONNECTION_CLOSED));
    socket.on('close', () => this.#lose(this.#lossCode ?? CONNECTION_CLOSED));
    watchConnect(socket, this.#secure, endpoint.phases);
    this.socket = socket;
    // Requests may follow the preface at once (RFC 9113 3.4): the socket holds them until it connects.
    this.#out.queue(OPENING);
    this.#scheduleFlush();
  }

  /** Resolves once the server's SETTINGS arrived or the connection closed. */
  whenSettled(): Promise<void> {
    if (this.settled || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.#settledWaiters.push(resolve));
  }

  /**
   * Opens a stream for `stream`'s lane; returns the bytes of the frames it queued (HEADERS and what of
   * the body the windows let go now; the rest is reported by `onSentMore` as it goes), 0 when the
   * stream waits for the server's concurrent-stream limit (all of it is reported when it opens), or
   * -1 when this connection is out of stream ids.
   */
  send(stream: H2Stream, request: H2Request): number {
    const id = this.#nextStreamId;
    if (id > MAX_STREAM_ID) return -1;
    this.#nextStreamId += 2;
    if (this.#nextStreamId > MAX_STREAM_ID) this.#retire();
    stream.id = id;
    stream.connection = this;
    stream.request = request;
    stream.status = 0;
    stream.bytes = 0;
    stream.unacknowledged = 0;
    stream.dataBytes = 0;
    stream.declaredLength = NO_CONTENT_LENGTH;
    stream.head = request.head;
    stream.firstByteAt = 0;
    if (this.#owner.capture) {
      stream.headers = {};
      stream.chunks = [];
    }
    // Behind any already waiting: stream ids must open in increasing order (RFC 9113 5.1.1).
    if (this.#waiting.length > 0 || this.streams.size >= this.#peerMaxStreams) {
      stream.queued = request;
      this.#waiting.push(stream);
      return 0;
    }
    return this.#write(stream, request);
  }

  /** Writes the frames of a stream that may open now. */
  #write(stream: H2Stream, request: H2Request): number {
    const { id } = stream;
    this.streams.set(id, stream);
    const frames = request.headerFrames;
    const at = this.#out.reserve(frames.length);
    const out = this.#out.buffer;
    frames.copy(out, at);
    for (const start of request.frameStarts) writeUint31(out, at + start + 5, id);
    let queued = frames.length;
    const { body } = request;
    if (body !== undefined) {
      stream.body = body;
      stream.bodyOffset = 0;
      stream.sendWindow = this.#peerInitialWindow;
      queued += this.#sendBody(stream);
    }
    this.#scheduleFlush();
    return queued;
  }

  /**
   * Ends the stream of `stream` with RST_STREAM(CANCEL); the connection and its other streams go on.
   * Returns true when its request never reached the wire (it was waiting, or the connection never opened).
   */
  cancel(stream: H2Stream): boolean {
    if (stream.connection !== this || stream.id === 0) return false;
    if (stream.queued !== undefined) {
      this.#waiting.splice(this.#waiting.indexOf(stream), 1);
      this.#forget(stream);
      return true;
    }
    const unsent = !this.connected && !stream.lane.retried;
    this.#out.queue(encodeRstStream(stream.id, ErrorCode.CANCEL));
    this.#scheduleFlush();
    this.#forget(stream);
    this.#afterStream();
    return unsent;
  }

  /** No new streams; closes once the streams in flight are done (ramping down). */
  release(): void {
    this.released = true;
    this.#retire();
  }

  /** Destroys the socket without reporting anything. */
  discard(): Promise<void> {
    this.#settle();
    for (const stream of this.#waiting.splice(0)) this.#forget(stream);
    for (const stream of this.streams.values()) stream.id = 0;
    this.streams.clear();
    if (this.socket.closed) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    this.socket.destroy();
    return closed;
  }

  flush(): void {
    this.#flushScheduled = false;
    if (this.#out.empty || this.socket.destroyed) return;
    const chunk = this.#out.take();
    if (this.#writer !== undefined) this.#writer.write(chunk);
    else this.socket.write(chunk);
  }

  // ---- FrameHandler ----

  onFrame(type: number, flags: number, streamId: number, bytes: Uint8Array, start: number, end: number): boolean {
    // A response handler may have closed this connection in the middle of a read.
    if (this.closed) return false;
    if (this.#blockStream !== 0 && (type !== FrameType.CONTINUATION || streamId !== this.#blockStream)) {
      return this.#fail(ErrorCode.PROTOCOL_ERROR);
    }
    if (!this.settled && (type !== FrameType.SETTINGS || (flags & Flag.ACK) !== 0)) return this.#notH2();
    switch (type) {
      case FrameType.HEADERS:
        return this.#onHeaders(flags, streamId, bytes, start, end);
      case FrameType.CONTINUATION:
        return this.#onContinuation(flags, streamId, bytes, start, end);
      case FrameType.RST_STREAM:
        if (end - start !== 4) return this.#fail(ErrorCode.FRAME_SIZE_ERROR);
        if (streamId === 0) return this.#fail(ErrorCode.PROTOCOL_ERROR);
        return this.#onReset(streamId, readUint32(bytes, start));
      case FrameType.SETTINGS:
        if (streamId !== 0) return this.#fail(ErrorCode.PROTOCOL_ERROR);
        if ((flags & Flag.ACK) !== 0) return end === start || this.#fail(ErrorCode.FRAME_SIZE_ERROR);
        if ((end - start) % 6 !== 0) return this.#fail(ErrorCode.FRAME_SIZE_ERROR);
        return this.#onSettings(bytes, start, end);
      case FrameType.PING:
        if (end - start !== 8) return this.#fail(ErrorCode.FRAME_SIZE_ERROR);
        if (streamId !== 0) return this.#fail(ErrorCode.PROTOCOL_ERROR);
        if ((flags & Flag.ACK) === 0) {
          this.#out.queue(encodeFrame(FrameType.PING, Flag.ACK, 0, bytes.subarray(start, end)));
          this.#scheduleFlush();
        }
        return true;
      case FrameType.GOAWAY:
        if (end - start < 8 || streamId !== 0) return this.#fail(ErrorCode.PROTOCOL_ERROR);
        return this.#onGoaway(readUint31(bytes, start), readUint32(bytes, start + 4));
      case FrameType.WINDOW_UPDATE:
        if (end - start !== 4) return this.#fail(ErrorCode.FRAME_SIZE_ERROR);
        return this.#onWindowUpdate(streamId, readUint31(bytes, start));
      case FrameType.PUSH_PROMISE:
        // SETTINGS_ENABLE_PUSH is 0: a promise is a connection error (RFC 9113 8.4).
        return this.#fail(ErrorCode.PROTOCOL_ERROR);
      default:
        // PRIORITY and unknown types are ignored (RFC 9113 5.5).
        return true;
    }
  }

  onData(streamId: number, bytes: Uint8Array, start: number, end: number): boolean {
    // Counted whole in onDataEnd; only a captured body wants the bytes (copied: the read buffer is reused).
    if (!this.#owner.capture) return true;
    const stream = this.streams.get(streamId);
    if (stream !== undefined) stream.chunks.push(Buffer.from(bytes.subarray(start, end)));
    return true;
  }

  onDataEnd(streamId: number, flags: number, frameBytes: number, dataBytes: number): boolean {
    if (this.closed) return false;
    if (streamId === 0 || !this.settled) return this.#fail(ErrorCode.PROTOCOL_ERROR);
    this.#unacknowledged += frameBytes;
    if (this.#unacknowledged >= WINDOW_REFILL_BYTES) {
      this.#out.queue(encodeWindowUpdate(0, this.#unacknowledged));
      this.#unacknowledged = 0;
    }
    const stream = this.streams.get(streamId);
    if (stream === undefined) return true;
    stream.bytes += FRAME_HEADER_BYTES + frameBytes;
    if (stream.status === 0) return this.#streamError(stream, ErrorCode.PROTOCOL_ERROR);
    stream.unacknowledged += frameBytes;
    stream.dataBytes += dataBytes;
    if ((flags & Flag.END_STREAM) !== 0) return this.#end(stream);
    if (stream.unacknowledged >= WINDOW_REFILL_BYTES) {
      this.#out.queue(encodeWindowUpdate(streamId, stream.unacknowledged));
      stream.unacknowledged = 0;
    }
    return true;
  }

  onFramingError(code: number): void {
    if (!this.settled) this.#notH2();
    else this.#fail(code);
  }

  // ---- reading ----

  #onRead(nread: number, buffer: Uint8Array): void {
    const socket = this.socket;
    if (this.closed) return;
    this.#reading = true;
    this.#reader.execute(buffer, 0, nread);
    this.#reading = false;
    if (this.#stampPending) this.#stampFirstBytes();
    if (!socket.destroyed) this.flush();
  }

  #onHeaders(flags: number, streamId: number, bytes: Uint8Array, start: number, end: number): boolean {
    if (streamId === 0) return this.#fail(ErrorCode.PROTOCOL_ERROR);
    const frameBytes = end - start;
    let from = start;
    let to = end;
    if ((flags & Flag.PADDED) !== 0) {
      if (from >= to) return this.#fail(ErrorCode.PROTOCOL_ERROR);
      to -= bytes[from]!;
      from++;
    }
    if ((flags & Flag.PRIORITY) !== 0) from += 5;
    if (from > to) return this.#fail(ErrorCode.PROTOCOL_ERROR);
    const stream = this.streams.get(streamId);
    if (stream !== undefined) stream.bytes += FRAME_HEADER_BYTES + frameBytes;
    if ((flags & Flag.END_HEADERS) !== 0) return this.#onHeaderBlock(stream, flags, bytes, from, to);
    this.#blockStream = streamId;
    this.#blockFlags = flags;
    this.#blockParts = [Buffer.from(bytes.subarray(from, to))];
    return true;
  }

  #onContinuation(flags: number, streamId: number, bytes: Uint8Array, start: number, end: number): boolean {
    if (this.#blockStream === 0) return this.#fail(ErrorCode.PROTOCOL_ERROR);
    const stream = this.streams.get(streamId);
    if (stream !== undefined) stream.bytes += FRAME_HEADER_BYTES + end - start;
    this.#blockParts.push(Buffer.from(bytes.subarray(start, end)));
    if ((flags & Flag.END_HEADERS) === 0) return true;
    const block = Buffer.concat(this.#blockParts);
    this.#blockStream = 0;
    this.#blockParts = [];
    return this.#onHeaderBlock(stream, this.#blockFlags, block, 0, block.length);
  }

  /** A whole header block: always decoded (HPACK state is per connection), used when its stream is ours. */
  #onHeaderBlock(stream: H2Stream | undefined, flags: number, block: Uint8Array, start: number, end: number): boolean {
    const trailers = stream !== undefined && stream.status !== 0;
    const capture = stream !== undefined && !trailers ? stream.headers : undefined;
    const status = this.#decoder.decode(block, start, end, capture);
    if (status === -1) return this.#fail(ErrorCode.COMPRESSION_ERROR);
    if (stream === undefined) return true;
    const endStream = (flags & Flag.END_STREAM) !== 0;
    if (trailers) return endStream ? this.#end(stream) : this.#streamError(stream, ErrorCode.PROTOCOL_ERROR);
    if (status < 100 || status > 999) return this.#streamError(stream, ErrorCode.PROTOCOL_ERROR);
    if (status < 200) {
      // An informational response (100 Continue, 103 Early Hints): the final one follows.
      if (endStream || status === 101) return this.#streamError(stream, ErrorCode.PROTOCOL_ERROR);
      if (capture !== undefined) stream.headers = {};
      return true;
    }
    stream.status = status;
    stream.declaredLength = this.#decoder.contentLength;
    if (stream.declaredLength === BAD_CONTENT_LENGTH) return this.#streamError(stream, ErrorCode.PROTOCOL_ERROR);
    stream.firstByteAt = FIRST_BYTE_IN_LAST_READ;
    if (endStream) return this.#end(stream);
    this.#stampPending = true;
    return true;
  }

  #stampFirstBytes(): void {
    this.#stampPending = false;
    const now = performance.now();
    for (const stream of this.streams.values()) {
      if (stream.firstByteAt === FIRST_BYTE_IN_LAST_READ) stream.firstByteAt = now;
    }
  }

  #onReset(streamId: number, code: number): boolean {
    const stream = this.streams.get(streamId);
    if (stream === undefined) return true;
    this.#forget(stream);
    // Closed before any processing (RFC 9113 8.7), whatever the method. It goes again on a new stream
    // of this connection while it takes streams: a refusal is a stream error that leaves the connection
    // sound, usually the server's concurrent-stream limit (5.1.2), which the waiting queue honours.
    if (code === ErrorCode.REFUSED_STREAM && this.#owner.retry && !stream.lane.retried) this.#owner.resend(stream, true);
    else this.#owner.sink.onError(stream.lane, resetCode(code));
    return this.#afterStream();
  }

  #onSettings(bytes: Uint8Array, start: number, end: number): boolean {
    const first = !this.settled;
    for (let at = start; at < end; at += 6) {
      const id = (bytes[at]! << 8) | bytes[at + 1]!;
      const value = readUint32(bytes, at + 2);
      if (id === Setting.MAX_CONCURRENT_STREAMS) {
        // Also when lowered later (streams beyond it wait); the first value also sizes the lanes.
        if (value !== this.#peerMaxStreams) this.#owner.onStreamLimit(value);
        this.#peerMaxStreams = value;
      } else if (id === Setting.INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW_BYTES) return this.#fail(ErrorCode.FLOW_CONTROL_ERROR);
        const delta = value - this.#peerInitialWindow;
        this.#peerInitialWindow = value;
        for (const stream of this.streams.values()) stream.sendWindow += delta;
      } else if (id === Setting.MAX_FRAME_SIZE) {
        if (value < DEFAULT_MAX_FRAME_BYTES || value > 2 ** 24 - 1) return this.#fail(ErrorCode.PROTOCOL_ERROR);
        this.#peerMaxFrame = value;
      }
    }
    this.#out.queue(SETTINGS_ACK);
    this.#scheduleFlush();
    if (first) {
      this.settled = true;
      this.#settle();
    }
    this.#resumeBodies();
    this.#openWaiting();
    return true;
  }

  #onGoaway(lastStreamId: number, code: number): boolean {
    if (code !== ErrorCode.NO_ERROR) this.#lossCode ??= connectionErrorCode(code);
    this.#retire();
    const lost: H2Stream[] = [];
    for (const [id, stream] of this.streams) {
      // Streams at or below the last id are being answered (or go with the connection).
      if (id > lastStreamId) lost.push(stream);
    }
    // Those above it were never processed (RFC 9113 6.8): sent again once, on the slot's new connection.
    const retry = this.#owner.retry;
    for (const stream of lost) {
      this.#forget(stream);
      if (retry && !stream.lane.retried) this.#owner.resend(stream, true);
      else this.#owner.sink.onError(stream.lane, H2_GOAWAY);
    }
    // Streams still waiting for the limit never went out: they move to the new connection.
    for (const stream of this.#waiting.splice(0)) {
      this.#forget(stream);
      if (retry) this.#owner.resend(stream, false);
      else this.#owner.sink.onError(stream.lane, H2_GOAWAY, !stream.lane.retried);
    }
    return this.#afterStream();
  }

  #onWindowUpdate(streamId: number, increment: number): boolean {
    if (increment === 0) return this.#fail(ErrorCode.PROTOCOL_ERROR);
    if (streamId === 0) {
      this.#sendWindow += increment;
      if (this.#sendWindow > MAX_WINDOW_BYTES) return this.#fail(ErrorCode.FLOW_CONTROL_ERROR);
    } else {
      const stream = this.streams.get(streamId);
      if (stream === undefined) return true;
      stream.sendWindow += increment;
      if (stream.sendWindow > MAX_WINDOW_BYTES) return this.#streamError(stream, ErrorCode.FLOW_CONTROL_ERROR);
    }
    this.#resumeBodies();
    return true;
  }

  // ---- streams ----

  #complete(stream: H2Stream): boolean {
    this.#forget(stream);
    const { lane } = stream;
    lane.firstByteAt = stream.firstByteAt;
    // Requests sent before the connection was ready went out when it was.
    if (lane.writtenAt < this.#readyAt) lane.writtenAt = this.#readyAt;
    if (!this.#owner.keepAlive) this.#retire();
    const { sink } = this.#owner;
    if (this.#owner.capture) {
      const body = stream.chunks.length === 1 ? stream.chunks[0]! : Buffer.concat(stream.chunks);
      stream.chunks = [];
      sink.onResponse(lane, stream.status, stream.bytes, { headers: stream.headers ?? {}, body });
    } else {
      sink.onResponse(lane, stream.status, stream.bytes);
    }
    return this.#afterStream();
  }

  /**
   * The server ended the stream: a response whose data does not add up to its content-length is
   * malformed, a stream error (RFC 9113 8.1.1), as nghttp2 and Node's client treat it. A HEAD
   * response, a 204 and a 304 carry a content-length with no data.
   */
  #end(stream: H2Stream): boolean {
    const declared = stream.declaredLength;
    if (declared >= 0 && declared !== stream.dataBytes && !stream.head && stream.status !== 204 && stream.status !== 304) {
      return this.#streamError(stream, ErrorCode.PROTOCOL_ERROR);
    }
    return this.#complete(stream);
  }

  /** A stream-level error (RFC 9113 5.4.2): reset that stream, count its request, go on. */
  #streamError(stream: H2Stream, code: number): boolean {
    this.#out.queue(encodeRstStream(stream.id, code));
    this.#scheduleFlush();
    this.#forget(stream);
    this.#owner.sink.onError(stream.lane, connectionErrorCode(code));
    return this.#afterStream();
  }

  /** After a stream ended: false when the read must stop (the connection went, or a handler closed it). */
  #afterStream(): boolean {
    this.#openWaiting();
    if (this.streams.size === 0 && this.draining && !this.closed) {
      this.flush();
      this.#close();
    }
    return !this.closed;
  }

  #forget(stream: H2Stream): void {
    this.streams.delete(stream.id);
    stream.id = 0;
    stream.connection = undefined;
    stream.body = undefined;
    stream.queued = undefined;
  }

  /** Opens the waiting streams the server's limit now allows; each counts as written from now. */
  #openWaiting(): void {
    if (this.closed) return;
    const { sink } = this.#owner;
    while (this.#waiting.length > 0 && this.streams.size < this.#peerMaxStreams) {
      const stream = this.#waiting.shift()!;
      const request = stream.queued!;
      stream.queued = undefined;
      stream.lane.writtenAt = performance.now();
      sink.onSentMore?.(stream.lane, this.#write(stream, request));
    }
  }

  /** Queues DATA frames of `stream`'s body while the windows allow; returns their bytes. */
  #sendBody(stream: H2Stream): number {
    const body = stream.body!;
    let queued = 0;
    while (stream.bodyOffset < body.length || body.length === 0) {
      const left = body.length - stream.bodyOffset;
      const length = Math.min(left, stream.sendWindow, this.#sendWindow, this.#peerMaxFrame);
      if (length <= 0 && left > 0) {
        if (!this.#blocked.includes(stream)) this.#blocked.push(stream);
        return queued;
      }
      const last = length === left;
      const at = this.#out.reserve(FRAME_HEADER_BYTES + length);
      const out = this.#out.buffer;
      writeFrameHeader(out, at, length, FrameType.DATA, last ? Flag.END_STREAM : 0, stream.id);
      body.copy(out, at + FRAME_HEADER_BYTES, stream.bodyOffset, stream.bodyOffset + length);
      stream.bodyOffset += length;
      stream.sendWindow -= length;
      this.#sendWindow -= length;
      queued += FRAME_HEADER_BYTES + length;
      if (last) break;
    }
    stream.body = undefined;
    return queued;
  }

  #resumeBodies(): void {
    if (this.#blocked.length === 0) return;
    const blocked = this.#blocked;
    this.#blocked = [];
    const { sink } = this.#owner;
    for (const stream of blocked) {
      if (stream.connection === this && stream.body !== undefined) sink.onSentMore?.(stream.lane, this.#sendBody(stream));
    }
    this.#scheduleFlush();
  }

  // ---- writing ----

  #scheduleFlush(): void {
    // A read flushes as it ends; elsewhere the frames of one tick leave in one write.
    if (this.#reading || this.#flushScheduled) return;
    this.#flushScheduled = true;
    process.nextTick(flushLater, this);
  }

  // ---- connection state ----

  #onConnect(): void {
    if (this.closed) return;
    this.connected = true;
    this.#readyAt = performance.now();
    this.#owner.connectedCount++;
    if (this.#secure && (this.socket as tls.TLSSocket).alpnProtocol !== 'h2') {
      // A TLS server without ALPN leaves the choice to us; it did not choose h2, so it is not one.
      this.#notH2();
      return;
    }
    if (this.#secure) return;
    this.#writer = createHandleWriter(this.socket);
    // An HTTP/2 server's first frame is its SETTINGS (RFC 9113 3.4); a server silent on the h2c
    // preface for a whole request timeout is not one, and its requests say so instead of timing out.
    if (!this.settled) {
      this.#settingsTimer = setTimeout(() => this.settled || this.#notH2(), this.#settingsTimeoutMs);
      this.#settingsTimer.unref();
    }
  }

  #notH2(): false {
    this.#lossCode = H2_NOT_SUPPORTED;
    this.#owner.onNotH2();
    this.#close();
    return false;
  }

  /** A connection error (RFC 9113 5.4.1): GOAWAY with `code`, close, count every stream in flight under it. */
  #fail(code: number): false {
    this.#lossCode ??= connectionErrorCode(code);
    // The last stream id is the last one the server opened, and a client without push has none.
    this.#out.queue(encodeGoaway(0, code));
    this.flush();
    this.#close();
    return false;
  }

  #errorCode(error: Error): string {
    const code = errorCode(error);
    // A TLS server without h2 refuses the ALPN offer; a write queued during the handshake (the
    // preface) reports that alert as a failed write.
    if (code === 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL' || (code === 'EPROTO' && error.message.includes('no application protocol'))) {
      this.#owner.onNotH2();
      return H2_NOT_SUPPORTED;
    }
    return this.#lossCode ?? code;
  }

  /** The socket failed or closed: every stream in flight is counted under `code`, once. */
  #lose(code: string): void {
    if (!this.closed) this.#lossCode ??= code;
    this.#close();
  }

  #close(): void {
    if (this.closed) return;
    // Streams on a connection that never opened never left.
    const unsent = !this.connected;
    this.closed = true;
    this.draining = true;
    if (this.connected) {
      this.connected = false;
      this.#owner.connectedCount--;
    }
    this.#owner.onRetired(this);
    this.#owner.onClosed(this);
    this.#settle();
    this.socket.destroy();
    const waiting = this.#waiting.splice(0);
    if (this.streams.size === 0 && waiting.length === 0) return;
    const code = this.#lossCode ?? CONNECTION_CLOSED;
    const lost = [...this.streams.values()];
    for (const stream of lost) this.#forget(stream);
    for (const stream of waiting) this.#forget(stream);
    // A request sent again had reached the wire on its first connection.
    for (const stream of lost) this.#owner.sink.onError(stream.lane, code, unsent && !stream.lane.retried);
    for (const stream of waiting) this.#owner.sink.onError(stream.lane, code, !stream.lane.retried);
  }

  #retire(): void {
    if (!this.draining) {
      this.draining = true;
      this.#owner.onRetired(this);
    }
    // Inside a read, the stream that ends closes it (`#afterStream`).
    if (!this.#reading) this.#afterStream();
  }

  #settle(): void {
    clearTimeout(this.#settingsTimer);
    const waiters = this.#settledWaiters;
    this.#settledWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
