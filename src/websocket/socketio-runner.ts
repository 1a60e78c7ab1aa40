import { performance } from 'node:perf_hooks';
import { peakConnections, type Plan } from '../shared/plan.js';
import type { ShardStats } from '../stats/recorder.js';
import {
  EIO_CLOSE,
  EIO_MESSAGE,
  EIO_OPEN,
  EIO_PING,
  encodeConnect,
  eventNameBytes,
  eventParts,
  fieldKeyBytes,
  firstArgumentField,
  isEvent,
  PacketHeader,
  pingDeadlineMs,
  PONG,
  SIO_ACK,
  SIO_BINARY_ACK,
  SIO_BINARY_EVENT,
  SIO_CONNECT,
  SIO_CONNECT_ERROR,
  SIO_DISCONNECT,
  SIO_EVENT,
} from '../socketio/packet.js';
import { frameBytes, type ConnectionEvents, type WsConnection } from './connection.js';
import { WebSocketRunner, type WebSocketRunHooks } from './runner.js';
import type { PlannedSocketIo, PlannedWebSocket } from '../shared/websocket.js';

/** The server refused the namespace connect (its middleware called `next(error)`). */
export const SIO_CONNECT_ERROR_CODE = 'SIO_CONNECT_ERROR';
/** The server disconnected the client from the namespace (`socket.disconnect()`). */
export const SIO_DISCONNECT_CODE = 'SIO_DISCONNECT';
/** No Engine.IO open or namespace connect within the run's timeout after the WebSocket opened. */
export const SIO_CONNECT_TIMEOUT_CODE = 'SIO_CONNECT_TIMEOUT';
/** A text frame that is no Engine.IO packet. */
export const SIO_BAD_PACKET_CODE = 'SIO_BAD_PACKET';
/** No ping from the server within its `pingInterval + pingTimeout`: the connection is given up, as socket.io-client does. */
export const SIO_PING_TIMEOUT_CODE = 'SIO_PING_TIMEOUT';

/** How often the connections' ping deadlines are checked: one timer for all, not one per connection. */
const PING_SWEEP_MS = 250;

/** Where a connection is in the Socket.IO handshake. */
const WEBSOCKET_OPEN = 1;
const ENGINE_OPEN = 2;
const CONNECTED = 3;

/**
 * The Socket.IO framing over a WebSocket run's connections: it answers the Engine.IO open with the
 * namespace connect and reports the connection opened only once the namespace accepted it (the
 * handshake phase spans both), answers the server's pings, and turns packets into what the runner
 * counts: acknowledgements and `reply` events answer the oldest emit, `listen` events carry a
 * timestamp, other events are counted. A refused namespace or a server disconnect is an error and
 * closes the socket, which the runner reconnects with its backoff.
 */
export class SocketIoFraming implements ConnectionEvents {
  readonly #runner: WebSocketRunner;
  readonly #sio: PlannedSocketIo;
  readonly #connectPacket: string;
  readonly #timeoutMs: number;
  readonly #header = new PacketHeader();
  readonly #reply: Buffer | undefined;
  readonly #listen: Buffer | undefined;
  readonly #timestampField: string | undefined;
  readonly #timestampKey: Buffer | undefined;
  /** Per connection: handshake state, timings of the WebSocket's opening, the binary packet being received. */
  readonly #state: Uint8Array;
  readonly #openTimes: Float64Array;
  readonly #attachmentsLeft: Uint32Array;
  readonly #partBytes: Float64Array;
  readonly #partStamp: Float64Array;
  readonly #partAnswers: Uint8Array;
  readonly #connectTimers: Array<NodeJS.Timeout | undefined>;
  /** Per connection: when its next ping is overdue (performance.now() ms; 0: the server set no heartbeat). */
  readonly #pingDue: Float64Array;
  readonly #pingDeadlineMs: Float64Array;
  readonly #connections: Array<WsConnection | undefined>;
  #sweep: NodeJS.Timeout | undefined;

  constructor(runner: WebSocketRunner, sio: PlannedSocketIo, connections: number, timeoutMs: number) {
    this.#runner = runner;
    this.#sio = sio;
    this.#connectPacket = encodeConnect(sio.namespace, sio.authJson);
    this.#timeoutMs = timeoutMs;
    this.#reply = sio.reply === undefined ? undefined : eventNameBytes(sio.reply);
    this.#listen = sio.listen === undefined ? undefined : eventNameBytes(sio.listen.event);
    this.#timestampField = sio.listen?.timestampField;
    this.#timestampKey = this.#timestampField === undefined ? undefined : fieldKeyBytes(this.#timestampField);
    this.#state = new Uint8Array(connections);
    this.#openTimes = new Float64Array(connections * 4);
    this.#attachmentsLeft = new Uint32Array(connections);
    this.#partBytes = new Float64Array(connections);
    this.#partStamp = new Float64Array(connections);
    this.#partAnswers = new Uint8Array(connections);
    this.#connectTimers = new Array<NodeJS.Timeout | undefined>(connections);
    this.#pingDue = new Float64Array(connections);
    this.#pingDeadlineMs = new Float64Array(connections);
    this.#connections = new Array<WsConnection | undefined>(connections);
  }

  /** The WebSocket opened: the Engine.IO open comes next; the run sees the connection open only once connected. */
  opened(connection: WsConnection, connectMs: number, tlsMs: number | undefined, handshakeMs: number): void {
    // Not open for sending until the namespace accepted it.
    connection.open = false;
    const index = connection.index;
    this.#connections[index] = connection;
    this.#state[index] = WEBSOCKET_OPEN;
    this.#attachmentsLeft[index] = 0;
    const times = this.#openTimes;
    times[index * 4] = connectMs;
    times[index * 4 + 1] = tlsMs ?? -1;
    times[index * 4 + 2] = handshakeMs;
    times[index * 4 + 3] = performance.now();
    this.#connectTimers[index] = setTimeout(() => {
      this.#connectTimers[index] = undefined;
      if (this.#state[index] === CONNECTED) return;
      this.#runner.failed(connection, SIO_CONNECT_TIMEOUT_CODE, undefined);
      connection.socket?.terminate();
    }, this.#timeoutMs);
  }

  #connected(connection: WsConnection): void {
    const index = connection.index;
    this.#state[index] = CONNECTED;
    clearTimeout(this.#connectTimers[index]);
    this.#connectTimers[index] = undefined;
    connection.open = true;
    const times = this.#openTimes;
    const tlsMs = times[index * 4 + 1]!;
    const handshakeMs = times[index * 4 + 2]! + performance.now() - times[index * 4 + 3]!;
    this.#runner.opened(connection, times[index * 4]!, tlsMs < 0 ? undefined : tlsMs, handshakeMs);
  }

  message(connection: WsConnection, data: Buffer, isBinary: boolean): void {
    const index = connection.index;
    if (isBinary) {
      // An attachment of the binary event or ack being received; the packet counts once whole.
      if (this.#attachmentsLeft[index] === 0) return;
      this.#partBytes[index]! += frameBytes(data.length, false);
      if (--this.#attachmentsLeft[index]! === 0) this.#complete(connection);
      return;
    }
    const header = this.#header;
    if (!header.read(data)) {
      this.#runner.recordError(SIO_BAD_PACKET_CODE);
      return;
    }
    const engine = header.engine;
    if (engine !== EIO_MESSAGE) {
      if (engine === EIO_PING) {
        connection.socket?.send(PONG);
        if (this.#pingDue[index] !== 0) this.#pingDue[index] = performance.now() + this.#pingDeadlineMs[index]!;
      } else if (engine === EIO_OPEN && this.#state[index] === WEBSOCKET_OPEN) {
        this.#state[index] = ENGINE_OPEN;
        connection.socket?.send(this.#connectPacket);
        const deadlineMs = pingDeadlineMs(data);
        this.#pingDeadlineMs[index] = deadlineMs;
        this.#pingDue[index] = deadlineMs === 0 ? 0 : performance.now() + deadlineMs;
        if (deadlineMs !== 0) this.#sweep ??= setInterval(() => this.#checkPings(), PING_SWEEP_MS).unref();
      } else if (engine === EIO_CLOSE) connection.socket?.close();
      return;
    }
    const type = header.type;
    if (type === SIO_EVENT || type === SIO_BINARY_EVENT) {
      const at = header.payloadAt;
      let answers = false;
      let sentAtMs = NaN;
      if (this.#reply !== undefined && isEvent(data, at, this.#reply)) answers = true;
      else if (this.#listen !== undefined && this.#timestampField !== undefined && isEvent(data, at, this.#listen)) {
        sentAtMs = firstArgumentField(data, at, this.#listen.length, this.#timestampKey!, this.#timestampField) ?? NaN;
      }
      this.#receive(connection, frameBytes(data.length, false), sentAtMs, answers, header.attachments);
    } else if (type === SIO_ACK || type === SIO_BINARY_ACK) {
      // Emits waiting have the ids sequence - pending .. sequence - 1: an older id is the late ack of
      // an emit already timed out, which must not take the place of the next one's.
      const answers = this.#sio.ack && header.id >= connection.sequence - connection.pending;
      this.#receive(connection, frameBytes(data.length, false), NaN, answers, header.attachments);
    } else if (type === SIO_CONNECT) {
      if (this.#state[index] !== CONNECTED) this.#connected(connection);
    } else if (type === SIO_CONNECT_ERROR || type === SIO_DISCONNECT) {
      // Closed here, not by the run: the runner counts the close and reconnects with its backoff.
      this.#runner.failed(
        connection,
        type === SIO_CONNECT_ERROR ? SIO_CONNECT_ERROR_CODE : SIO_DISCONNECT_CODE,
        undefined,
      );
      connection.socket?.close();
    }
  }

  #receive(connection: WsConnection, bytes: number, sentAtMs: number, answers: boolean, attachments: number): void {
    if (attachments === 0) {
      this.#runner.received(connection, bytes, sentAtMs, answers);
      return;
    }
    const index = connection.index;
    this.#attachmentsLeft[index] = attachments;
    this.#partBytes[index] = bytes;
    this.#partStamp[index] = sentAtMs;
    this.#partAnswers[index] = answers ? 1 : 0;
  }

  #complete(connection: WsConnection): void {
    const index = connection.index;
    this.#runner.received(connection, this.#partBytes[index]!, this.#partStamp[index]!, this.#partAnswers[index] === 1);
  }

  /**
   * A server that stopped pinging (hung, or a half-open connection a listening client would never
   * notice): the connection is an error and is replaced, as socket.io-client gives it up.
   */
  #checkPings(): void {
    const now = performance.now();
    const due = this.#pingDue;
    for (let index = 0; index < due.length; index++) {
      if (due[index] === 0 || due[index]! > now) continue;
      due[index] = 0;
      const connection = this.#connections[index];
      if (connection === undefined || connection.closing || connection.socket === undefined) continue;
      this.#runner.failed(connection, SIO_PING_TIMEOUT_CODE, undefined);
      connection.socket.terminate();
    }
  }

  finished(): void {
    clearInterval(this.#sweep);
    this.#sweep = undefined;
  }

  failed(connection: WsConnection, code: string, status: number | undefined): void {
    this.#runner.failed(connection, code, status);
  }

  closed(connection: WsConnection, code: number, wasOpen: boolean): void {
    const index = connection.index;
    this.#state[index] = 0;
    this.#pingDue[index] = 0;
    this.#attachmentsLeft[index] = 0;
    clearTimeout(this.#connectTimers[index]);
    this.#connectTimers[index] = undefined;
    this.#runner.closed(connection, code, wasOpen);
  }
}

/**
 * A Socket.IO run's emits as a WebSocket run's messages: the event's packet, fixed, or with an
 * acknowledgement id (the connection's emit sequence) built per emit.
 */
function webSocketPlan(sio: PlannedSocketIo): {
  planned: PlannedWebSocket;
  message: ((connection: number, sequence: number) => string) | undefined;
} {
  const parts = sio.emit === undefined ? undefined : eventParts(sio.namespace, sio.emit.argsJson);
  const message =
    parts !== undefined && sio.ack
      ? (_connection: number, sequence: number) => parts.head + sequence + parts.body
      : undefined;
  return {
    planned: {
      message: parts === undefined || sio.ack ? undefined : parts.head + parts.body,
      dynamicMessage: message !== undefined,
      rate: sio.rate,
      timestampField: undefined,
      timestampFunction: false,
      perMessageDeflate: false,
      protocols: [],
      headers: sio.headers,
    },
    message,
  };
}

/** Runs one thread's share of a Socket.IO load test on the WebSocket runner. */
export function runSocketIo(plan: Plan, hooks: WebSocketRunHooks = {}): Promise<ShardStats> {
  const sio = plan.socketio!;
  const { planned, message } = webSocketPlan(sio);
  const runner: WebSocketRunner = new WebSocketRunner(
    { ...plan, url: sio.engineUrl, websocket: planned },
    { ...hooks, websocket: message === undefined ? undefined : { message } },
    {
      awaitsReply: sio.ack || sio.reply !== undefined,
      events: (events) => new SocketIoFraming(events, sio, peakConnections(plan), plan.timeoutMs),
    },
  );
  return runner.run();
}
