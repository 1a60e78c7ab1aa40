import type { Socket } from 'node:net';
import { getSystemErrorName } from 'node:util';

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
 * through the stream.
 */
export interface HandleWriter {
  /** Writes `data`; write errors destroy the socket with an errno-coded error, as the stream does. */
  write(data: Uint8Array): void;
}

interface WriteRequest {
  handle: StreamHandle;
  oncomplete: (this: WriteRequest, status: number) => void;
  async: boolean;
  bytes: number;
  buffer: Uint8Array | null;
  socket: Socket;
}

interface StreamHandle {
  writeBuffer(request: WriteRequest, data: Uint8Array): number;
}

interface StreamBinding {
  WriteWrap: new () => WriteRequest;
  streamBaseState: Int32Array;
  kLastWriteWasAsync: number;
}

function loadStreamBinding(): StreamBinding | undefined {
  const binding = (process as unknown as { binding?: (name: string) => unknown }).binding;
  if (typeof binding !== 'function') return undefined;
  // DEP0111 is documentation-only; it warns only under --pending-deprecation, and not for this.
  const noDeprecation = process.noDeprecation;
  try {
    process.noDeprecation = true;
    const candidate = binding('stream_wrap') as Partial<StreamBinding> | undefined;
    if (
      typeof candidate?.WriteWrap === 'function' &&
      candidate.streamBaseState instanceof Int32Array &&
      typeof candidate.kLastWriteWasAsync === 'number'
    ) {
      return candidate as StreamBinding;
    }
  } catch {
    // Removed, or refused by a policy: write through the stream.
  } finally {
    process.noDeprecation = noDeprecation;
  }
  return undefined;
}

let binding: StreamBinding | null | undefined = null;

function writeFailure(status: number): Error {
  const code = getSystemErrorName(status);
  return Object.assign(new Error(`write ${code}`), { code, errno: status, syscall: 'write' });
}

function onWriteComplete(this: WriteRequest, status: number): void {
  this.buffer = null;
  if (status < 0 && !this.socket.destroyed) this.socket.destroy(writeFailure(status));
}

function newRequest(WriteWrap: StreamBinding['WriteWrap'], handle: StreamHandle, socket: Socket): WriteRequest {
  const request = new WriteWrap();
  request.handle = handle;
  request.oncomplete = onWriteComplete;
  request.async = false;
  request.bytes = 0;
  request.buffer = null;
  request.socket = socket;
  return request;
}

/** A writer for `socket`, which must be a connected plain-TCP socket; undefined where unsupported. */
export function createHandleWriter(socket: Socket): HandleWriter | undefined {
  if (binding === null) binding = loadStreamBinding();
  const handle = (socket as unknown as { _handle?: Partial<StreamHandle> | null })._handle;
  if (binding === undefined || typeof handle?.writeBuffer !== 'function') return undefined;
  const { WriteWrap, streamBaseState, kLastWriteWasAsync } = binding;
  const streamHandle = handle as StreamHandle;
  let request = newRequest(WriteWrap, streamHandle, socket);
  return {
    write(data: Uint8Array): void {
      if (socket.destroyed) return;
      const status = streamHandle.writeBuffer(request, data);
      if (status !== 0) {
        socket.destroy(writeFailure(status));
      } else if (streamBaseState[kLastWriteWasAsync] !== 0) {
        // libuv queued it: this request now belongs to the write until `oncomplete`.
        request.async = true;
        request.buffer = data;
        request = newRequest(WriteWrap, streamHandle, socket);
      }
    },
  };
}
