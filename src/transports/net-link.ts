import net, { type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type tls from 'node:tls';
import { watchConnect } from './connect-timing.js';
import { errorCode } from './error-code.js';
import { createHandleWriter, type HandleWriter } from './handle-writer.js';
import { RawTcp, rawTcpSupported, type RawTcpEvents } from './raw-tcp.js';
import type { Endpoint } from './endpoint.js';
import { connectTls, type SessionStore } from './tls-setup.js';

/** What a connection reports to the transport that owns it. */
export interface ConnectionOwner {
  /** Sockets connected now. */
  connectedCount: number;
  /** Send again what the server provably never processed (`TransportConfig.retry`). */
  readonly retry: boolean;
  /**
   * The server closed a connection after its first response (`Connection: close`, HTTP/1.0): it
   * closes after every response, so each connection carries one request at a time, the rest waiting
   * unwritten for the next connection, instead of being pipelined behind a close. Cleared by a
   * response that keeps its connection open.
   */
  closesEveryResponse: boolean;
}

/**
 * Whether a slot carrying `capacity` requests at a time opens bare TCP handles (`RawTcp`) once the
 * endpoint's address is known: plain TCP, one request at a time (a pipelined connection stays on a
 * socket, which gathers a burst into one write), and a Node that offers the bindings.
 */
export function opensRawTcp(endpoint: Endpoint, capacity: number): boolean {
  return endpoint.tls === undefined && capacity === 1 && rawTcpSupported();
}

/**
 * How one connection slot opens and closes its connection: a `net`/`tls` socket, or, for plain TCP
 * with one request in flight at a time and a known address, a bare TCP handle (`RawTcp`), which
 * costs a new connection about half the CPU. Either way `link` is the object that identifies it, so
 * that a callback of one already replaced is dropped. `Connection` carries the requests on it.
 */
export abstract class ConnectionLink {
  connected = false;

  protected readonly owner: ConnectionOwner;
  protected readonly endpoint: Endpoint;
  /** Pipelining: requests sent in one tick leave in one write. */
  protected readonly batchWrites: boolean;
  /** The connection open now: its socket, or its `RawTcp` handle. */
  protected link: object | undefined;
  /** The socket, when the connection open now is one. */
  protected socket: Socket | undefined;
  /** This slot's bare handles, once it has opened one; `#rawCapable` says whether it may. */
  protected raw: RawTcp | undefined;
  readonly #rawCapable: boolean;
  readonly #rawEvents: RawTcpEvents;
  readonly #readBuffer: Buffer;
  /** A bare handle was opened at (performance.now() ms), for its connect time. */
  #openedAt = 0;
  /** Requests sent while a bare handle connects, written once it has. */
  protected pending: Buffer | undefined;
  /** `whenOpen` is waiting for this connection to connect or go. */
  #onOpen: (() => void) | undefined;
  /** Writes past the Writable stream, once a plain-TCP socket is connected and not pipelining. */
  protected writer: HandleWriter | undefined;
  /** The socket became ready (performance.now() ms): requests sent before went out then. */
  protected readyAt = 0;

  /**
   * What every socket of this slot gets, built once: the listeners find their socket in `this`
   * (Node calls event listeners and the `onread` callback on the socket), so opening a connection
   * creates no closures and no options objects.
   */
  readonly #onread: net.OnReadOpts;
  readonly #tcpOptions: net.TcpNetConnectOpts & { onread: net.OnReadOpts };
  /** Node honours `onread` for TLS sockets it creates; @types/node only declares it for net. */
  readonly #tlsOptions: (tls.ConnectionOptions & { onread: net.OnReadOpts }) | undefined;
  readonly #sessions: SessionStore | undefined;
  readonly #onConnectEvent: (this: Socket) => void;
  readonly #onErrorEvent: (this: Socket, error: Error) => void;
  readonly #onEndEvent: (this: Socket) => void;
  readonly #onCloseEvent: (this: Socket) => void;

  constructor(
    owner: ConnectionOwner,
    endpoint: Endpoint,
    readBuffer: Buffer,
    capacity: number,
    sessions: SessionStore | undefined,
  ) {
    this.owner = owner;
    this.endpoint = endpoint;
    this.batchWrites = capacity > 1;
    this.#sessions = sessions;
    this.#readBuffer = readBuffer;
    this.#rawCapable = opensRawTcp(endpoint, capacity);
    // the listeners' `this` is the socket
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the function below has its own `this` (the socket or handle calling it)
    const connection = this;
    this.#onread = {
      buffer: readBuffer,
      callback(this: Socket, nread: number, buffer: Uint8Array): boolean {
        connection.onRead(this, nread, buffer as Buffer);
        return true;
      },
    };
    this.#onConnectEvent = function (this: Socket) {
      connection.#onConnect(this);
    };
    this.#onErrorEvent = function (this: Socket, error: Error) {
      connection.onFailure(this, errorCode(error));
    };
    this.#onEndEvent = function (this: Socket) {
      connection.onEnd(this);
    };
    this.#onCloseEvent = function (this: Socket) {
      connection.onClose(this);
    };
    this.#rawEvents = {
      connected: (handle) => connection.#onConnect(handle),
      read: (handle, nread, buffer) => connection.onRead(handle, nread, buffer),
      ended: (handle) => connection.onEnd(handle),
      failed: (handle, code) => connection.onFailure(handle, code),
    };
    const { host, port, lookup } = endpoint;
    this.#tcpOptions = { host, port, lookup, onread: this.#onread, noDelay: true };
    this.#tlsOptions = endpoint.tls === undefined ? undefined : { ...endpoint.tls, onread: this.#onread };
  }

  /** The bytes of a read on `link`. */
  protected abstract onRead(link: object, nread: number, buffer: Buffer): void;
  /** `link` failed with `code` (a socket's error, a bare handle's failure). */
  protected abstract onFailure(link: object, code: string): void;
  /** The server ended `link`. */
  protected abstract onEnd(link: object): void;
  /** The socket closed. */
  protected abstract onClose(socket: Socket): void;

  /** A connection is open (or opening) on this slot. */
  get isOpen(): boolean {
    return this.link !== undefined;
  }

  /** Opens a connection ahead of the first request; resolves once it has connected or gone. */
  whenOpen(): Promise<void> {
    this.open();
    return new Promise((resolve) => {
      this.#onOpen = resolve;
    });
  }

  abstract open(): void;

  /** Opens the slot's next connection: a bare handle where it may, a socket otherwise. */
  protected openLink(): void {
    const address = this.endpoint.address;
    if (this.#rawCapable && address !== undefined) {
      this.raw ??= new RawTcp(this.#rawEvents, this.#readBuffer);
      this.#openedAt = performance.now();
      this.link = this.raw.open(address.ip, address.family, this.endpoint.port);
      return;
    }
    let socket: Socket;
    const tlsOptions = this.#tlsOptions;
    if (tlsOptions === undefined) {
      socket = net.connect(this.#tcpOptions);
      socket.on('connect', this.#onConnectEvent);
    } else {
      socket = connectTls(tlsOptions, this.#sessions);
      socket.on('secureConnect', this.#onConnectEvent);
    }
    socket.on('error', this.#onErrorEvent);
    socket.on('end', this.#onEndEvent);
    socket.on('close', this.#onCloseEvent);
    watchConnect(socket, tlsOptions !== undefined, this.endpoint.phases);
    this.socket = socket;
    this.link = socket;
  }

  #onConnect(link: object): void {
    if (link !== this.link) return;
    // A TLS socket whose certificate the session store checks: one that failed is destroyed (its
    // 'error' and 'close' follow).
    if (this.#sessions !== undefined && !this.#sessions.accept(link as tls.TLSSocket)) return;
    this.connected = true;
    this.readyAt = performance.now();
    this.owner.connectedCount++;
    const socket = this.socket;
    if (socket === undefined) {
      // A bare handle records its own connect time (a socket's is watched by `watchConnect`).
      this.endpoint.phases.recordConnection(this.readyAt - this.#openedAt, undefined);
      const pending = this.pending;
      if (pending !== undefined) {
        this.pending = undefined;
        this.raw!.write(pending);
      }
    } else if (this.endpoint.tls === undefined && this.endpoint.keepAlive) {
      // A connection that carries one request (no keep-alive) wrote it before it connected.
      this.writer = createHandleWriter(socket, this.batchWrites);
    }
    this.#opened();
  }

  /** Closes the connection open now; `onClosed` (bare handles only) hears when it has closed. */
  protected detach(onClosed?: () => void): void {
    if (this.link === undefined) {
      if (onClosed !== undefined) onClosed();
      return;
    }
    const socket = this.socket;
    this.link = undefined;
    this.socket = undefined;
    this.writer = undefined;
    this.pending = undefined;
    if (this.connected) {
      this.connected = false;
      this.owner.connectedCount--;
    }
    if (socket === undefined) this.raw!.close(onClosed);
    else socket.destroy();
    this.#opened();
  }

  #opened(): void {
    const onOpen = this.#onOpen;
    if (onOpen === undefined) return;
    this.#onOpen = undefined;
    onOpen();
  }
}
