import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  DEFAULT_MAX_FRAME_BYTES, DEFAULT_WINDOW_BYTES, encodeGoaway, encodeRstStream, ErrorCode, Flag, FRAME_HEADER_BYTES,
  FrameType, writeFrameHeader, writeUint31,
} from '../http2/frames.js';
import { NO_CONTENT_LENGTH } from '../http2/hpack.js';
import type { H2Request } from '../http2/request.js';
import { CONNECTION_CLOSED } from './error-code.js';
import { FrameSlab } from './frame-slab.js';
import type { HandleWriter } from './handle-writer.js';
import { connectionErrorCode, H2_NOT_SUPPORTED, type H2Stream } from './h2-stream.js';
import type { TransportSink } from './transport.js';

const MAX_STREAM_ID = 2 ** 31 - 1;

function flushLater(session: H2Session): void {
  session.flush();
}

/** What a connection reports to its transport. */
export interface H2ConnectionOwner {
  connectedCount: number;
  readonly sink: TransportSink;
  readonly capture: boolean;
  /** Hand DATA payloads to `sink.onBody` as they arrive (`TransportConfig.stream`). */
  readonly stream: boolean;
  /** Tell `sink.onHead` of each final head (`TransportConfig.heads`); its fields are decoded for it. */
  readonly heads: boolean;
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
  onRetired(connection: H2Session): void;
  /** The connection is closed and forgotten. */
  onClosed(connection: H2Session): void;
}

/**
 * The streams of one HTTP/2 connection and what it writes: opening streams (in id order, within the
 * server's concurrent-stream limit), request bodies within the send windows, frames gathered in slabs
 * and sent once per tick (or once per read, for requests sent from a response handler), and how the
 * connection retires and closes. `H2Connection` opens its socket and reads the server's frames.
 */
export abstract class H2Session {
  abstract readonly socket: Socket;
  abstract notH2IfSilent(): boolean;
  connected = false;
  /** The server's first SETTINGS arrived: it speaks HTTP/2. */
  settled = false;
  /** Takes no new streams: GOAWAY, released, out of stream ids, or one request per connection. */
  draining = false;
  released = false;
  closed = false;
  readonly streams = new Map<number, H2Stream>();

  #nextStreamId = 1;
  /** When the connection opened: requests sent before count as written then. */
  protected readyAt = 0;
  protected writer: HandleWriter | undefined;
  protected readonly out = new FrameSlab(() => this.flush());
  #flushScheduled = false;
  protected reading = false;
  /** A response head arrived in this read without its end: stamp its first byte when the read ends. */
  protected stampPending = false;
  /** The peer's limits and our send windows. */
  protected peerMaxFrame = DEFAULT_MAX_FRAME_BYTES;
  protected peerInitialWindow = DEFAULT_WINDOW_BYTES;
  /** SETTINGS_MAX_CONCURRENT_STREAMS, as the server last set it (unlimited until it does). */
  protected peerMaxStreams = Infinity;
  /** Streams beyond that limit, in stream id order: opened as streams end (RFC 9113 5.1.2). */
  protected readonly waiting: H2Stream[] = [];
  protected sendWindow = DEFAULT_WINDOW_BYTES;
  #blocked: H2Stream[] = [];
  /** What streams lost with the connection are counted under, once known (a GOAWAY code, our own error). */
  protected lossCode: string | undefined;
  #settledWaiters: Array<() => void> = [];
  /** h2c: closes the connection as not HTTP/2 if no SETTINGS came within the request timeout. */
  protected settingsTimer: NodeJS.Timeout | undefined;

  constructor(
    protected readonly owner: H2ConnectionOwner,
    /** The transport's slot this connection was opened for. */
    readonly slot: number,
  ) {}

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
    if (this.#nextStreamId > MAX_STREAM_ID) this.retire();
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
    if (this.owner.capture) {
      stream.headers = {};
      stream.chunks = [];
    } else if (this.owner.heads || this.owner.stream) {
      stream.headers = {};
    }
    // Behind any already waiting: stream ids must open in increasing order (RFC 9113 5.1.1).
    if (this.waiting.length > 0 || this.streams.size >= this.peerMaxStreams) {
      stream.queued = request;
      this.waiting.push(stream);
      return 0;
    }
    return this.#write(stream, request);
  }

  /** Writes the frames of a stream that may open now. */
  #write(stream: H2Stream, request: H2Request): number {
    const { id } = stream;
    this.streams.set(id, stream);
    const frames = request.headerFrames;
    const at = this.out.reserve(frames.length);
    const out = this.out.buffer;
    frames.copy(out, at);
    for (const start of request.frameStarts) writeUint31(out, at + start + 5, id);
    let queued = frames.length;
    const { body } = request;
    if (body !== undefined) {
      stream.body = body;
      stream.bodyOffset = 0;
      stream.sendWindow = this.peerInitialWindow;
      queued += this.#sendBody(stream);
    }
    this.scheduleFlush();
    return queued;
  }

  /**
   * Ends the stream of `stream` with RST_STREAM(CANCEL); the connection and its other streams go on.
   * Returns true when its request never reached the wire (it was waiting, or the connection never opened).
   */
  cancel(stream: H2Stream): boolean {
    if (stream.connection !== this || stream.id === 0) return false;
    if (stream.queued !== undefined) {
      this.waiting.splice(this.waiting.indexOf(stream), 1);
      this.forget(stream);
      return true;
    }
    const unsent = !this.connected && !stream.lane.retried;
    this.out.queue(encodeRstStream(stream.id, ErrorCode.CANCEL));
    this.scheduleFlush();
    this.forget(stream);
    this.afterStream();
    return unsent;
  }

  /** No new streams; closes once the streams in flight are done (ramping down). */
  release(): void {
    this.released = true;
    this.retire();
  }

  /** Destroys the socket without reporting anything. */
  discard(): Promise<void> {
    this.settle();
    for (const stream of this.waiting.splice(0)) this.forget(stream);
    for (const stream of this.streams.values()) stream.id = 0;
    this.streams.clear();
    if (this.socket.closed) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    this.socket.destroy();
    return closed;
  }

  flush(): void {
    this.#flushScheduled = false;
    if (this.out.empty || this.socket.destroyed) return;
    const chunk = this.out.take();
    if (this.writer !== undefined) this.writer.write(chunk);
    else this.socket.write(chunk);
  }

  // ---- streams ----

  #complete(stream: H2Stream): boolean {
    this.forget(stream);
    const { lane } = stream;
    lane.firstByteAt = stream.firstByteAt;
    // Requests sent before the connection was ready went out when it was.
    if (lane.writtenAt < this.readyAt) lane.writtenAt = this.readyAt;
    if (!this.owner.keepAlive) this.retire();
    const { sink } = this.owner;
    if (this.owner.capture) {
      const body = stream.chunks.length === 1 ? stream.chunks[0]! : Buffer.concat(stream.chunks);
      stream.chunks = [];
      sink.onResponse(lane, stream.status, stream.bytes, { headers: stream.headers ?? {}, body });
    } else {
      sink.onResponse(lane, stream.status, stream.bytes);
    }
    return this.afterStream();
  }

  /**
   * `sink.onBody` ended the response before the server did: it completes now, and the stream is
   * cancelled (RST_STREAM CANCEL); the connection and its other streams go on.
   */
  protected endEarly(stream: H2Stream): boolean {
    this.out.queue(encodeRstStream(stream.id, ErrorCode.CANCEL));
    this.scheduleFlush();
    return this.#complete(stream);
  }

  /**
   * The server ended the stream: a response whose data does not add up to its content-length is
   * malformed, a stream error (RFC 9113 8.1.1), as nghttp2 and Node's client treat it. A HEAD
   * response, a 204 and a 304 carry a content-length with no data.
   */
  protected end(stream: H2Stream): boolean {
    const declared = stream.declaredLength;
    if (declared >= 0 && declared !== stream.dataBytes && !stream.head && stream.status !== 204 && stream.status !== 304) {
      return this.streamError(stream, ErrorCode.PROTOCOL_ERROR);
    }
    return this.#complete(stream);
  }

  /** A stream-level error (RFC 9113 5.4.2): reset that stream, count its request, go on. */
  protected streamError(stream: H2Stream, code: number): boolean {
    this.out.queue(encodeRstStream(stream.id, code));
    this.scheduleFlush();
    this.forget(stream);
    this.owner.sink.onError(stream.lane, connectionErrorCode(code));
    return this.afterStream();
  }

  /** After a stream ended: false when the read must stop (the connection went, or a handler closed it). */
  protected afterStream(): boolean {
    this.openWaiting();
    if (this.streams.size === 0 && this.draining && !this.closed) {
      this.flush();
      this.#close();
    }
    return !this.closed;
  }

  protected forget(stream: H2Stream): void {
    this.streams.delete(stream.id);
    stream.id = 0;
    stream.connection = undefined;
    stream.body = undefined;
    stream.queued = undefined;
  }

  /** Opens the waiting streams the server's limit now allows; each counts as written from now. */
  protected openWaiting(): void {
    if (this.closed) return;
    const { sink } = this.owner;
    while (this.waiting.length > 0 && this.streams.size < this.peerMaxStreams) {
      const stream = this.waiting.shift()!;
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
      const length = Math.min(left, stream.sendWindow, this.sendWindow, this.peerMaxFrame);
      if (length <= 0 && left > 0) {
        if (!this.#blocked.includes(stream)) this.#blocked.push(stream);
        return queued;
      }
      const last = length === left;
      const at = this.out.reserve(FRAME_HEADER_BYTES + length);
      const out = this.out.buffer;
      writeFrameHeader(out, at, length, FrameType.DATA, last ? Flag.END_STREAM : 0, stream.id);
      body.copy(out, at + FRAME_HEADER_BYTES, stream.bodyOffset, stream.bodyOffset + length);
      stream.bodyOffset += length;
      stream.sendWindow -= length;
      this.sendWindow -= length;
      queued += FRAME_HEADER_BYTES + length;
      if (last) break;
    }
    stream.body = undefined;
    return queued;
  }

  protected resumeBodies(): void {
    if (this.#blocked.length === 0) return;
    const blocked = this.#blocked;
    this.#blocked = [];
    const { sink } = this.owner;
    for (const stream of blocked) {
      if (stream.connection === this && stream.body !== undefined) sink.onSentMore?.(stream.lane, this.#sendBody(stream));
    }
    this.scheduleFlush();
  }

  // ---- writing ----

  protected scheduleFlush(): void {
    // A read flushes as it ends; elsewhere the frames of one tick leave in one write.
    if (this.reading || this.#flushScheduled) return;
    this.#flushScheduled = true;
    process.nextTick(flushLater, this);
  }

  // ---- connection state ----

  protected notH2(): false {
    this.lossCode = H2_NOT_SUPPORTED;
    this.owner.onNotH2();
    this.#close();
    return false;
  }

  /** A connection error (RFC 9113 5.4.1): GOAWAY with `code`, close, count every stream in flight under it. */
  protected fail(code: number): false {
    this.lossCode ??= connectionErrorCode(code);
    // The last stream id is the last one the server opened, and a client without push has none.
    this.out.queue(encodeGoaway(0, code));
    this.flush();
    this.#close();
    return false;
  }

  /** The socket failed or closed: every stream in flight is counted under `code`, once. */
  protected lose(code: string): void {
    if (!this.closed) this.lossCode ??= code;
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
      this.owner.connectedCount--;
    }
    this.owner.onRetired(this);
    this.owner.onClosed(this);
    this.settle();
    this.socket.destroy();
    const waiting = this.waiting.splice(0);
    if (this.streams.size === 0 && waiting.length === 0) return;
    const code = this.lossCode ?? CONNECTION_CLOSED;
    const lost = [...this.streams.values()];
    for (const stream of lost) this.forget(stream);
    for (const stream of waiting) this.forget(stream);
    // A request sent again had reached the wire on its first connection.
    for (const stream of lost) this.owner.sink.onError(stream.lane, code, unsent && !stream.lane.retried);
    for (const stream of waiting) this.owner.sink.onError(stream.lane, code, !stream.lane.retried);
  }

  protected retire(): void {
    if (!this.draining) {
      this.draining = true;
      this.owner.onRetired(this);
    }
    // Inside a read, the stream that ends closes it (`afterStream`).
    if (!this.reading) this.afterStream();
  }

  protected settle(): void {
    clearTimeout(this.settingsTimer);
    const waiters = this.#settledWaiters;
    this.#settledWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
