import type { Socket } from 'node:net';
import { getSystemErrorName } from 'node:util';
import { processBinding } from './process-binding.js';

/**
 * Writes to a connected plain-TCP socket's libuv handle the way `net.Socket` itself does
 * (`writeGeneric` in Node's lib/internal/stream_base_commons.js), without the Writable stream
 * around it.
 *
 * On loopback the stream's bookkeeping around each small write (state checks, a write request
 * object, the after-write callback deferred with `process.nextTick`) costs about as much user CPU
 * as parsing the response. Here one write request object is reused while writes complete inline,
 * which is nearly always: the socket's send buffer is empty when a closed-loop request goes out.
 * A write libuv has to queue keeps its request and buffer until it completes, and keeps its
 * order, since libuv writes inline only while nothing is queued.
 *
 * It needs Node's `stream_wrap` binding, which `process.binding` still provides on Node 20, 22
 * and 24; where it does not, `createHandleWriter` returns undefined and the transport writes
 * through the stream. `HandleWrites` is the same for bare TCP handles (raw-tcp.ts).
 */
export interface HandleWriter {
  /** Writes `data`; a write error destroys the socket with an errno-coded error once pending reads are in. */
  write(data: Uint8Array): void;
  /**
   * The errno code of a write that failed, if one did. The kernel reports a reset once: to the
   * write, which leaves the reads that follow it an EOF, which is this error.
   */
  readonly failure: string | undefined;
}

/**
 * Calls `fail` once the reads already waiting in the kernel have been delivered. A write fails
 * (ECONNRESET, EPIPE) when a reset has arrived, and the responses the server sent before its reset
 * are still unread: closing at once would count them as errors though they came. The second
 * `setImmediate` runs after the next loop turn's poll phase, which reads them (and then the reset).
 */
export function afterPendingReads(fail: () => void): void {
  setImmediate(() => setImmediate(fail));
}

/** A libuv stream handle's write method (`LibuvStreamWrap#writeBuffer`). */
export interface StreamHandle {
  writeBuffer(request: WriteRequest, data: Uint8Array): number;
}

/** Told of a write that failed after it was queued (negative libuv status), with its handle. */
export type WriteFailure = (handle: StreamHandle, status: number) => void;

interface WriteRequest {
  handle: StreamHandle;
  oncomplete: (this: WriteRequest, status: number) => void;
  async: boolean;
  bytes: number;
  buffer: Uint8Array | null;
  fail: WriteFailure;
}

interface StreamBinding {
  WriteWrap: new () => WriteRequest;
  streamBaseState: Int32Array;
  kLastWriteWasAsync: number;
}

function loadStreamBinding(): StreamBinding | undefined {
  const candidate = processBinding('stream_wrap') as Partial<StreamBinding> | undefined;
  if (
    typeof candidate?.WriteWrap === 'function' &&
    candidate.streamBaseState instanceof Int32Array &&
    typeof candidate.kLastWriteWasAsync === 'number'
  ) {
    return candidate as StreamBinding;
  }
  return undefined;
}

let binding: StreamBinding | null | undefined = null;

function streamBinding(): StreamBinding | undefined {
  if (binding === null) binding = loadStreamBinding();
  return binding;
}

function writeFailure(status: number): Error {
  const code = getSystemErrorName(status);
  return Object.assign(new Error(`write ${code}`), { code, errno: status, syscall: 'write' });
}

function onWriteComplete(this: WriteRequest, status: number): void {
  this.buffer = null;
  if (status < 0) this.fail(this.handle, status);
}

function newRequest(WriteWrap: StreamBinding['WriteWrap'], handle: StreamHandle, fail: WriteFailure): WriteRequest {
  const request = new WriteWrap();
  request.handle = handle;
  request.oncomplete = onWriteComplete;
  request.async = false;
  request.bytes = 0;
  request.buffer = null;
  request.fail = fail;
  return request;
}

/**
 * Writes to libuv stream handles, one write request object reused for as long as writes complete
 * inline, whichever handle they go to (a write that completes inline leaves nothing attached to
 * its request). Used by a connection slot across the handles it opens one after another.
 */
export class HandleWrites {
  readonly #WriteWrap: StreamBinding['WriteWrap'];
  readonly #state: Int32Array;
  readonly #lastWriteWasAsync: number;
  readonly #fail: WriteFailure;
  #request: WriteRequest | undefined;

  constructor(stream: StreamBinding, fail: WriteFailure) {
    this.#WriteWrap = stream.WriteWrap;
    this.#state = stream.streamBaseState;
    this.#lastWriteWasAsync = stream.kLastWriteWasAsync;
    this.#fail = fail;
  }

  /**
   * Writes `data` to `handle`. Returns 0, or the negative libuv status of a write that failed at
   * once; a queued write that fails later goes to `fail` with its handle.
   */
  write(handle: StreamHandle, data: Uint8Array): number {
    let request = this.#request;
    if (request === undefined) request = this.#request = newRequest(this.#WriteWrap, handle, this.#fail);
    else request.handle = handle;
    const status = handle.writeBuffer(request, data);
    if (status === 0 && this.#state[this.#lastWriteWasAsync] !== 0) {
      // libuv queued it: this request now belongs to the write until `oncomplete`.
      request.async = true;
      request.buffer = data;
      this.#request = undefined;
    }
    return status;
  }
}

/** Writes for bare handles (see `HandleWrites`); undefined where the binding is unsupported. */
export function createHandleWrites(fail: WriteFailure): HandleWrites | undefined {
  const stream = streamBinding();
  return stream === undefined ? undefined : new HandleWrites(stream, fail);
}

/**
 * A writer for `socket`, which must be a connected plain-TCP socket; undefined where unsupported.
 * With `gather`, what is written in one tick (a pipelining burst, the requests sent while a read
 * is parsed) leaves in one write on the next tick, as a corked stream would send it.
 */
export function createHandleWriter(socket: Socket, gather = false): HandleWriter | undefined {
  const stream = streamBinding();
  const handle = (socket as unknown as { _handle?: Partial<StreamHandle> | null })._handle;
  if (stream === undefined || typeof handle?.writeBuffer !== 'function') return undefined;
  const streamHandle = handle as StreamHandle;
  let failure: string | undefined;
  const fail = (status: number): void => {
    failure ??= getSystemErrorName(status);
    afterPendingReads(() => {
      if (!socket.destroyed) socket.destroy(writeFailure(status));
    });
  };
  const writes = new HandleWrites(stream, (_handle, status) => fail(status));
  const writeNow = (data: Uint8Array): void => {
    if (socket.destroyed) return;
    const status = writes.write(streamHandle, data);
    if (status !== 0) fail(status);
  };
  const gathered: Uint8Array[] = [];
  const flush = (): void => {
    const data = gathered.length === 1 ? gathered[0]! : Buffer.concat(gathered);
    gathered.length = 0;
    writeNow(data);
  };
  const writeGathered = (data: Uint8Array): void => {
    if (gathered.push(data) === 1) process.nextTick(flush);
  };
  return {
    write: gather ? writeGathered : writeNow,
    get failure() {
      return failure;
    },
  };
}
