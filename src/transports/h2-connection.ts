import net, { type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type tls from 'node:tls';
import {
  CLIENT_PREFACE,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_WINDOW_BYTES,
  encodeFrame,
  encodeSettings,
  encodeWindowUpdate,
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
  type FrameHandler,
} from '../http2/frames.js';
import { BAD_CONTENT_LENGTH, HpackDecoder } from '../http2/hpack.js';
import { watchConnect } from './connect-timing.js';
import { CONNECTION_CLOSED, errorCode } from './error-code.js';
import { createHandleWriter } from './handle-writer.js';
import { H2Session, type H2ConnectionOwner } from './h2-session.js';
import { connectionErrorCode, H2_GOAWAY, H2_NOT_SUPPORTED, resetCode, type H2Endpoint, type H2Stream } from './h2-stream.js';
import { connectTls } from './tls-setup.js';
import { FIRST_BYTE_IN_LAST_READ } from './transport.js';

export type { H2ConnectionOwner } from './h2-session.js';
export { H2_GOAWAY, H2_NOT_SUPPORTED, H2Stream, resetCode, type H2Endpoint } from './h2-stream.js';


/**
 * Our receive windows: as large as HTTP/2 allows (h2load's default too), so that a body is never
 * held back by the client's flow control; the data is consumed as it arrives, and the window is
 * topped up once half of it is used.
 */
const RECEIVE_WINDOW_BYTES = MAX_WINDOW_BYTES;
const WINDOW_REFILL_BYTES = 2 ** 30;
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

/**
 * One HTTP/2 connection: its socket opened, frames read by `FrameReader` in the socket's read buffer,
 * header blocks decoded by `HpackDecoder` (which skips the strings nobody asked for), the server's
 * SETTINGS, GOAWAY, RST_STREAM and WINDOW_UPDATE applied to the streams `H2Session` keeps.
 */
export class H2Connection extends H2Session implements FrameHandler {
  readonly socket: Socket;
  readonly #reader = new FrameReader(this);
  readonly #decoder = new HpackDecoder();
  /** DATA received since the connection window was last topped up. */
  #unacknowledged = 0;
  /** A header block arriving in CONTINUATION frames: its stream, HEADERS flags and fragments. */
  #blockStream = 0;
  #blockFlags = 0;
  #blockParts: Buffer[] = [];
  readonly #secure: boolean;
  readonly #settingsTimeoutMs: number;

  constructor(
    owner: H2ConnectionOwner,
    endpoint: H2Endpoint,
    /** The transport's slot this connection was opened for. */
    slot: number,
  ) {
    super(owner, slot);
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
    socket.on('error', (error) => this.lose(this.#errorCode(error)));
    socket.on('end', () => this.lose(this.lossCode ?? this.writer?.failure ?? CONNECTION_CLOSED));
    socket.on('close', () => this.lose(this.lossCode ?? CONNECTION_CLOSED));
    watchConnect(socket, this.#secure, endpoint.phases);
    this.socket = socket;
    // Requests may follow the preface at once (RFC 9113 3.4): the socket holds them until it connects.
    this.out.queue(OPENING);
    this.scheduleFlush();
  }

  // ---- FrameHandler ----

  onFrame(type: number, flags: number, streamId: number, bytes: Uint8Array, start: number, end: number): boolean {
    // A response handler may have closed this connection in the middle of a read.
    if (this.closed) return false;
    if (this.#blockStream !== 0 && (type !== FrameType.CONTINUATION || streamId !== this.#blockStream)) {
      return this.fail(ErrorCode.PROTOCOL_ERROR);
    }
    if (!this.settled && (type !== FrameType.SETTINGS || (flags & Flag.ACK) !== 0)) return this.notH2();
    switch (type) {
      case FrameType.HEADERS:
        return this.#onHeaders(flags, streamId, bytes, start, end);
      case FrameType.CONTINUATION:
        return this.#onContinuation(flags, streamId, bytes, start, end);
      case FrameType.RST_STREAM:
        if (end - start !== 4) return this.fail(ErrorCode.FRAME_SIZE_ERROR);
        if (streamId === 0) return this.fail(ErrorCode.PROTOCOL_ERROR);
        return this.#onReset(streamId, readUint32(bytes, start));
      case FrameType.SETTINGS:
        if (streamId !== 0) return this.fail(ErrorCode.PROTOCOL_ERROR);
        if ((flags & Flag.ACK) !== 0) return end === start || this.fail(ErrorCode.FRAME_SIZE_ERROR);
        if ((end - start) % 6 !== 0) return this.fail(ErrorCode.FRAME_SIZE_ERROR);
        return this.#onSettings(bytes, start, end);
      case FrameType.PING:
        if (end - start !== 8) return this.fail(ErrorCode.FRAME_SIZE_ERROR);
        if (streamId !== 0) return this.fail(ErrorCode.PROTOCOL_ERROR);
        if ((flags & Flag.ACK) === 0) {
          this.out.queue(encodeFrame(FrameType.PING, Flag.ACK, 0, bytes.subarray(start, end)));
          this.scheduleFlush();
        }
        return true;
      case FrameType.GOAWAY:
        if (end - start < 8 || streamId !== 0) return this.fail(ErrorCode.PROTOCOL_ERROR);
        return this.#onGoaway(readUint31(bytes, start), readUint32(bytes, start + 4));
      case FrameType.WINDOW_UPDATE:
        if (end - start !== 4) return this.fail(ErrorCode.FRAME_SIZE_ERROR);
        return this.#onWindowUpdate(streamId, readUint31(bytes, start));
      case FrameType.PUSH_PROMISE:
        // SETTINGS_ENABLE_PUSH is 0: a promise is a connection error (RFC 9113 8.4).
        return this.fail(ErrorCode.PROTOCOL_ERROR);
      default:
        // PRIORITY and unknown types are ignored (RFC 9113 5.5).
        return true;
    }
  }

  onData(streamId: number, bytes: Uint8Array, start: number, end: number): boolean {
    // Counted whole in onDataEnd; only a captured body (copied: the read buffer is reused) or a stream wants the bytes.
    const { capture, stream: streaming } = this.owner;
    if (!capture && !streaming) return true;
    const stream = this.streams.get(streamId);
    if (stream === undefined || stream.status === 0) return true;
    if (capture) stream.chunks.push(Buffer.from(bytes.subarray(start, end)));
    if (streaming && !this.owner.sink.onBody!(stream.lane, bytes, start, end)) return this.endEarly(stream);
    return true;
  }

  onDataEnd(streamId: number, flags: number, frameBytes: number, dataBytes: number): boolean {
    if (this.closed) return false;
    if (streamId === 0 || !this.settled) return this.fail(ErrorCode.PROTOCOL_ERROR);
    this.#unacknowledged += frameBytes;
    if (this.#unacknowledged >= WINDOW_REFILL_BYTES) {
      this.out.queue(encodeWindowUpdate(0, this.#unacknowledged));
      this.#unacknowledged = 0;
    }
    const stream = this.streams.get(streamId);
    if (stream === undefined) return true;
    stream.bytes += FRAME_HEADER_BYTES + frameBytes;
    if (stream.status === 0) return this.streamError(stream, ErrorCode.PROTOCOL_ERROR);
    stream.unacknowledged += frameBytes;
    stream.dataBytes += dataBytes;
    if ((flags & Flag.END_STREAM) !== 0) return this.end(stream);
    if (stream.unacknowledged >= WINDOW_REFILL_BYTES) {
      this.out.queue(encodeWindowUpdate(streamId, stream.unacknowledged));
      stream.unacknowledged = 0;
    }
    return true;
  }

  onFramingError(code: number): void {
    if (!this.settled) this.notH2();
    else this.fail(code);
  }

  // ---- reading ----

  #onRead(nread: number, buffer: Uint8Array): void {
    const socket = this.socket;
    if (this.closed) return;
    this.reading = true;
    this.#reader.execute(buffer, 0, nread);
    this.reading = false;
    if (this.stampPending) this.#stampFirstBytes();
    if (!socket.destroyed) this.flush();
  }

  #onHeaders(flags: number, streamId: number, bytes: Uint8Array, start: number, end: number): boolean {
    if (streamId === 0) return this.fail(ErrorCode.PROTOCOL_ERROR);
    const frameBytes = end - start;
    let from = start;
    let to = end;
    if ((flags & Flag.PADDED) !== 0) {
      if (from >= to) return this.fail(ErrorCode.PROTOCOL_ERROR);
      to -= bytes[from]!;
      from++;
    }
    if ((flags & Flag.PRIORITY) !== 0) from += 5;
    if (from > to) return this.fail(ErrorCode.PROTOCOL_ERROR);
    const stream = this.streams.get(streamId);
    if (stream !== undefined) stream.bytes += FRAME_HEADER_BYTES + frameBytes;
    if ((flags & Flag.END_HEADERS) !== 0) return this.#onHeaderBlock(stream, flags, bytes, from, to);
    this.#blockStream = streamId;
    this.#blockFlags = flags;
    this.#blockParts = [Buffer.from(bytes.subarray(from, to))];
    return true;
  }

  #onContinuation(flags: number, streamId: number, bytes: Uint8Array, start: number, end: number): boolean {
    if (this.#blockStream === 0) return this.fail(ErrorCode.PROTOCOL_ERROR);
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
    if (status === -1) return this.fail(ErrorCode.COMPRESSION_ERROR);
    if (stream === undefined) return true;
    const endStream = (flags & Flag.END_STREAM) !== 0;
    if (trailers) return endStream ? this.end(stream) : this.streamError(stream, ErrorCode.PROTOCOL_ERROR);
    if (status < 100 || status > 999) return this.streamError(stream, ErrorCode.PROTOCOL_ERROR);
    if (status < 200) {
      // An informational response (100 Continue, 103 Early Hints): the final one follows.
      if (endStream || status === 101) return this.streamError(stream, ErrorCode.PROTOCOL_ERROR);
      if (capture !== undefined) stream.headers = {};
      return true;
    }
    stream.status = status;
    stream.declaredLength = this.#decoder.contentLength;
    if (stream.declaredLength === BAD_CONTENT_LENGTH) return this.streamError(stream, ErrorCode.PROTOCOL_ERROR);
    stream.firstByteAt = FIRST_BYTE_IN_LAST_READ;
    if (this.owner.heads && !this.owner.sink.onHead!(stream.lane, status, stream.headers?.['content-type'])) return this.endEarly(stream);
    const coding = this.owner.stream ? stream.headers?.['content-encoding'] : undefined;
    if (coding !== undefined && !this.owner.sink.onEncoding!(stream.lane, coding)) return this.endEarly(stream);
    if (endStream) return this.end(stream);
    this.stampPending = true;
    return true;
  }

  #stampFirstBytes(): void {
    this.stampPending = false;
    const now = performance.now();
    for (const stream of this.streams.values()) {
      if (stream.firstByteAt === FIRST_BYTE_IN_LAST_READ) stream.firstByteAt = now;
    }
  }

  #onReset(streamId: number, code: number): boolean {
    const stream = this.streams.get(streamId);
    if (stream === undefined) return true;
    this.forget(stream);
    // Closed before any processing (RFC 9113 8.7), whatever the method. It goes again on a new stream
    // of this connection while it takes streams: a refusal is a stream error that leaves the connection
    // sound, usually the server's concurrent-stream limit (5.1.2), which the waiting queue honours.
    if (code === ErrorCode.REFUSED_STREAM && this.owner.retry && !stream.lane.retried) this.owner.resend(stream, true);
    else this.owner.sink.onError(stream.lane, resetCode(code));
    return this.afterStream();
  }

  #onSettings(bytes: Uint8Array, start: number, end: number): boolean {
    const first = !this.settled;
    for (let at = start; at < end; at += 6) {
      const id = (bytes[at]! << 8) | bytes[at + 1]!;
      const value = readUint32(bytes, at + 2);
      if (id === Setting.MAX_CONCURRENT_STREAMS) {
        // Also when lowered later (streams beyond it wait); the first value also sizes the lanes.
        if (value !== this.peerMaxStreams) this.owner.onStreamLimit(value);
        this.peerMaxStreams = value;
      } else if (id === Setting.INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW_BYTES) return this.fail(ErrorCode.FLOW_CONTROL_ERROR);
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) stream.sendWindow += delta;
      } else if (id === Setting.MAX_FRAME_SIZE) {
        if (value < DEFAULT_MAX_FRAME_BYTES || value > 2 ** 24 - 1) return this.fail(ErrorCode.PROTOCOL_ERROR);
        this.peerMaxFrame = value;
      }
    }
    this.out.queue(SETTINGS_ACK);
    this.scheduleFlush();
    if (first) {
      this.settled = true;
      this.settle();
    }
    this.resumeBodies();
    this.openWaiting();
    return true;
  }

  #onGoaway(lastStreamId: number, code: number): boolean {
    if (code !== ErrorCode.NO_ERROR) this.lossCode ??= connectionErrorCode(code);
    this.retire();
    const lost: H2Stream[] = [];
    for (const [id, stream] of this.streams) {
      // Streams at or below the last id are being answered (or go with the connection).
      if (id > lastStreamId) lost.push(stream);
    }
    // Those above it were never processed (RFC 9113 6.8): sent again once, on the slot's new connection.
    const retry = this.owner.retry;
    for (const stream of lost) {
      this.forget(stream);
      if (retry && !stream.lane.retried) this.owner.resend(stream, true);
      else this.owner.sink.onError(stream.lane, H2_GOAWAY);
    }
    // Streams still waiting for the limit never went out: they move to the new connection.
    for (const stream of this.waiting.splice(0)) {
      this.forget(stream);
      if (retry) this.owner.resend(stream, false);
      else this.owner.sink.onError(stream.lane, H2_GOAWAY, !stream.lane.retried);
    }
    return this.afterStream();
  }

  #onWindowUpdate(streamId: number, increment: number): boolean {
    if (increment === 0) return this.fail(ErrorCode.PROTOCOL_ERROR);
    if (streamId === 0) {
      this.sendWindow += increment;
      if (this.sendWindow > MAX_WINDOW_BYTES) return this.fail(ErrorCode.FLOW_CONTROL_ERROR);
    } else {
      const stream = this.streams.get(streamId);
      if (stream === undefined) return true;
      stream.sendWindow += increment;
      if (stream.sendWindow > MAX_WINDOW_BYTES) return this.streamError(stream, ErrorCode.FLOW_CONTROL_ERROR);
    }
    this.resumeBodies();
    return true;
  }

  // ---- opening ----

  #onConnect(): void {
    if (this.closed) return;
    this.connected = true;
    this.readyAt = performance.now();
    this.owner.connectedCount++;
    if (this.#secure && (this.socket as tls.TLSSocket).alpnProtocol !== 'h2') {
      // A TLS server without ALPN leaves the choice to us; it did not choose h2, so it is not one.
      this.notH2();
      return;
    }
    if (this.#secure) return;
    this.writer = createHandleWriter(this.socket);
    // An HTTP/2 server's first frame is its SETTINGS (RFC 9113 3.4); a server silent on the h2c
    // preface for a whole request timeout is not one, and its requests say so instead of timing out.
    if (!this.settled) {
      this.settingsTimer = setTimeout(() => this.settled || this.notH2(), this.#settingsTimeoutMs);
      this.settingsTimer.unref();
    }
  }

  notH2IfSilent(): boolean {
    if (this.settled || this.closed || this.settingsTimer === undefined) return false;
    this.notH2();
    return true;
  }

  #errorCode(error: Error): string {
    const code = errorCode(error);
    // A TLS server without h2 refuses the ALPN offer; a write queued during the handshake (the
    // preface) reports that alert as a failed write.
    if (code === 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL' || (code === 'EPROTO' && error.message.includes('no application protocol'))) {
      this.owner.onNotH2();
      return H2_NOT_SUPPORTED;
    }
    return this.lossCode ?? code;
  }
}
