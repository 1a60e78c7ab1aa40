import { isUtf8 } from 'node:buffer';
import type { Socket } from 'node:net';
import type WebSocket from 'ws';

/**
 * A receive path beside ws's for the frames a load test mostly gets: whole, unfragmented,
 * uncompressed text or binary frames of up to 64 KiB, several to a read.
 *
 * ws hands every read to its Receiver, a Writable stream that parses it in a state machine and
 * emits 'message' twice (the Receiver's, then the WebSocket's). At 10,000 Socket.IO clients that
 * machinery was over a third of the generator's CPU per received event (benchmarks/README.md,
 * Socket.IO). Here such frames are read in place and handed straight to `onMessage`; from the first
 * frame that is anything else (a control frame, a fragment, a compressed or masked frame, one cut by
 * the read, text that is not UTF-8), the rest of the read goes to ws's Receiver as before, and so
 * does every read while the Receiver holds part of a frame. Control frames, the close handshake,
 * errors and their codes stay ws's.
 *
 * Reads come in one of two ways. As the socket's 'data' events, in place of ws's own listener.
 * Or, where the TCP socket was made with `net.connect`'s `onread` (a read buffer the thread reuses,
 * `read`), straight from the handle, without the Readable stream, its per-read buffer and its
 * events: until ws has the socket (the HTTP upgrade) and for whatever ws must parse, `read` pushes a
 * copy into the stream, which carries it to 'data' as usual.
 *
 * It rests on ws 8's internals (`_socket`, `_receiver` and the Receiver's parse state), checked in
 * `attach`: where they differ, nothing is attached and ws receives everything.
 */
interface Receiver {
  write(chunk: Buffer): boolean;
  _bufferedBytes: number;
  _state: number;
  _fragmented: number;
  _opcode: number;
  _errored: boolean;
  writableLength: number;
}

/** ws's Receiver state between frames (`GET_INFO` in ws/lib/receiver.js). */
const GET_INFO = 0;
/** FIN set, RSV clear, opcode text (0x81) or binary (0x82). */
const WHOLE_TEXT = 0x81;
const WHOLE_BINARY = 0x82;

function internals(
  socket: WebSocket,
): { tcp: Socket; receiver: Receiver; original: (chunk: Buffer) => void } | undefined {
  const { _socket: tcp, _receiver: receiver } = socket as unknown as {
    _socket?: Socket;
    _receiver?: Partial<Receiver>;
  };
  if (tcp === undefined || receiver === undefined || typeof receiver.write !== 'function') return undefined;
  const numbers = [
    receiver._bufferedBytes,
    receiver._state,
    receiver._fragmented,
    receiver._opcode,
    receiver.writableLength,
  ];
  if (!numbers.every((value) => typeof value === 'number') || typeof receiver._errored !== 'boolean') return undefined;
  const listeners = tcp.listeners('data');
  if (listeners.length !== 1 || listeners[0]!.name !== 'socketOnData') return undefined;
  return { tcp, receiver: receiver as Receiver, original: listeners[0] as (chunk: Buffer) => void };
}

/** One socket's fast path; `onMessage` gets views that are valid only during the call. */
export class FastFrames {
  readonly #onMessage: (data: Buffer, isBinary: boolean) => void;
  #tcp: Socket | undefined;
  #receiver: Receiver | undefined;
  /** The Receiver was given bytes since it was last seen idle: look at its state before reading past it. */
  #handedOver = false;

  constructor(onMessage: (data: Buffer, isBinary: boolean) => void) {
    this.#onMessage = onMessage;
  }

  /** Takes over an open ws `socket`'s reads; false where ws is not the ws this was written for. */
  attach(socket: WebSocket): boolean {
    const found = internals(socket);
    if (found === undefined) return false;
    const { tcp, receiver, original } = found;
    this.#tcp = tcp;
    this.#receiver = receiver;
    tcp.removeListener('data', original);
    tcp.on('data', (chunk: Buffer) => this.#onData(chunk));
    return true;
  }

  /** `net.connect`'s `onread` callback: `nread` bytes at the start of the reused `buffer`. */
  read(tcp: Socket, nread: number, buffer: Buffer): void {
    // Before ws has the socket, or behind bytes still in the stream, nothing overtakes the stream.
    let offset = 0;
    if (this.#tcp === tcp && tcp.readableLength === 0 && this.#idle()) offset = this.#frames(buffer, nread);
    if (offset < nread && !tcp.destroyed) tcp.push(Buffer.from(buffer.subarray(offset, nread)));
  }

  #onData(chunk: Buffer): void {
    const offset = this.#idle() ? this.#frames(chunk, chunk.length) : 0;
    if (offset === chunk.length || this.#tcp!.destroyed) return;
    this.#handedOver = true;
    if (!this.#receiver!.write(offset === 0 ? chunk : chunk.subarray(offset))) this.#tcp!.pause();
  }

  /** The Receiver is between frames, with nothing buffered, no fragmented message open, and no close frame read. */
  #idle(): boolean {
    if (!this.#handedOver) return true;
    const receiver = this.#receiver!;
    const idle =
      receiver._state === GET_INFO &&
      receiver._bufferedBytes === 0 &&
      receiver._fragmented === 0 &&
      receiver._opcode !== 0x08 &&
      !receiver._errored &&
      receiver.writableLength === 0;
    if (idle) this.#handedOver = false;
    return idle;
  }

  /** Hands the whole data frames at the start of `chunk[0, length)` to `onMessage`; returns where it stopped. */
  #frames(chunk: Buffer, length: number): number {
    const tcp = this.#tcp!;
    let offset = 0;
    while (offset + 2 <= length) {
      const first = chunk[offset]!;
      let size = chunk[offset + 1]!;
      // Server frames are never masked (bit 7 of the second byte): a masked one is ws's to reject.
      if ((first !== WHOLE_TEXT && first !== WHOLE_BINARY) || size > 126) break;
      let start = offset + 2;
      if (size === 126) {
        if (start + 2 > length) break;
        size = (chunk[start]! << 8) | chunk[start + 1]!;
        start += 2;
      }
      const end = start + size;
      if (end > length) break;
      const data = chunk.subarray(start, end);
      if (first === WHOLE_TEXT && !isUtf8(data)) break;
      offset = end;
      this.#onMessage(data, first === WHOLE_BINARY);
      // The handler closed the connection: ws would not read on either.
      if (tcp.destroyed) return length;
    }
    return offset;
  }
}
