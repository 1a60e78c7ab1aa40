import net from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import WebSocket, { type ClientOptions } from 'ws';
import { FastFrames } from './fast-receive.js';

/** What a connection reports to the runner; every socket ends with exactly one `closed`. */
export interface ConnectionEvents {
  /** The handshake completed: TCP connect, TLS (wss:) and the opening handshake, each in ms. */
  opened(connection: WsConnection, connectMs: number, tlsMs: number | undefined, handshakeMs: number): void;
  /** A message; `data` may be a view of a read buffer reused after the call returns. */
  message(connection: WsConnection, data: Buffer, isBinary: boolean): void;
  /** An error by code (ECONNREFUSED, HANDSHAKE_REJECTED with the status, WS_ERR_INVALID_OPCODE, ...). */
  failed(connection: WsConnection, code: string, status: number | undefined): void;
  /** The socket is gone; `wasOpen` when its handshake had completed. */
  closed(connection: WsConnection, code: number, wasOpen: boolean): void;
  /** The run closed every socket. */
  finished?(): void;
}

/** How every connection of a thread is opened. */
export interface SocketSettings {
  url: string;
  protocols: string[];
  options: ClientOptions;
  /**
   * The thread's read buffer for plain-TCP sockets (`net.connect`'s `onread`, see fast-receive.ts),
   * where nothing keeps a message past its handling; undefined: every read is a buffer of its own.
   */
  readBuffer: Buffer | undefined;
}

/** The read buffer's size: a read of 64 KiB holds about a thousand small frames. */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * The ws client options of a run: TLS options and headers passed through, the handshake bounded by
 * the run's timeout, compression only when asked for.
 */
export function socketSettings(
  url: string,
  {
    headers,
    protocols,
    perMessageDeflate,
    tlsOptions,
    timeoutMs,
    keepsMessages,
  }: {
    headers: Record<string, string>;
    protocols: string[];
    perMessageDeflate: boolean;
    tlsOptions: tls.ConnectionOptions | undefined;
    timeoutMs: number;
    /** A user's function is handed the messages (and may keep them). */
    keepsMessages: boolean;
  },
): SocketSettings {
  return {
    url,
    protocols,
    options: {
      ...tlsOptions,
      headers,
      perMessageDeflate,
      handshakeTimeout: timeoutMs,
      followRedirects: false,
    } as ClientOptions,
    readBuffer: keepsMessages ? undefined : Buffer.allocUnsafe(READ_BUFFER_BYTES),
  };
}

/** Send times a connection's ring holds before it first grows. */
const RING_START = 8;

const REJECTED = /Unexpected server response: (\d+)/;

/** A ws error as an `errors.byCode` key. */
function errorCode(error: Error & { code?: string }): { code: string; status: number | undefined } {
  const rejected = REJECTED.exec(error.message);
  if (rejected) return { code: 'HANDSHAKE_REJECTED', status: Number(rejected[1]) };
  if (typeof error.code === 'string') return { code: error.code, status: undefined };
  if (/handshake has timed out/i.test(error.message)) return { code: 'HANDSHAKE_TIMEOUT', status: undefined };
  return { code: 'WEBSOCKET_ERROR', status: undefined };
}

/**
 * One client connection of a WebSocket run: its socket (one after another, as it reconnects), and
 * the send times of its messages still waiting for a reply, first in first out, in a ring that
 * grows only when more are outstanding than ever before (no allocation per message).
 */
export class WsConnection {
  readonly index: number;
  socket: WebSocket | undefined;
  open = false;
  /** salvo asked this socket to close (ramp-down, end of run): its close is not the server's doing. */
  closing = false;
  /** One of the first connections, it has opened or failed once (the run waits for that before starting). */
  settled = false;
  /** Waiting for a place among the handshakes in flight (`OpeningQueue`). */
  queued = false;
  /** Failed connects or lost connections in a row, for the reconnect backoff (a message or a second open resets it). */
  failures = 0;
  /** When its socket last opened, performance.now() ms. */
  openedAt = 0;
  /** Messages sent on this connection, the `sequence` of the next one. */
  sequence = 0;
  /** `websocket.rate`: when the next message is due, performance.now() ms. */
  nextSendAt = 0;
  /** The rate timer or the reconnect backoff, whichever is pending. */
  timer: NodeJS.Timeout | undefined;
  /**
   * Created by the first message sent: a connection that only listens (a broadcast run of 10,000
   * clients) keeps none, where the three objects behind a Float64Array cost about 280 bytes each.
   */
  #ring: Float64Array | undefined;
  #head = 0;
  #pending = 0;

  constructor(index: number) {
    this.index = index;
  }

  get pending(): number {
    return this.#pending;
  }

  /** A message went out at `sentAt` and waits for its reply. */
  push(sentAt: number): void {
    let ring = this.#ring;
    if (ring === undefined) {
      ring = this.#ring = new Float64Array(RING_START);
    } else if (this.#pending === ring.length) {
      const grown = new Float64Array(ring.length * 2);
      for (let i = 0; i < this.#pending; i++) grown[i] = ring[(this.#head + i) % ring.length]!;
      ring = this.#ring = grown;
      this.#head = 0;
    }
    ring[(this.#head + this.#pending) % ring.length] = sentAt;
    this.#pending++;
  }

  /** Send time of the oldest message waiting for a reply (only when `pending` > 0). */
  oldest(): number {
    return this.#ring![this.#head]!;
  }

  /** Takes the oldest waiting message: its reply came, or it timed out. */
  shift(): number {
    const ring = this.#ring!;
    const sentAt = ring[this.#head]!;
    this.#head = (this.#head + 1) % ring.length;
    this.#pending--;
    return sentAt;
  }

  /**
   * Opens a new socket for this connection. The TCP socket is made here (ws's `createConnection`)
   * so its connect and TLS handshake can be timed; ws sets TCP_NODELAY on it once upgraded.
   */
  connect(settings: SocketSettings, events: ConnectionEvents): void {
    const secure = settings.url.startsWith('wss:');
    let startedAt = 0;
    let connectedAt = 0;
    let secureAt = 0;
    // Messages come from the fast path (fast-receive.ts) or, for the frames it leaves, from ws.
    const onMessage = (data: Buffer, isBinary: boolean): void => events.message(this, data, isBinary);
    const frames = new FastFrames(onMessage);
    const { readBuffer } = settings;
    const onread =
      readBuffer === undefined || secure
        ? undefined
        : {
            buffer: readBuffer,
            callback(this: net.Socket, nread: number, buffer: Uint8Array): boolean {
              frames.read(this, nread, buffer as Buffer);
              return true;
            },
          };
    const createConnection = (options: net.NetConnectOpts & tls.ConnectionOptions): net.Socket => {
      startedAt = performance.now();
      const address = net.isIP(options.host ?? '') !== 0;
      // http.request sets `path` to the URL path, which net.connect would read as an IPC path.
      const socket = secure
        ? tls.connect({
            ...options,
            path: undefined,
            servername: options.servername ?? (address ? '' : options.host),
          } as tls.ConnectionOptions)
        : net.connect({ ...options, path: undefined, onread } as net.NetConnectOpts);
      // net.connect looks up only a host name: for an address a 'lookup' listener would stay on
      // the socket for its life (a closure, a bound function and a state object per connection).
      if (!address) socket.once('lookup', () => (startedAt = performance.now()));
      socket.once('connect', () => (connectedAt = performance.now()));
      if (secure) socket.once('secureConnect', () => (secureAt = performance.now()));
      return socket;
    };
    const socket = new WebSocket(settings.url, settings.protocols, {
      ...settings.options,
      createConnection,
    } as ClientOptions);
    this.socket = socket;
    this.closing = false;
    socket.on('open', () => {
      const now = performance.now();
      const ready = secureAt || connectedAt || now;
      this.open = true;
      frames.attach(socket);
      events.opened(
        this,
        (connectedAt || ready) - startedAt,
        secure ? ready - (connectedAt || ready) : undefined,
        now - ready,
      );
    });
    socket.on('message', onMessage);
    socket.on('error', (error: Error) => {
      const { code, status } = errorCode(error);
      events.failed(this, code, status);
    });
    socket.on('close', (code: number) => {
      const wasOpen = this.open;
      this.open = false;
      if (this.socket === socket) this.socket = undefined;
      events.closed(this, code, wasOpen);
    });
  }
}

/** Bytes of one unfragmented, uncompressed frame carrying `payload` bytes (client frames are masked). */
export function frameBytes(payload: number, masked: boolean): number {
  return payload + 2 + (payload > 65_535 ? 8 : payload > 125 ? 2 : 0) + (masked ? 4 : 0);
}
