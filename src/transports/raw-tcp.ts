import { getSystemErrorName } from 'node:util';
import { afterPendingReads, createHandleWrites, type HandleWrites, type StreamHandle } from './handle-writer.js';
import { processBinding } from './process-binding.js';

/**
 * Plain-TCP connections on Node's TCP handle (`process.binding('tcp_wrap')`) without `net.Socket`
 * around it: what lib/net.js does to connect, read and close, less the stream.
 *
 * With a new connection per request, `net.Socket` is most of the user CPU a connection costs: its
 * constructor and stream state, the connect callback and its events, `destroy` and the 'close' it
 * emits a tick later. Here a connection slot opens one handle after another with no objects of its
 * own per connection beyond the handle and its connect request: the callbacks are built once per
 * slot, reads land in the transport's shared buffer (`useUserBuffer`, as `net.connect`'s `onread`
 * option does), writes go through `HandleWrites`, and `close()` ends it.
 *
 * `rawTcpSupported()` feature-detects every member used; where it says no (a Node without the
 * binding, a permission model that refuses `process.binding`), the transport uses `net.Socket`.
 */
export interface RawTcpEvents {
  /** The handle connected; requests can be written. */
  connected(handle: object): void;
  /** `nread` bytes arrived at the start of `buffer` (the shared read buffer). */
  read(handle: object, nread: number, buffer: Buffer): void;
  /** The peer ended its side (EOF). */
  ended(handle: object): void;
  /**
   * Connecting, reading or writing failed, with the errno code (ECONNREFUSED, ECONNRESET...). A
   * failed connect is reported on the next tick, as `net.Socket` emits 'error', never from inside
   * the call; a failed write once the reads waiting in the kernel are in (`afterPendingReads`).
   */
  failed(handle: object, code: string): void;
}

interface TcpHandle extends StreamHandle {
  /** Node's setter CHECKs for a function: never assign anything else (not even null). */
  onread: (this: TcpHandle) => unknown;
  useUserBuffer(buffer: Uint8Array): void;
  setNoDelay(enable: boolean): number;
  connect(request: ConnectRequest, address: string, port: number): number;
  connect6(request: ConnectRequest, address: string, port: number): number;
  readStart(): number;
  close(callback?: () => void): void;
}

interface ConnectRequest {
  oncomplete: (this: ConnectRequest, status: number, handle: TcpHandle) => void;
}

interface TcpBinding {
  TCP: new (type: number) => TcpHandle;
  TCPConnectWrap: new () => ConnectRequest;
  constants: { SOCKET: number };
}

interface StreamState {
  streamBaseState: Int32Array;
  kReadBytesOrError: number;
}

interface Bindings {
  TCP: TcpBinding['TCP'];
  TCPConnectWrap: TcpBinding['TCPConnectWrap'];
  socketType: number;
  state: Int32Array;
  readBytes: number;
}

/** libuv's UV_EOF: -4095 on every platform (uv/errno.h defines UV__EOF as -4095 itself). */
const UV_EOF = -4095;

const HANDLE_METHODS = ['useUserBuffer', 'setNoDelay', 'connect', 'connect6', 'readStart', 'writeBuffer', 'close'];

function loadBindings(): Bindings | undefined {
  const tcp = processBinding('tcp_wrap') as Partial<TcpBinding> | undefined;
  const stream = processBinding('stream_wrap') as Partial<StreamState> | undefined;
  if (
    typeof tcp?.TCP !== 'function' ||
    typeof tcp.TCPConnectWrap !== 'function' ||
    typeof tcp.constants?.SOCKET !== 'number' ||
    !(stream?.streamBaseState instanceof Int32Array) ||
    typeof stream.kReadBytesOrError !== 'number'
  ) {
    return undefined;
  }
  const prototype = tcp.TCP.prototype as Record<string, unknown>;
  if (!HANDLE_METHODS.every((name) => typeof prototype[name] === 'function') || !('onread' in prototype))
    return undefined;
  try {
    // The handle opens no descriptor until it connects: creating and closing one is free.
    new tcp.TCP(tcp.constants.SOCKET).close();
  } catch {
    return undefined;
  }
  return {
    TCP: tcp.TCP,
    TCPConnectWrap: tcp.TCPConnectWrap,
    socketType: tcp.constants.SOCKET,
    state: stream.streamBaseState,
    readBytes: stream.kReadBytesOrError,
  };
}

let bindings: Bindings | null | undefined = null;

function loaded(): Bindings | undefined {
  if (bindings === null) bindings = loadBindings();
  return bindings;
}

let supported: boolean | undefined;

/**
 * Whether this Node offers what `RawTcp` needs (and writes through `HandleWrites`). The environment
 * variable `SALVO_RAW_TCP=0` says no, for a Node whose bindings behave in a way this was not built
 * for, and for the tests of the `net.Socket` path.
 */
export function rawTcpSupported(): boolean {
  supported ??=
    process.env['SALVO_RAW_TCP'] !== '0' && loaded() !== undefined && createHandleWrites(() => {}) !== undefined;
  return supported;
}

/**
 * One connection slot's handles, one at a time: `open` starts a new one (closing none: the slot
 * closes the previous one first), `events` hear of the one open now only. Handles are compared by
 * identity, so a callback of a handle already closed (a connect cancelled by `close`, a queued
 * write libuv cancels) is dropped.
 */
export class RawTcp {
  readonly #bindings: Bindings;
  readonly #events: RawTcpEvents;
  readonly #readBuffer: Buffer;
  readonly #writes: HandleWrites;
  readonly #onread: (this: TcpHandle) => void;
  readonly #onconnect: (this: ConnectRequest, status: number, handle: TcpHandle) => void;
  #handle: TcpHandle | undefined;
  /** The handle open now had a write fail with this code (see `HandleWriter.failure`). */
  #writeFailure: string | undefined;

  /** Only after `rawTcpSupported()` said yes. */
  constructor(events: RawTcpEvents, readBuffer: Buffer) {
    this.#bindings = loaded()!;
    this.#events = events;
    this.#readBuffer = readBuffer;
    // the callbacks' `this` is the handle
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the function below has its own `this` (the socket or handle calling it)
    const raw = this;
    this.#writes = createHandleWrites((handle, status) => raw.#writeFailed(handle as TcpHandle, status))!;
    const { state, readBytes } = this.#bindings;
    this.#onread = function (this: TcpHandle) {
      const nread = state[readBytes]!;
      if (this !== raw.#handle) return;
      if (nread > 0) events.read(this, nread, readBuffer);
      else if (nread === UV_EOF && raw.#writeFailure !== undefined) events.failed(this, raw.#writeFailure);
      else if (nread === UV_EOF) events.ended(this);
      else if (nread < 0) events.failed(this, getSystemErrorName(nread));
    };
    this.#onconnect = function (this: ConnectRequest, status: number, handle: TcpHandle) {
      if (handle !== raw.#handle) return;
      if (status === 0) status = handle.readStart();
      if (status === 0) events.connected(handle);
      else events.failed(handle, getSystemErrorName(status));
    };
  }

  /** Starts connecting a new handle to `ip` (an address of `family` 4 or 6); returns it. */
  open(ip: string, family: number, port: number): object {
    const { TCP, TCPConnectWrap, socketType } = this.#bindings;
    const handle = new TCP(socketType);
    this.#handle = handle;
    this.#writeFailure = undefined;
    handle.onread = this.#onread;
    handle.useUserBuffer(this.#readBuffer);
    const request = new TCPConnectWrap();
    request.oncomplete = this.#onconnect;
    // Applied as the socket is created, like net.connect's `noDelay`.
    let status = handle.setNoDelay(true);
    if (status === 0) status = family === 6 ? handle.connect6(request, ip, port) : handle.connect(request, ip, port);
    if (status !== 0) this.#failSoon(handle, status);
    return handle;
  }

  /** Writes to the handle open now, which must have connected. */
  write(data: Uint8Array): void {
    const handle = this.#handle;
    if (handle === undefined) return;
    const status = this.#writes.write(handle, data);
    if (status !== 0) this.#writeFailed(handle, status);
  }

  /** Closes the handle open now, if any; `onClosed` is called once it has closed. */
  close(onClosed?: () => void): void {
    const handle = this.#handle;
    if (handle === undefined) {
      if (onClosed !== undefined) process.nextTick(onClosed);
      return;
    }
    this.#handle = undefined;
    if (onClosed === undefined) handle.close();
    else handle.close(onClosed);
  }

  #writeFailed(handle: TcpHandle, status: number): void {
    const code = getSystemErrorName(status);
    if (handle === this.#handle) this.#writeFailure ??= code;
    afterPendingReads(() => {
      if (handle === this.#handle) this.#events.failed(handle, code);
    });
  }

  #failSoon(handle: TcpHandle, status: number): void {
    const code = getSystemErrorName(status);
    process.nextTick(() => {
      if (handle === this.#handle) this.#events.failed(handle, code);
    });
  }
}
