import { performance } from 'node:perf_hooks';
import { lanesPerConnection, peakConnections, type Plan, type PlannedRequest } from '../shared/plan.js';
import type { Recorder, ShardStats } from '../stats/recorder.js';
import { loadTransport } from '../transports/index.js';
import type { TransportName } from '../shared/terms.js';
import { Lane, type Transport, type TransportFactory, type TransportSink } from '../transports/transport.js';
import { PhaseRecorder } from '../stats/phases.js';
import { ConnectionRamp } from '../runner/ramp.js';
import type { Measuring } from '../runner/measuring.js';
import { backoffMs, RunLifecycle, type Exchanges, type RunHooks } from '../runner/lifecycle.js';
import { StageMeter } from '../runner/stage-meter.js';
import { addWarning, type Warning } from '../shared/warnings.js';
import { openAhead } from './open-ahead.js';
import { StreamMeter } from './stream-meter.js';
import { transportConfig } from './transport-config.js';

/** Until the server sends `retry:`, how long a client waits to reconnect, ms (Chrome's EventSource waits 3 s). */
export const DEFAULT_RETRY_MS = 3000;
/** The `errors.byCode` code of a 200 response whose content-type is not `text/event-stream`. */
export const NOT_EVENT_STREAM = 'NOT_EVENT_STREAM';
const TICK_MS = 100;
/** The cancel of a subscription a ramp-down closes: salvo's own doing, not counted. */
const RAMPED_DOWN = 'ramped down';

// A client's state.
const IDLE = 0;
const CONNECTING = 1;
const OPEN = 2;
const WAITING = 3;
/** A 204 or a rejected response stopped it, as it stops an EventSource, until a ramp-down removes it. */
const STOPPED = 4;

// Why a head was refused.
const NO_VERDICT = 0;
const NO_CONTENT = 1;
const REJECTED = 2;
const NOT_A_STREAM = 3;

/** `text/event-stream`, parameters (`; charset=utf-8`) and case aside, as the standard compares MIME types. */
function isEventStream(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semicolon = contentType.indexOf(';');
  return (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase() === 'text/event-stream';
}

/**
 * SSE subscriptions (`stream.subscribe`): each client (a lane: one per connection, or per HTTP/2
 * stream) holds one `text/event-stream` response open for the whole run, as an EventSource does.
 * When the response ends or breaks, or the request fails, the client waits the server's `retry:`
 * and subscribes again with `Last-Event-ID`; a 204 or a response that is no 200 event stream stops
 * it. Connection `stages` add and remove clients. Events are framed and timed by the `StreamMeter`
 * (`result.stream`); the requests themselves are counted as any HTTP run's, those still open at the
 * end in `requests.unfinished`.
 */
export class Subscriptions implements TransportSink, Exchanges {
  readonly tickMs = TICK_MS;
  readonly gauges: Exchanges['gauges'];
  readonly #plan: Plan;
  readonly #hooks: RunHooks;
  readonly #run: RunLifecycle;
  readonly #transport: Transport;
  readonly #lanes: Lane[];
  readonly #lanesPerConnection: number;
  readonly #request: PlannedRequest;
  readonly #prepared: unknown;
  readonly #meter: StreamMeter;
  readonly #phases = new PhaseRecorder();
  readonly #state: Uint8Array;
  readonly #verdict: Uint8Array;
  /** salvo closed the lane's subscription itself (a ramp-down). */
  readonly #ours: Uint8Array;
  /** Failed attempts in a row, for the backoff on top of `retry`. */
  readonly #failures: Uint16Array;
  readonly #timers: Array<NodeJS.Timeout | undefined>;
  readonly #warnings: Warning[] = [];
  readonly #closes: Record<string, number> = {};
  #recorder!: Recorder;
  #stages: StageMeter | undefined;
  #measureAt = 0;
  #endAt = Infinity;
  readonly #connectionRamp: ConnectionRamp;
  #usable = Infinity;
  #open = 0;
  #subscribed = 0;
  #reconnects = 0;
  #stopped = false;
  #haltedAt = 0;

  constructor(plan: Plan, createTransport: TransportFactory, hooks: RunHooks = {}) {
    this.#plan = plan;
    this.#hooks = hooks;
    const connections = peakConnections(plan);
    this.#lanesPerConnection = lanesPerConnection(plan);
    this.#connectionRamp = new ConnectionRamp(plan);
    const request = plan.requests[0]!;
    // What an EventSource sends; the run's own headers win.
    this.#request = {
      ...request,
      headers: { accept: 'text/event-stream', 'cache-control': 'no-cache', ...request.headers },
    };
    this.#transport = createTransport(
      transportConfig(plan, this.#phases, { captureResponses: false, stream: true, heads: true }),
      this,
    );
    this.#prepared = this.#transport.prepare(this.#request);
    this.#lanes = [];
    for (let connection = 0; connection < connections; connection++) {
      for (let i = 0; i < this.#lanesPerConnection; i++) this.#lanes.push(new Lane(this.#lanes.length, connection));
    }
    const n = this.#lanes.length;
    this.#state = new Uint8Array(n);
    this.#verdict = new Uint8Array(n);
    this.#ours = new Uint8Array(n);
    this.#failures = new Uint16Array(n);
    this.#timers = new Array<NodeJS.Timeout | undefined>(n);
    this.#meter = new StreamMeter(
      plan.stream!,
      hooks.stream,
      this.#lanes,
      { nameOf: new Uint16Array(1), count: 1 },
      (code, message) => this.onWarning(code, message),
      hooks.onSecond !== undefined,
    );
    this.gauges = {
      connections: () => this.#transport.openConnections(),
      targetRate: () => undefined,
      stream: (second) => this.#meter.second(second),
    };
    this.#run = new RunLifecycle(plan, hooks, this);
  }

  /** Runs to the end (duration, abort) and returns what this thread measured. */
  run(): Promise<ShardStats> {
    return this.#run.run();
  }

  async open(): Promise<void> {
    const warning = await openAhead(
      this.#transport,
      this.#connectionRamp.active,
      this.#plan.timeoutMs,
      this.#hooks.signal,
    );
    if (warning !== undefined && !this.#run.stopped) this.onWarning(warning.code, warning.message);
  }

  begin(measuring: Measuring): void {
    this.#measureAt = measuring.measureAt;
    this.#endAt = measuring.endAt;
    this.#recorder = measuring.recorder;
    if (this.#plan.ramps === 'connections')
      this.#stages = new StageMeter(this.#plan.stages!, this.#measureAt, () => this.#open);
    this.#meter.begin(measuring.measureAt, measuring.endAt, this.#stages);
  }

  start(now: number): void {
    // An HTTP/2 server may allow fewer streams than asked: the clients above its limit stay idle.
    this.#usable = Math.min(this.#lanesPerConnection, this.#transport.lanesPerConnection?.() ?? Infinity);
    for (const lane of this.#lanes) if (this.#wanted(lane)) this.#subscribe(lane, now, false);
  }

  /** The lane is one of the clients the run (or its ramp) holds now. */
  #wanted(lane: Lane): boolean {
    return (
      !this.#stopped &&
      lane.connection < this.#connectionRamp.active &&
      lane.id % this.#lanesPerConnection < this.#usable
    );
  }

  #subscribe(lane: Lane, now: number, reconnect: boolean): void {
    if (!reconnect) this.#meter.forget(lane);
    lane.busy = true;
    lane.intendedAt = lane.sentAt = lane.writtenAt = now;
    lane.firstByteAt = 0;
    lane.retried = false;
    lane.measured = now >= this.#measureAt;
    this.#state[lane.id] = CONNECTING;
    this.#verdict[lane.id] = NO_VERDICT;
    this.#meter.sent(lane);
    const lastEventId = this.#meter.lastEventId(lane);
    // A reconnection is rare: the request with its Last-Event-ID is encoded for it.
    const prepared =
      lastEventId === ''
        ? this.#prepared
        : this.#transport.prepare({
            ...this.#request,
            headers: { ...this.#request.headers, 'last-event-id': lastEventId },
          });
    if (lane.measured) {
      this.#recorder.recordSent(0, now);
      this.#stages?.recordSent(now);
      if (reconnect) this.#reconnects++;
    }
    lane.sentBytes = this.#transport.send(lane, prepared);
    if (lane.measured) this.#recorder.recordSentBytes(lane.sentBytes);
  }

  onHead(lane: Lane, status: number, contentType: string | undefined): boolean {
    if (status === 200 && isEventStream(contentType)) {
      this.#state[lane.id] = OPEN;
      this.#open++;
      this.#failures[lane.id] = 0;
      if (performance.now() >= this.#measureAt) this.#subscribed++;
      return true;
    }
    this.#verdict[lane.id] = status === 204 ? NO_CONTENT : status === 200 ? NOT_A_STREAM : REJECTED;
    return false;
  }

  onBody(lane: Lane, data: Uint8Array, start: number, end: number): boolean {
    return this.#meter.body(lane, data, start, end);
  }

  onEncoding(lane: Lane, contentEncoding: string): boolean {
    return this.#meter.encoding(lane, contentEncoding);
  }

  onResponse(lane: Lane, status: number, bytesReceived: number): void {
    const now = performance.now();
    if (this.#stopped) return;
    // Ended after the end: still busy, so `halt` counts it in `requests.unfinished`.
    if (now >= this.#endAt) {
      this.#run.stop(false);
      return;
    }
    lane.busy = false;
    if (this.#state[lane.id] === OPEN) this.#open--;
    const verdict = this.#verdict[lane.id]!;
    this.#meter.end(lane, now, lane.measured);
    const undecodable = this.#meter.undecodable(lane);
    if (lane.measured) {
      if (verdict === NOT_A_STREAM || undecodable !== undefined) {
        this.#recorder.recordError(undecodable ?? NOT_EVENT_STREAM, now);
        this.#recorder.recordReceivedBytes(bytesReceived);
      } else {
        this.#recorder.recordResponse(status, bytesReceived, now - lane.intendedAt, now - lane.sentAt, now);
      }
    }
    if (this.#ours[lane.id] === 1) return this.#release(lane);
    if (verdict === NO_VERDICT) {
      this.#close(now, 'ended');
      this.#reconnectLater(lane, this.#retryMs(lane));
      return;
    }
    this.#close(now, verdict === NO_CONTENT ? 'noContent' : 'rejected');
    this.#state[lane.id] = STOPPED;
  }

  onError(lane: Lane, code: string, unsent = false): void {
    lane.busy = false;
    const wasOpen = this.#state[lane.id] === OPEN;
    if (wasOpen) this.#open--;
    if (this.#stopped) return;
    if (this.#ours[lane.id] === 1) return this.#release(lane);
    const now = performance.now();
    if (lane.measured) {
      // A request whose connection never opened stays in `sent` with its error; its bytes never left.
      if (unsent) this.#recorder.recordUnwrittenBytes(lane.sentBytes);
      this.#recorder.recordError(code, now);
    }
    this.#close(now, wasOpen ? 'lost' : 'failed');
    // The standard lets a client back off after failed attempts: a server that refuses is not hammered at `retry: 0`.
    const delayMs = wasOpen ? this.#retryMs(lane) : Math.max(this.#retryMs(lane), backoffMs(this.#failures[lane.id]!));
    if (!wasOpen && this.#failures[lane.id]! < 0xffff) this.#failures[lane.id]!++;
    this.#reconnectLater(lane, delayMs);
  }

  onWarning(code: string, message: string): void {
    addWarning(this.#warnings, code, message);
  }

  #retryMs(lane: Lane): number {
    const retry = this.#meter.retryMs(lane);
    return retry < 0 ? DEFAULT_RETRY_MS : retry;
  }

  #close(now: number, cause: string): void {
    if (now >= this.#measureAt) this.#closes[cause] = (this.#closes[cause] ?? 0) + 1;
  }

  #reconnectLater(lane: Lane, delayMs: number): void {
    this.#state[lane.id] = WAITING;
    this.#timers[lane.id] = setTimeout(() => {
      this.#timers[lane.id] = undefined;
      if (this.#wanted(lane)) this.#subscribe(lane, performance.now(), true);
      else this.#state[lane.id] = IDLE;
    }, delayMs);
  }

  /** A subscription a ramp-down closed: the client is gone (the ramp releases its connection). */
  #release(lane: Lane): void {
    this.#ours[lane.id] = 0;
    this.#state[lane.id] = IDLE;
  }

  tick(now: number): void {
    this.#stages?.at(now);
    const { timeoutMs } = this.#plan;
    // Only the head is bounded by `timeout`: a stream may stay quiet for as long as it likes.
    for (const lane of this.#lanes) {
      if (this.#state[lane.id] === CONNECTING && lane.busy && now - lane.sentAt >= timeoutMs)
        this.#transport.cancel(lane, 'TIMEOUT');
    }
    this.#ramp(now);
  }

  /** Connection `stages`: adds clients toward the due count, or closes those above it. */
  #ramp(now: number): void {
    const before = this.#connectionRamp.step(now, this.#measureAt);
    if (before === undefined) return;
    const target = this.#connectionRamp.active;
    for (const lane of this.#lanes) {
      if (lane.connection < Math.min(before, target) || lane.connection >= Math.max(before, target)) continue;
      const id = lane.id;
      if (target > before) {
        if (this.#state[id] === IDLE && this.#wanted(lane)) this.#subscribe(lane, now, false);
        continue;
      }
      clearTimeout(this.#timers[id]);
      this.#timers[id] = undefined;
      if (lane.busy) {
        this.#ours[id] = 1;
        this.#transport.cancel(lane, RAMPED_DOWN);
      } else {
        this.#state[id] = IDLE;
      }
    }
    if (target < before)
      for (let connection = target; connection < before; connection++) this.#transport.release(connection);
  }

  /** Subscriptions still open are counted in `requests.unfinished`; those waiting for their connection are taken back out of `sent`. */
  halt(now: number, endAt: number): void {
    this.#stopped = true;
    this.#haltedAt = endAt;
    for (const timer of this.#timers) clearTimeout(timer);
    for (const lane of this.#lanes) {
      if (!lane.busy || !lane.measured) continue;
      if (this.#transport.unwritten?.(lane)) this.#recorder.recordUnsent(lane.sentBytes, now);
      else this.#recorder.recordUnfinished();
    }
    this.#meter.warnClock();
    for (const { code, message } of this.#warnings) addWarning(this.#recorder.warnings, code, message);
  }

  close(stats: ShardStats): Promise<void> {
    stats.phases = this.#phases.encode();
    const streams = this.#meter.finish(this.#haltedAt);
    if (streams !== undefined) {
      stats.stream = {
        ...streams.stream,
        subscriptions: {
          subscribed: this.#subscribed,
          open: this.#open,
          reconnects: this.#reconnects,
          closes: this.#closes,
          stages: this.#stages?.finish(this.#haltedAt),
        },
      };
    }
    for (const named of Object.values(stats.byName ?? {})) {
      named.phases = stats.phases;
      if (stats.stream !== undefined) named.stream = stats.stream;
    }
    return this.#transport.close();
  }
}

/** Runs one thread's share of a subscription run. */
export async function runSubscriptions(plan: Plan, hooks?: RunHooks): Promise<ShardStats> {
  return new Subscriptions(plan, await loadTransport(plan.transport as TransportName), hooks).run();
}
