// The undici transport's per-lane dispatch handler and what it knows of undici's sockets: how a
// response is counted, and whether a request that lost its connection may go again.
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import type { TransportSink } from './transport.js';
import { flattenHeaders, Lane, responseHeadBytes } from './transport.js';
import { CLOSED_NOT_IDEMPOTENT, CONNECTION_CLOSED, errorCode } from './error-code.js';

/** What a handler reads and calls on its transport (`UndiciTransport` in undici.ts). */
export interface HandlerTransport {
  readonly handlers: LaneHandler[];
  readonly sink: TransportSink;
  readonly capture: boolean;
  readonly stream: boolean;
  readonly heads: boolean;
  readonly retry: boolean;
  readonly secure: boolean;
  writing: LaneHandler | undefined;
  closesEveryResponse: boolean;
  learnCloses(closes: boolean): void;
  lostPipelined(): void;
  dispatch(handler: LaneHandler): void;
}

export interface UndiciRequest {
  options: Dispatcher.DispatchOptions;
  /** The same, held alone on its connection until its response head arrives (`closesEveryResponse`). */
  blockingOptions: Dispatcher.DispatchOptions;
  wireBytes: number;
  idempotent: boolean;
}

/** Why one of undici's sockets went, as far as its requests' callbacks tell. */
export const enum Fate {
  /** Open, or gone without a reason seen: a close announced where no header says so (HTTP/1.0). */
  Open,
  /** A response on it said `Connection: close`: the server read no request behind it. */
  Announced,
  /** Closed or reset under a request that had no response yet. */
  ClosedUnder,
  /** Closed for a cause that leaves it unknown what the server did: a timeout, a malformed response. */
  Abandoned,
}

/**
 * What the transport knows of one of undici's sockets. undici does not say which socket a request
 * goes out on; the socket's `write` tells (see `UndiciTransport.writing`).
 */
export class SocketState {
  /** Responses completed on it: a request that finds it closed after one went on a reused connection. */
  responses = 0;
  /** `socket.bytesRead` when its last response ended: what came since is the next response's (see `onResponseEnd`). */
  readMark = 0;

  constructor(readonly socket: Socket) {}

  fate = Fate.Open;
  /** Requests written on it whose responses have not ended. */
  inFlight = 0;
  /** The request written last went out with nothing else in flight: every earlier response had come. */
  lastWrittenIdle = false;
  /**
   * When it closed under a request (`ClosedUnder`): that request was alone on it, written once every
   * earlier response had come, nothing written behind it (the keep-alive race, see `#resendable`).
   */
  lostAlone = false;
}

const connectionClosed = (code: string = CONNECTION_CLOSED): Error =>
  Object.assign(new Error('its connection closed while it was in flight'), { code });

/**
 * The abort of a request pipelined behind a close on a server that closes after every response:
 * the transport sends it again itself, alone on its connection (see `closesEveryResponse`), instead of
 * undici's re-send, which pipelines it behind the next close again. Compared by identity.
 */
const SEND_ALONE = new Error('sent again alone on a connection');

/** Errors of a connection closed or reset under a request (undici's SocketError: 'other side closed'). */
const CLOSED_UNDER_CODES: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** `close` among a Connection header's tokens. */
const CLOSE_TOKEN = /(?:^|,)\s*close\s*(?:,|$)/i;

/**
 * The dispatch handler of one lane, reused for every request on it. A cancelled request may still
 * call back later, so cancel() retires the handler (`lane` set to null) and the lane gets a new one.
 */
export class LaneHandler implements Dispatcher.DispatchHandler {
  controller: Dispatcher.DispatchController | undefined;
  status = 0;
  bytes = 0;
  headers: Record<string, string> | undefined;
  chunks: Buffer[] = [];
  /** undici started the request on a connected socket (`onRequestStart`): it reached the wire. */
  written = false;
  /** The request sent now, to send again. */
  request: UndiciRequest | undefined;
  /** The socket the request went out on, once its write told. */
  socket: SocketState | undefined;
  /** A byte of the response arrived. */
  answering = false;
  /** Dispatched again by the transport (a head whose socket went, see `onResponseError`): `onRequestStart` reports the retry. */
  resending = false;

  constructor(
    public lane: Lane | null,
    readonly transport: HandlerTransport,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.lane === null) {
      // Cancelled (timed out) while still queued in its Client: the engine counted it as never sent
      // and the lane has sent another, so it must not reach the wire. undici has no way to take a
      // request out of its queue; aborting here, before the write, closes the socket it was about to
      // go out on. Nothing is in flight there: what was queued before it timed out before it.
      controller.abort(new Error('cancelled before it was written'));
      return;
    }
    const lane = this.lane;
    if (this.written) {
      // undici sends again the pipelined requests behind the head of a connection that went. That
      // is the retry when the server provably never processed them; otherwise, as on `net`, such
      // a request is ECONNCLOSED. The abort closes the fresh socket before anything is written on it.
      const socket = this.socket;
      if (socket?.fate === Fate.Open) {
        // Closed after a complete response with no header saying so (HTTP/1.0): announced all the same.
        socket.fate = Fate.Announced;
        if (socket.responses === 1) this.transport.learnCloses(true);
      }
      const refusal = this.#refusal(lane);
      if (refusal !== undefined || this.transport.closesEveryResponse) {
        controller.abort(refusal === undefined ? SEND_ALONE : connectionClosed(refusal));
        return;
      }
      lane.retried = true;
      this.resending = true;
    }
    this.controller = controller;
    this.status = 0;
    this.written = true;
    this.answering = false;
    this.socket = undefined;
    this.transport.writing = this;
    // undici starts a request when it writes it to a ready socket, not when it is dispatched.
    lane.writtenAt = performance.now();
    if (this.resending) {
      this.resending = false;
      this.transport.sink.onRetry?.(lane, this.request!.wireBytes);
    }
  }

  /**
   * Whether a request that went out on a socket that went may go again (see `Fate`): undefined when
   * it may, else the code it fails with.
   */
  #refusal(lane: Lane): string | undefined {
    if (lane.retried || !this.transport.retry) return CONNECTION_CLOSED;
    const socket = this.socket;
    if (socket === undefined) return undefined;
    switch (socket.fate) {
      case Fate.Abandoned:
        return CONNECTION_CLOSED;
      case Fate.ClosedUnder:
        // Only the keep-alive race: with more in flight the server may have processed some, and its
        // close reset the connection, which can destroy responses it sent (RFC 9112 9.6).
        return socket.responses > 0 && socket.lostAlone && this.request!.idempotent ? undefined : CONNECTION_CLOSED;
      default:
        // Behind a response that announced the close: the server should have read no further (RFC
        // 9112 9.6), but Node's node:http processes what was pipelined all the same.
        return this.request!.idempotent ? undefined : CLOSED_NOT_IDEMPOTENT;
    }
  }

  /**
   * Fails now the requests pipelined behind this one on its socket, which is going, that may not go
   * again (ECONNCLOSED, or `code`: a timeout's, as on `net`): left to undici, each would open a
   * new socket only to be aborted there before its write.
   */
  settleBehind(code?: string): void {
    const socket = this.socket;
    if (socket === undefined) return;
    for (const other of this.transport.handlers) {
      if (other === undefined || other === this || other.socket !== socket || other.lane === null || !other.written)
        continue;
      const refusal = other.#refusal(other.lane);
      if (refusal !== undefined) other.controller?.abort(connectionClosed(code ?? refusal));
      else if (this.transport.closesEveryResponse && socket.fate === Fate.Announced)
        other.controller?.abort(SEND_ALONE);
    }
  }

  /** llhttp's message begin: the first byte of the response. */
  onResponseStarted(): void {
    this.answering = true;
    if (this.lane !== null && this.lane.firstByteAt === 0) this.lane.firstByteAt = performance.now();
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
    statusMessage?: string,
  ): void {
    this.status = statusCode;
    const connection = headers.connection;
    if (this.socket !== undefined && connection !== undefined && CLOSE_TOKEN.test(String(connection))) {
      this.socket.fate = Fate.Announced;
      if (this.socket.responses === 0) this.transport.learnCloses(true);
    }
    const raw = controller.rawHeaders;
    this.bytes = responseHeadBytes(statusMessage, Array.isArray(raw) ? raw : []);
    if (this.transport.capture) this.headers = flattenHeaders(headers);
    if (this.transport.heads && this.lane !== null) {
      const contentType = headers['content-type'];
      if (
        !this.transport.sink.onHead!(
          this.lane,
          statusCode,
          Array.isArray(contentType) ? contentType.join(', ') : contentType,
        )
      )
        return this.#endEarly(this.lane);
    }
    const coding = this.transport.stream && this.lane !== null ? headers['content-encoding'] : undefined;
    if (
      coding !== undefined &&
      !this.transport.sink.onEncoding!(this.lane!, Array.isArray(coding) ? coding.join(', ') : coding)
    )
      this.#endEarly(this.lane!);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.transport.capture) this.chunks.push(chunk);
    if (this.transport.stream && this.lane !== null && !this.transport.sink.onBody!(this.lane, chunk, 0, chunk.length))
      this.#endEarly(this.lane);
  }

  /** `onBody` ended the response: it completes now; the handler retires, and the abort closes its socket. */
  #endEarly(lane: Lane): void {
    this.lane = null;
    this.transport.handlers[lane.id] = new LaneHandler(lane, this.transport);
    const socket = this.socket;
    if (socket !== undefined) {
      socket.responses++;
      socket.inFlight--;
      socket.fate = Fate.Abandoned;
      this.settleBehind();
    }
    this.controller?.abort(new Error('stream ended'));
    this.controller = undefined;
    const details = this.transport.capture
      ? { headers: this.headers ?? {}, body: Buffer.concat(this.chunks) }
      : undefined;
    this.chunks = [];
    this.transport.sink.onResponse(lane, this.status, this.bytes, details);
  }

  onResponseEnd(): void {
    const lane = this.lane;
    if (lane === null) return;
    this.controller = undefined;
    const socket = this.socket;
    if (socket !== undefined) {
      // A second response on one connection: the server keeps connections open after all.
      if (++socket.responses === 2) this.transport.learnCloses(false);
      // undici hands over the body without its chunked framing; on plain TCP with nothing else in
      // flight, what the socket read since the last response ended is this one as sent.
      const read = socket.socket.bytesRead;
      if (socket.inFlight === 1 && !this.transport.secure && read - socket.readMark > this.bytes)
        this.bytes = read - socket.readMark;
      socket.readMark = read;
      socket.inFlight--;
      if (socket.fate === Fate.Announced) this.settleBehind();
    }
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
    if (error === SEND_ALONE) {
      lane.retried = true;
      this.written = false;
      this.resending = true;
      this.transport.dispatch(this);
      return;
    }
    const code = errorCode(error);
    // undici checks Content-Length against the body even for 204 and 304, which never have one
    // (RFC 9110 8.6 allows the header on a 304), and fails the request after its final status
    // arrived. The response did arrive whole: count it as the response it is.
    if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' && (this.status === 204 || this.status === 304)) {
      if (this.socket !== undefined) this.socket.fate = Fate.Abandoned;
      this.onResponseEnd();
      return;
    }
    this.chunks = [];
    const socket = this.socket;
    if (this.written && socket !== undefined && socket.fate === Fate.Open) {
      socket.fate = CLOSED_UNDER_CODES.has(code) ? Fate.ClosedUnder : Fate.Abandoned;
      socket.lostAlone = socket.inFlight === 1 && socket.lastWrittenIdle;
      if (socket.fate === Fate.ClosedUnder && socket.inFlight > 1) this.transport.lostPipelined();
      this.settleBehind();
    }
    // Alone on a reused connection that closed before any byte of its response: sent again.
    if (this.written && !this.answering && socket?.fate === Fate.ClosedUnder && this.#refusal(lane) === undefined) {
      lane.retried = true;
      this.written = false;
      this.resending = true;
      this.transport.dispatch(this);
      return;
    }
    // A retried request went on the wire once, on the connection before.
    this.transport.sink.onError(lane, code, !this.written && !lane.retried);
  }
}
