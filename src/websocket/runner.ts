import { performance } from 'node:perf_hooks';
import { peakConnections, type Plan } from '../shared/plan.js';
import { backoffMs, RunLifecycle, type Exchanges, type RunHooks } from '../runner/lifecycle.js';
import type { Measuring } from '../runner/measuring.js';
import { ConnectionRamp } from '../runner/ramp.js';
import { AmountCounter } from '../runner/closed-loop.js';
import { PhaseRecorder } from '../stats/phases.js';
import { CONNECTION_CLOSED } from '../transports/error-code.js';
import type { Recorder, ShardStats } from '../stats/recorder.js';
import { frameBytes, WsConnection, type ConnectionEvents, type SocketSettings } from './connection.js';
import { HANDSHAKES_IN_FLIGHT, OpeningQueue } from './opening.js';
import { StageMeter } from '../runner/stage-meter.js';
import { ClockSkew, epochMs, timestampReader, type TimestampReader } from './timestamps.js';
import type { PlannedWebSocket, WebSocketHooks } from '../shared/websocket.js';
import { ClosingSockets, NORMAL_CLOSURE, planSocketSettings, rampConnections } from './connection-set.js';

export { CLOSE_GRACE_MS } from './connection-set.js';

/**
 * A connection that stayed open this long (or got a message) counts as having worked: only then does
 * its reconnect backoff start over. A handshake alone does not: a server that accepts and at once closes
 * every connection drew about 150 handshakes a second from each.
 */
const STABLE_OPEN_MS = 1000;
const TICK_MS = 100;

export interface WebSocketRunHooks extends RunHooks {
  websocket?: WebSocketHooks | undefined;
}

/** A framing over the WebSocket (Socket.IO): how it sees the sockets' events and what it waits for. */
export interface Framing {
  /** The events every socket reports to, in place of the runner's own. */
  events(runner: WebSocketRunner): ConnectionEvents;
  /** Does each message sent wait for an answer (`received` with `answers`)? */
  awaitsReply: boolean;
}

/**
 * The WebSocket exchanges of one thread's run: opens its connections before the clock starts, then
 * sends (closed loop: the next message when the reply came; `websocket.rate`: on each connection's
 * schedule) and times replies and timestamped messages into the same Recorder as HTTP runs.
 * Connections that close or fail reconnect with backoff; stages open and close connections. The
 * run's shape (start, ticks, abort, end, stats) is the `RunLifecycle`'s. Nothing on the network
 * throws: it is counted, and the run ends at its duration plus at most `CLOSE_GRACE_MS` of closing
 * handshakes.
 */
export class WebSocketRunner implements ConnectionEvents, Exchanges {
  readonly tickMs = TICK_MS;
  readonly gauges: Exchanges['gauges'] = { connections: () => this.#open, targetRate: () => undefined };
  readonly #plan: Plan;
  readonly #run: RunLifecycle;
  readonly #ws: PlannedWebSocket;
  readonly #hooks: WebSocketRunHooks;
  readonly #settings: SocketSettings;
  readonly #connections: WsConnection[];
  readonly #phases = new PhaseRecorder({ handshake: true });
  readonly #statusCodes: Record<string, number> = {};
  readonly #closeCodes: Record<string, number> = {};
  /** Errors while the first connections opened, before the recorder exists. */
  readonly #earlyErrors: string[] = [];
  readonly #message: string | Buffer | undefined;
  readonly #messageBytes: number;
  /** `websocket.message` as a function: called for each message sent. */
  readonly #dynamicMessage: boolean;
  readonly #sends: boolean;
  readonly #intervalMs: number | undefined;
  readonly #timestampOf: TimestampReader | undefined;
  /** performance.timeOrigin, read once: it is a getter into the runtime. */
  readonly #timeOrigin = performance.timeOrigin;
  #recorder!: Recorder;
  #stages: StageMeter | undefined;
  #begun = false;
  #stopped = false;
  #measureAt = 0;
  #endAt = Infinity;
  readonly #connectionRamp: ConnectionRamp;
  #open = 0;
  #outstanding = 0;
  /**
   * `amount`: messages sent, and messages given up (`skipped`), one for each connection attempt that
   * failed (refused, rejected, timed out) while measured, as a failed request is one of an HTTP run's
   * amount: a server that refuses every upgrade ends the run after `amount` failures instead of
   * holding it forever.
   */
  readonly #amount: AmountCounter;
  readonly #clockSkew = new ClockSkew();
  /** First connections not yet opened or failed once. */
  #unsettled: number;
  #settled!: () => void;
  readonly #closing = new ClosingSockets();
  readonly #opening: OpeningQueue;
  readonly #events: ConnectionEvents;
  /** Messages sent wait for their answer (always, but a Socket.IO emit without ack or reply). */
  readonly #awaitsReply: boolean;

  constructor(plan: Plan, hooks: WebSocketRunHooks = {}, framing?: Framing) {
    this.#plan = plan;
    this.#ws = plan.websocket!;
    this.#hooks = hooks;
    const { message } = this.#ws;
    this.#message = message instanceof Uint8Array ? Buffer.from(message.buffer, message.byteOffset, message.byteLength) : message;
    this.#messageBytes = this.#message === undefined ? 0 : Buffer.byteLength(this.#message);
    this.#dynamicMessage = this.#ws.dynamicMessage;
    this.#sends = this.#message !== undefined || this.#dynamicMessage;
    this.#intervalMs = this.#ws.rate === undefined ? undefined : 1000 / this.#ws.rate;
    this.#timestampOf = timestampReader(this.#ws, hooks.websocket);
    this.#settings = planSocketSettings(plan, hooks.websocket);
    this.#connections = Array.from({ length: peakConnections(plan) }, (_, index) => new WsConnection(index));
    this.#connectionRamp = new ConnectionRamp(plan);
    this.#amount = new AmountCounter(plan.amount);
    this.#unsettled = plan.connections;
    this.#awaitsReply = framing?.awaitsReply ?? true;
    this.#events = framing?.events(this) ?? this;
    this.#opening = new OpeningQueue(
      HANDSHAKES_IN_FLIGHT,
      (connection) => connection.connect(this.#settings, this.#events),
      (connection) => this.#wantsOpening(connection),
    );
    this.#run = new RunLifecycle(plan, hooks, this);
  }

  /** Runs to the end (duration, amount, abort) and returns what this thread measured. */
  run(): Promise<ShardStats> {
    return this.#run.run();
  }

  open(): Promise<void> {
    const settled = new Promise<void>((resolve) => (this.#settled = resolve));
    for (let index = 0; index < this.#connectionRamp.active; index++) this.#opening.request(this.#connections[index]!);
    if (this.#unsettled === 0) this.#settled();
    return settled;
  }

  begin(measuring: Measuring): void {
    this.#begun = true;
    this.#measureAt = measuring.measureAt;
    this.#endAt = measuring.endAt;
    this.#recorder = measuring.recorder;
    if (this.#plan.ramps === 'connections') this.#stages = new StageMeter(this.#plan.stages!, this.#measureAt, () => this.#open);
    for (const code of this.#earlyErrors) this.#recorder.recordError(code, this.#measureAt);
  }

  start(now: number): void {
    for (const connection of this.#connections) if (connection.open) this.#startSending(connection, now);
  }

  /** Counted: not during the warm-up (what happens while the first connections open is). */
  #counts(now: number): boolean {
    return !this.#begun || now >= this.#measureAt;
  }

  #startSending(connection: WsConnection, now: number): void {
    if (!this.#sends || this.#stopped) return;
    if (this.#intervalMs === undefined) {
      this.#send(connection, now);
      return;
    }
    // Connections spread their first sends over one interval, so a thread does not send in bursts.
    connection.nextSendAt = now + (this.#intervalMs * connection.index) / this.#connections.length;
    this.#scheduleSend(connection, now);
  }

  #scheduleSend(connection: WsConnection, now: number): void {
    connection.timer = setTimeout(() => this.#onSendTimer(connection), Math.max(0, connection.nextSendAt - now));
  }

  #onSendTimer(connection: WsConnection): void {
    connection.timer = undefined;
    if (this.#stopped || !connection.open) return;
    const now = performance.now();
    if (now >= this.#endAt) {
      this.#run.stop(false);
      return;
    }
    // A timer may fire a fraction of a ms early (libuv's clock is coarser): the slot at the end is
    // past the run, however early it fires (it made 3,001 emits of a 3,000 run); the end timer stops it.
    if (connection.nextSendAt >= this.#endAt) return;
    this.#send(connection, now);
    connection.nextSendAt += this.#intervalMs!;
    // Held up for more than an interval (a stalled host): carry on from now rather than burst.
    if (connection.nextSendAt < now - this.#intervalMs!) connection.nextSendAt = now;
    this.#scheduleSend(connection, now);
  }

  #send(connection: WsConnection, now: number): void {
    if (this.#amount.amountReached() || this.#stopped) return;
    const socket = connection.socket;
    if (socket === undefined || !connection.open) return;
    let data = this.#message;
    let bytes = this.#messageBytes;
    if (this.#dynamicMessage) {
      try {
        data = this.#hooks.websocket!.message!(connection.index, connection.sequence);
        bytes = Buffer.byteLength(data);
      } catch {
        if (this.#counts(now)) this.#recorder.recordError('MESSAGE_FAILED', now);
        return;
      }
    }
    connection.sequence++;
    if (this.#awaitsReply) {
      connection.push(now);
      this.#outstanding++;
    }
    socket.send(data!);
    if (now < this.#measureAt) return;
    this.#amount.sent++;
    this.#recorder.recordSent(frameBytes(bytes, true), now);
    this.#stages?.recordSent(now);
    // Nothing to wait for: the last message sent ends the run (the socket's close follows the data).
    if (!this.#awaitsReply && this.#amount.amountReached()) this.#run.stop(false);
  }

  opened(connection: WsConnection, connectMs: number, tlsMs: number | undefined, handshakeMs: number): void {
    this.#opening.ended(connection);
    this.#open++;
    connection.openedAt = performance.now();
    this.#phases.recordConnection(connectMs, tlsMs);
    this.#phases.recordHandshake(handshakeMs);
    this.#statusCodes['101'] = (this.#statusCodes['101'] ?? 0) + 1;
    this.#settle(connection);
    if (this.#stopped || connection.index >= this.#connectionRamp.active) {
      connection.closing = true;
      connection.socket?.close(NORMAL_CLOSURE);
      return;
    }
    if (this.#begun) this.#startSending(connection, performance.now());
  }

  message(connection: WsConnection, data: Buffer, isBinary: boolean): void {
    if (this.#stopped) return;
    let sentAtMs: number | undefined;
    if (this.#timestampOf !== undefined) {
      try {
        sentAtMs = this.#timestampOf(data, isBinary);
      } catch {
        const now = performance.now();
        if (now < this.#endAt && this.#counts(now)) this.#recordError('TIMESTAMP_FAILED', now);
      }
    }
    this.received(connection, frameBytes(data.length, false), sentAtMs, true);
  }

  /**
   * A message of `wireBytes` came: timed from `sentAtMs` (epoch ms) when it carries a timestamp, else,
   * when it `answers`, as the reply to the oldest message waiting on `connection`.
   */
  received(connection: WsConnection, wireBytes: number, sentAtMs: number | undefined, answers: boolean): void {
    if (this.#stopped) return;
    connection.failures = 0;
    const now = performance.now();
    if (now >= this.#endAt) {
      this.#run.stop(false);
      return;
    }
    let latencyMs = -1;
    let stamped = false;
    if (typeof sentAtMs === 'number' && Number.isFinite(sentAtMs)) {
      stamped = true;
      latencyMs = this.#clockSkew.clamp(this.#timeOrigin + now - epochMs(sentAtMs), this.#begun && now >= this.#measureAt);
    }
    if (!stamped && answers && connection.pending > 0) {
      const sentAt = connection.shift();
      this.#outstanding--;
      latencyMs = sentAt >= this.#measureAt ? now - sentAt : -1;
      if (this.#intervalMs === undefined) this.#send(connection, now);
    }
    if (!this.#begun || now < this.#measureAt) return;
    this.#recorder.recordMessage(wireBytes, latencyMs, now);
    this.#stages?.recordReceived(now, latencyMs < 0 ? -1 : Math.round(latencyMs * 1000));
    if (this.#outstanding === 0 && this.#amount.amountReached()) this.#run.stop(false);
  }

  /** An error of the run (`code`), counted unless it came in the warm-up. */
  recordError(code: string): void {
    const now = performance.now();
    if (!this.#stopped && this.#counts(now)) this.#recordError(code, now);
  }

  #recordError(code: string, now: number): void {
    if (this.#begun) this.#recorder.recordError(code, now);
    else this.#earlyErrors.push(code);
  }

  failed(connection: WsConnection, code: string, status: number | undefined): void {
    if (status !== undefined) this.#statusCodes[String(status)] = (this.#statusCodes[String(status)] ?? 0) + 1;
    if (this.#stopped || connection.closing) return;
    const now = performance.now();
    if (this.#counts(now)) this.#recordError(code, now);
  }

  closed(connection: WsConnection, code: number, wasOpen: boolean): void {
    if (wasOpen) this.#open--;
    else this.#opening.ended(connection);
    clearTimeout(connection.timer);
    connection.timer = undefined;
    const unanswered = this.#dropPending(connection);
    this.#settle(connection);
    if (this.#stopped) {
      this.#closing.closed();
      return;
    }
    const now = performance.now();
    const ours = connection.closing;
    connection.closing = false;
    if (!ours && this.#counts(now)) {
      if (wasOpen) this.#closeCodes[String(code)] = (this.#closeCodes[String(code)] ?? 0) + 1;
      else if (this.#plan.amount !== undefined) this.#amount.skipped++;
      // Their replies will not come: errors, as a request in flight on a closed HTTP connection is.
      for (let index = 0; index < unanswered; index++) this.#recorder.recordError(CONNECTION_CLOSED, now);
    }
    if (this.#outstanding === 0 && this.#amount.amountReached()) {
      this.#run.stop(false);
      return;
    }
    if (connection.index >= this.#connectionRamp.active) return;
    if (wasOpen && now - connection.openedAt >= STABLE_OPEN_MS) connection.failures = 0;
    const delayMs = ours ? 0 : backoffMs(connection.failures++);
    connection.timer = setTimeout(() => {
      connection.timer = undefined;
      if (this.#wantsOpening(connection)) this.#opening.request(connection);
    }, delayMs);
  }

  /** Forgets the messages still waiting for a reply on `connection`; returns how many were measured. */
  #dropPending(connection: WsConnection): number {
    let measured = 0;
    while (connection.pending > 0) {
      if (connection.shift() >= this.#measureAt) measured++;
      this.#outstanding--;
    }
    return measured;
  }

  /** `connection` has no socket and should have one: the run goes on and it is within the active count. */
  #wantsOpening(connection: WsConnection): boolean {
    return !this.#stopped && connection.index < this.#connectionRamp.active && connection.socket === undefined;
  }

  /** One of the first connections opened or failed: the run starts once each has. */
  #settle(connection: WsConnection): void {
    if (this.#begun || connection.settled || connection.index >= this.#plan.connections) return;
    connection.settled = true;
    if (--this.#unsettled === 0) this.#settled();
  }

  tick(now: number): void {
    this.#stages?.at(now);
    if (this.#outstanding > 0) this.#expireReplies(now);
    this.#ramp(now);
  }

  /** Replies later than the timeout are counted as TIMEOUT; a closed-loop connection sends again. */
  #expireReplies(now: number): void {
    const { timeoutMs } = this.#plan;
    for (const connection of this.#connections) {
      let expired = false;
      while (connection.pending > 0 && now - connection.oldest() >= timeoutMs) {
        const sentAt = connection.shift();
        this.#outstanding--;
        expired = true;
        if (sentAt >= this.#measureAt) this.#recorder.recordError('TIMEOUT', now);
      }
      if (expired && this.#intervalMs === undefined && connection.pending === 0) this.#send(connection, now);
    }
    if (this.#outstanding === 0 && this.#amount.amountReached()) this.#run.stop(false);
  }

  /** Connection `stages`: opens or closes connections toward the due count. */
  #ramp(now: number): void {
    const before = this.#connectionRamp.step(now, this.#measureAt);
    if (before === undefined) return;
    rampConnections(this.#connections, before, this.#connectionRamp.active, this.#opening);
  }

  halt(): void {
    this.#stopped = true;
    this.#opening.clear();
  }

  close(stats: ShardStats, endAt: number): Promise<void> {
    stats.statusCodes = this.#statusCodes;
    stats.phases = this.#phases.encode();
    stats.websocket = { closeCodes: this.#closeCodes, stages: this.#stages?.finish(endAt) };
    this.#clockSkew.warn(stats.warnings);
    return new Promise((resolve) =>
      this.#closing.closeAll(this.#connections, () => {
        this.#events.finished?.();
        resolve();
      }),
    );
  }
}

/** Runs one thread's share of a WebSocket load test. */
export function runWebSocket(plan: Plan, hooks?: WebSocketRunHooks): Promise<ShardStats> {
  return new WebSocketRunner(plan, hooks).run();
}
