import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ResponseParser } from '../http1/parser.js';
import type { ResponseHandler, ResponseParserOptions } from '../http1/response-handler.js';
import { isHeadRequest, requestMethod } from '../http1/request.js';
import { CLOSED_NOT_IDEMPOTENT, CONNECTION_CLOSED, UNSOLICITED_RESPONSE } from './error-code.js';
import type { Endpoint } from './endpoint.js';
import { ConnectionLink, type ConnectionOwner } from './net-link.js';
import type { SessionStore } from './tls-setup.js';
import { FIRST_BYTE_IN_LAST_READ, isIdempotentMethod, type Lane, type TransportSink } from './transport.js';
import type { ResponseDetails } from '../shared/exchange.js';

export { opensRawTcp, type ConnectionOwner } from './net-link.js';

/** The lanes in flight on a connection that went, with their requests, in send order. */
interface Lost {
  lanes: readonly Lane[];
  requests: readonly Buffer[];
}

const NOTHING_LOST: Lost = { lanes: [], requests: [] };
const NO_FAILURES: ReadonlyArray<Lane | string> = [];

function uncork(socket: Socket): void {
  socket.uncork();
}

/**
 * One connection slot: the connection open on it now (or none; `ConnectionLink` opens and closes
 * it), its parser, and the lanes in flight on it in send order, since HTTP/1.1 answers pipelined
 * requests in order.
 */
export class Connection extends ConnectionLink implements ResponseHandler {
  /** Close once idle: the engine is ramping connections down. */
  released = false;

  readonly #sink: TransportSink;
  readonly #parser: ResponseParser;
  /** Ring of lanes in flight, with each one's request (to send again) and whether it was a HEAD. */
  #lanes: Array<Lane | undefined>;
  #requests: Array<Buffer | undefined>;
  #heads: boolean[];
  #first = 0;
  #count = 0;
  /**
   * The first `#written` lanes of the ring are on the wire (or queued for it); the rest wait
   * unwritten for a connection that carries one request at a time (`closesEveryResponse`).
   */
  #written = 0;
  /**
   * Lanes whose requests were written before the bytes being parsed arrived: only they can be
   * answered by them. A request the sink sends from inside `onResponse` joins the ring at once,
   * but a second response in the same read is not its answer.
   */
  #answerable = 0;
  /**
   * The connection open now has answered a request: one that closes under the next request is a
   * reused connection the server may have closed as idle while it was on its way (see `#lose`).
   */
  #reused = false;
  /** The request written last went out with nothing else in flight: every earlier response had come. */
  #lastWrittenIdle = false;
  /** The connection whose bytes are being parsed, to tell whether a callback replaced it. */
  #reading: object | undefined;
  /**
   * First byte of a response that spans reads, stamped as the read that began it ends (0: none).
   * A response that arrives whole in one read needs no clock read of its own: see FIRST_BYTE_IN_LAST_READ.
   */
  #firstByteAt = 0;

  constructor(
    owner: ConnectionOwner,
    endpoint: Endpoint,
    sink: TransportSink,
    readBuffer: Buffer,
    capacity: number,
    parsing: ResponseParserOptions,
    sessions: SessionStore | undefined,
  ) {
    super(owner, endpoint, readBuffer, capacity, sessions);
    this.#sink = sink;
    this.#parser = new ResponseParser(this, parsing);
    this.#lanes = new Array<Lane | undefined>(capacity).fill(undefined);
    this.#requests = new Array<Buffer | undefined>(capacity).fill(undefined);
    this.#heads = new Array<boolean>(capacity).fill(false);
  }

  open(): void {
    this.#parser.reset();
    this.#firstByteAt = 0;
    this.#reused = false;
    this.released = false;
    this.openLink();
  }

  send(lane: Lane, request: Buffer): void {
    if (this.link === undefined) this.open();
    this.released = false;
    this.#push(lane, request);
    // Nothing that may not go again is pipelined behind a close: on a new connection a non-idempotent
    // request waits for the first response to say the server keeps the connection open (RFC 9112
    // 9.3.2), and while the server closes after every response each connection carries one request.
    if (
      this.#written > 0 &&
      (this.#written < this.#count - 1 ||
        this.owner.closesEveryResponse ||
        (!this.#reused && !isIdempotentMethod(requestMethod(request))))
    )
      return;
    this.#write(request);
  }

  #write(request: Buffer): void {
    this.#lastWrittenIdle = this.#written === 0;
    this.#written++;
    const socket = this.socket;
    if (socket === undefined) {
      // A bare handle: written now, or as soon as it connects.
      if (this.connected) this.raw!.write(request);
      else this.pending = this.pending === undefined ? request : Buffer.concat([this.pending, request]);
      return;
    }
    if (this.writer !== undefined) {
      this.writer.write(request);
      return;
    }
    // Inside a read the socket is already corked; elsewhere (a pipelining burst, a paced tick) the
    // requests sent in the same tick are gathered into one write. With one request in flight there
    // is nothing to gather, and a corked write takes the slower writev path.
    if (this.batchWrites && socket.writableCorked === 0) {
      socket.cork();
      process.nextTick(uncork, socket);
    }
    socket.write(request);
  }

  carries(lane: Lane): boolean {
    return this.#indexOf(lane) !== -1;
  }

  /** Whether `lane`'s request here has not reached the wire (a retried one went once already). */
  unwritten(lane: Lane): boolean {
    const index = this.#indexOf(lane);
    return index !== -1 && !lane.retried && (!this.connected || index >= this.#written);
  }

  #indexOf(lane: Lane): number {
    for (let i = 0; i < this.#count; i++) {
      if (this.#lanes[(this.#first + i) % this.#lanes.length] === lane) return i;
    }
    return -1;
  }

  /**
   * Closes the connection and reports every lane in flight on it: the first with `firstCode`. On a
   * connection that never opened, their requests never left.
   */
  abort(firstCode: string, restCode: string): void {
    const unsent = !this.connected;
    const written = this.#written;
    const { lanes } = this.#drain();
    this.detach();
    // A retried request went on the wire once, on the connection before this one.
    for (let i = 0; i < lanes.length; i++) {
      this.#sink.onError(lanes[i]!, i === 0 ? firstCode : restCode, (unsent || i >= written) && !lanes[i]!.retried);
    }
  }

  /**
   * The connection closed or was reset under the lanes in flight (no parse error). The request is
   * sent again on a new connection only in the keep-alive race, where the server provably never
   * processed it: it was alone on a reused connection (written once every earlier response had
   * come, nothing written behind it: the server may have closed the connection as idle while it was
   * on its way), got no byte of its response (`headAnswering`), is idempotent, and was not sent
   * again already. With more in flight the server may have processed some and its close reset the
   * connection, which can destroy responses it sent (RFC 9112 9.6): all of them fail, the first
   * with `firstCode`. Requests that waited unwritten go on the next connection.
   */
  #lose(firstCode: string, restCode: string, headAnswering: boolean): void {
    const unsent = !this.connected;
    const written = this.#written;
    const race = this.#reused && written === 1 && this.#lastWrittenIdle && !headAnswering;
    const { lanes, requests } = this.#drain();
    this.detach();
    // The server had begun answering: not a server that is down (see the engine's DownServer).
    if (headAnswering && lanes.length > 0) lanes[0]!.firstByteAt = FIRST_BYTE_IN_LAST_READ;
    for (let i = 0; i < lanes.length; i++) {
      const lane = lanes[i]!;
      const request = requests[i]!;
      if (i >= written && !unsent) this.send(lane, request);
      else if (race && isIdempotentMethod(requestMethod(request)) && this.#resend(lane, request)) continue;
      else this.#sink.onError(lane, i === 0 ? firstCode : restCode, (unsent || i >= written) && !lane.retried);
    }
  }

  /** Sends `lane`'s request again, on a new connection, unless it was sent again already or retries are off. */
  #resend(lane: Lane, request: Buffer): boolean {
    if (lane.retried || !this.owner.retry) return false;
    lane.retried = true;
    this.send(lane, request);
    this.#sink.onRetry?.(lane, request.length);
    return true;
  }

  release(): void {
    this.released = true;
    if (this.#count === 0) this.detach();
  }

  /** Closes the connection without reporting anything; resolves once it has closed. */
  discard(): Promise<void> {
    const socket = this.socket;
    const raw = this.link !== undefined && socket === undefined;
    this.#drain();
    if (raw) return new Promise((resolve) => this.detach(resolve));
    this.detach();
    if (socket === undefined || socket.closed) return Promise.resolve();
    return new Promise((resolve) => socket.once('close', () => resolve()));
  }

  onResponse(status: number, bytes: number, willClose: boolean, details: ResponseDetails | undefined): boolean {
    if (this.#answerable === 0) {
      // A response nobody asked for: the stream cannot be trusted to line up with requests any more.
      this.abort(UNSOLICITED_RESPONSE, UNSOLICITED_RESPONSE);
      return false;
    }
    this.#answerable--;
    const first = !this.#reused;
    this.#reused = true;
    const lane = this.#shift()!;
    lane.firstByteAt = this.#firstByteAt === 0 ? FIRST_BYTE_IN_LAST_READ : this.#firstByteAt;
    this.#firstByteAt = 0;
    // Requests sent before the socket was ready went out when it was.
    if (lane.writtenAt < this.readyAt) lane.writtenAt = this.readyAt;
    const reading = this.#reading;
    if (willClose || !this.endpoint.keepAlive || (this.released && this.#count === 0)) {
      if (willClose && this.endpoint.keepAlive) this.owner.closesEveryResponse = first;
      const failed = this.#closeAfter(willClose);
      this.#sink.onResponse(lane, status, bytes, details);
      for (let i = 0; i < failed.length; i += 2) this.#sink.onError(failed[i] as Lane, failed[i + 1] as string);
      return false;
    }
    if (this.owner.closesEveryResponse) this.owner.closesEveryResponse = false;
    if (this.#count > 0) {
      this.#parser.headRequest = this.#heads[this.#first]!;
      while (this.#written < this.#count && (this.#written === 0 || !this.owner.closesEveryResponse)) {
        this.#write(this.#requests[(this.#first + this.#written) % this.#lanes.length]!);
      }
    }
    this.#sink.onResponse(lane, status, bytes, details);
    // The sink may have cancelled a lane of this connection, which replaced it.
    return this.link === reading;
  }

  /**
   * The response just read closed the connection. What was pipelined behind it the server should not
   * have read (RFC 9112 9.6), but some servers (Node's node:http) process it all the same: only an
   * idempotent request goes again (`ECONNCLOSED_NOT_IDEMPOTENT` for the others); those that waited
   * unwritten go on the next connection. Both ahead of what the sink sends next.
   */
  #closeAfter(announced: boolean): ReadonlyArray<Lane | string> {
    const written = this.#written;
    const { lanes, requests } = this.#drain();
    this.detach();
    // Lane, code, lane, code, ...: allocated only when something failed behind the close.
    let failed: Array<Lane | string> | undefined;
    for (let i = 0; i < lanes.length; i++) {
      const lane = lanes[i]!;
      const request = requests[i]!;
      if (i >= written) this.send(lane, request);
      else if (!announced) (failed ??= []).push(lane, CONNECTION_CLOSED);
      else if (!isIdempotentMethod(requestMethod(request))) (failed ??= []).push(lane, CLOSED_NOT_IDEMPOTENT);
      else if (!this.#resend(lane, request)) (failed ??= []).push(lane, CONNECTION_CLOSED);
    }
    return failed ?? NO_FAILURES;
  }

  onBody(data: Buffer, start: number, end: number): boolean {
    return this.#sink.onBody!(this.#lanes[this.#first]!, data, start, end);
  }

  onHead(status: number, contentType: string | undefined): boolean {
    return this.#sink.onHead!(this.#lanes[this.#first]!, status, contentType);
  }

  onEncoding(contentEncoding: string): boolean {
    return this.#sink.onEncoding!(this.#lanes[this.#first]!, contentEncoding);
  }

  protected override onRead(link: object, nread: number, buffer: Buffer): void {
    if (link !== this.link) return;
    if (this.#count === 0) {
      this.detach();
      return;
    }
    this.#reading = link;
    this.#answerable = this.#written;
    // Requests the sink sends while responses are parsed leave in one write (batching is only
    // ever on sockets: bare handles carry one request at a time).
    const socket = this.batchWrites && this.writer === undefined ? this.socket : undefined;
    socket?.cork();
    const error = this.#parser.execute(buffer, 0, nread);
    socket?.uncork();
    // A response that began in this read and goes on in the next: its first byte came now.
    if (this.#firstByteAt === 0 && link === this.link && this.#parser.inMessage) this.#firstByteAt = performance.now();
    if (error !== undefined && link === this.link) this.abort(error, error);
  }

  protected override onFailure(link: object, code: string): void {
    if (link !== this.link) return;
    this.#lose(code, code, this.#parser.inMessage);
  }

  protected override onEnd(link: object): void {
    if (link !== this.link) return;
    const failure = this.writer?.failure;
    if (failure !== undefined) {
      this.onFailure(link, failure);
      return;
    }
    this.#reading = link;
    this.#answerable = this.#written;
    // A body delimited by the close completes here; a response cut short is a parse error.
    const error = this.#parser.finish();
    if (link !== this.link) return;
    this.#lose(error ?? CONNECTION_CLOSED, CONNECTION_CLOSED, error !== undefined);
  }

  protected override onClose(socket: Socket): void {
    if (socket !== this.link) return;
    this.#lose(CONNECTION_CLOSED, CONNECTION_CLOSED, this.#parser.inMessage);
  }

  #push(lane: Lane, request: Buffer): void {
    if (this.#count === this.#lanes.length) this.#grow();
    const index = (this.#first + this.#count) % this.#lanes.length;
    const head = isHeadRequest(request);
    this.#lanes[index] = lane;
    this.#requests[index] = request;
    this.#heads[index] = head;
    if (this.#count === 0) this.#parser.headRequest = head;
    this.#count++;
  }

  #shift(): Lane | undefined {
    if (this.#count === 0) return undefined;
    const lane = this.#lanes[this.#first];
    this.#lanes[this.#first] = undefined;
    this.#requests[this.#first] = undefined;
    this.#first = (this.#first + 1) % this.#lanes.length;
    this.#count--;
    if (this.#written > 0) this.#written--;
    return lane;
  }

  /** Empties the ring; allocates only when lanes were in flight, which is never the hot path. */
  #drain(): Lost {
    if (this.#count === 0) return NOTHING_LOST;
    const lanes: Lane[] = [];
    const requests: Buffer[] = [];
    while (this.#count > 0) {
      requests.push(this.#requests[this.#first]!);
      lanes.push(this.#shift()!);
    }
    return { lanes, requests };
  }

  #grow(): void {
    const lanes: Array<Lane | undefined> = [];
    const requests: Array<Buffer | undefined> = [];
    const heads: boolean[] = [];
    for (let i = 0; i < this.#count; i++) {
      const index = (this.#first + i) % this.#lanes.length;
      lanes.push(this.#lanes[index]);
      requests.push(this.#requests[index]);
      heads.push(this.#heads[index]!);
    }
    const capacity = Math.max(1, 2 * this.#lanes.length);
    while (lanes.length < capacity) {
      lanes.push(undefined);
      requests.push(undefined);
      heads.push(false);
    }
    this.#lanes = lanes;
    this.#requests = requests;
    this.#heads = heads;
    this.#first = 0;
  }
}
