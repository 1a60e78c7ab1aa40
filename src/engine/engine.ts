import { performance } from 'node:perf_hooks';
import { lanesPerConnection, peakConnections, type Plan } from '../shared/plan.js';
import type { Recorder, ShardStats } from '../stats/recorder.js';
import { loadTransport } from '../transports/index.js';
import { FIRST_BYTE_IN_LAST_READ, Lane, type Transport, type TransportFactory, type TransportSink } from '../transports/transport.js';
import type { ResponseDetails } from '../shared/exchange.js';
import type { CheckStats } from '../shared/load-result.js';
import { PhaseRecorder } from '../stats/phases.js';
import { ClosedLoop } from '../runner/closed-loop.js';
import type { Measuring } from '../runner/measuring.js';
import { backoffMs, RunLifecycle, timeoutTickMs, type Exchanges, type RunHooks } from '../runner/lifecycle.js';
import type { SteeringTargets } from '../runner/steering.js';
import { RequestSequence } from './request-sequence.js';
import { firstLanesFirst, makeLanes } from './lanes.js';
import { OpenLoop } from '../runner/open-loop.js';
import { DownServer } from './down-server.js';
import { openAhead } from './open-ahead.js';
import { planSlotSchedule } from '../runner/arrival-schedule.js';
import { addWarning, type Warning } from '../shared/warnings.js';
import { StreamMeter, STREAM_UNTIL_CLOSED } from './stream-meter.js';
import { transportConfig } from './transport-config.js';
import { decodeDetails } from './body-decoder.js';
import { prewarm } from './prewarm.js';
import { loadSessionLibraries } from './session-state.js';

/**
 * The HTTP exchanges of one thread's run: closed loop (each lane sends again as soon as its response
 * arrives) or open loop (`rate`: slots due on a schedule, taken by whichever lane is free, the
 * `OpenLoop`'s). Owns the lanes, timeouts and backoff; `amount` and connection ramps are the
 * `ClosedLoop`'s, shared with the task runner; the run's shape (start, ticks, abort, end, stats) is
 * the `RunLifecycle`'s. A lane sends a prepared payload and waits for its answer, an error
 * or a timeout: what the payloads are and what an answer means is the `RequestSequence`'s; moving
 * the bytes is the transport's.
 */
export class Engine implements TransportSink, Exchanges {
  readonly tickMs: number;
  readonly gauges: Exchanges['gauges'];
  readonly #plan: Plan;
  readonly #hooks: RunHooks;
  readonly #run: RunLifecycle;
  readonly #transport: Transport;
  readonly #sequence: RequestSequence;
  readonly #lanes: Lane[];
  /** `pipelining` (HTTP/1.1) or `streams` (h2): lanes `i * lanesPerConnection ...` ride connection i. */
  readonly #lanesPerConnection: number;
  /** Counts toward `amount`, in flight, ramps: shared by both loops. */
  readonly #loop: ClosedLoop<Lane>;
  /** `rate`: slots due on a schedule; undefined for a closed loop. */
  readonly #open: OpenLoop<Lane> | undefined;
  #recorder!: Recorder;
  /**
   * By `lane.measured ? 1 : 0`: the warm-up's recorder and phases (never read) at 0, the run's at 1.
   * Warm-up and measured exchanges run the same code: a branch that only measured ones took would
   * still be unoptimised when measuring starts (V8 optimises what has run), and slow its first second.
   */
  #recorders: Recorder[] = [];
  readonly #phasesBy: PhaseRecorder[];
  /** Connections are timed from before the clock starts (they open ahead of it), so not in the Recorder. */
  readonly #phases = new PhaseRecorder();
  /** Each request's name index (`Plan.names`), by its index in the sequence. */
  readonly #nameOf: Uint16Array;
  /** With several names, each name's `ttfb` and `receive` (its connections are the run's). */
  readonly #namedPhases: PhaseRecorder[] | undefined;
  #measureAt = 0;
  #endAt = Infinity;
  /** Lanes waiting out their backoff, by timer. */
  readonly #backoffTimers = new Map<NodeJS.Timeout, Lane>();
  /** Closed-loop `amount` runs without connection ramps: fail fast once the server is down. */
  #downServer: DownServer | undefined;
  /** Transport findings, kept here because they can come before the recorder exists. */
  readonly #warnings: Warning[] = [];
  /** `stream`: each response's body framed into events and timed. */
  readonly #stream: StreamMeter | undefined;
  #haltedAt = 0;

  constructor(plan: Plan, createTransport: TransportFactory, hooks: RunHooks = {}) {
    this.#plan = plan;
    this.#hooks = hooks;
    const maxConnections = peakConnections(plan);
    this.#lanesPerConnection = lanesPerConnection(plan);
    this.#loop = new ClosedLoop(plan, {
      parked: (lane) => this.#park(lane),
      resume: (lane, now) => this.#next(lane, now),
      stop: () => this.#run.stop(false),
    });
    this.#sequence = new RequestSequence(plan, hooks.requests, maxConnections, maxConnections * this.#lanesPerConnection);
    this.#nameOf = Uint16Array.from(plan.requests, (request) => request.nameIndex);
    this.#namedPhases = plan.names.length > 1 ? plan.names.map(() => new PhaseRecorder()) : undefined;
    this.#phasesBy = [plan.warmupMs > 0 ? new PhaseRecorder() : this.#phases, this.#phases];
    // After `until`, an HTTP/1.1 body is read to its end to keep the connection; the head's status completes one that does not end.
    const drain = plan.transport !== 'h2' && (plan.stream?.until !== undefined || plan.stream?.untilFunction === true);
    this.#transport = createTransport(transportConfig(plan, this.#phases, { captureResponses: this.#sequence.captureResponses, stream: plan.stream !== undefined, heads: drain }), this);
    this.#sequence.bind(this.#transport);
    this.#lanes = makeLanes(maxConnections, this.#lanesPerConnection);
    if (plan.stream !== undefined) this.#stream = new StreamMeter(plan.stream, hooks.stream, this.#lanes, { nameOf: this.#nameOf, count: plan.names.length }, (code, message) => this.onWarning(code, message), hooks.onSecond !== undefined, drain);
    const schedule = planSlotSchedule(plan);
    if (schedule !== undefined) this.#open = new OpenLoop(schedule, this.#lanes.length, this.#loop, { send: (lane, intendedAt, now) => this.#send(lane, intendedAt, now), stop: () => this.#run.stop(false) });
    this.tickMs = timeoutTickMs(plan.timeoutMs);
    this.gauges = {
      connections: () => this.#transport.openConnections(),
      targetRate: (second) => this.#open?.slotsInSecond(second),
      ...(this.#stream !== undefined ? { stream: (second: number) => this.#stream!.second(second) } : {}),
    };
    this.#run = new RunLifecycle(plan, hooks, this);
    this.#sequence.journeys?.bind({ loop: this.#loop, openLoop: this.#open !== undefined, send: (lane, intendedAt, now) => this.#send(lane, intendedAt, now), next: (lane, now) => this.#next(lane, now), stop: () => this.#run.stop(false), warn: (code, message) => this.onWarning(code, message) });
  }

  /** Runs to the end (duration, amount, abort) and returns what this thread measured. */
  run(): Promise<ShardStats> {
    return this.#run.run();
  }

  async open(): Promise<void> {
    await Promise.all([this.#openConnections(), this.#open?.ready()]);
  }

  begin(measuring: Measuring): void {
    this.#measureAt = measuring.measureAt;
    this.#endAt = measuring.endAt;
    this.#recorder = measuring.recorder;
    this.#recorders = [measuring.warmupRecorder ?? measuring.recorder, measuring.recorder];
    this.#open?.begin(measuring);
    this.#stream?.begin(measuring.measureAt, measuring.endAt);
  }

  start(now: number): void {
    // A server may allow fewer requests per connection than asked (HTTP/2 streams): the lanes
    // above its limit stay idle instead of queueing behind the others.
    const pipelining = this.#lanesPerConnection;
    const usable = Math.min(pipelining, this.#transport.lanesPerConnection?.() ?? Infinity);
    if (this.#open) {
      this.#open.start(firstLanesFirst(this.#lanes, pipelining, usable));
    } else {
      const started = this.#lanes.filter((lane) => lane.id % pipelining < usable && lane.connection < this.#loop.active);
      if (this.#plan.amount !== undefined && this.#plan.ramps !== 'connections') this.#downServer = new DownServer(started.length, this.#lanes.length);
      // Each timed from its own send: the last of the first wave goes out after the others were written.
      for (const lane of this.#lanes) if (lane.id % pipelining < usable) this.#next(lane, Math.max(now, performance.now()));
    }
  }

  checks(): CheckStats | undefined {
    return this.#sequence.checker?.stats();
  }

  steering(): SteeringTargets {
    const open = this.#open;
    return { rate: open && ((rate, at) => open.setRate(rate, at)), connections: (connections, now) => (open ?? this.#loop).setConnections(connections, now) };
  }

  async #openConnections(): Promise<void> {
    const warning = await openAhead(this.#transport, this.#loop.active, this.#plan.timeoutMs, this.#hooks.signal);
    if (warning !== undefined && !this.#run.stopped) this.onWarning(warning.code, warning.message);
  }

  /** Ramped down: the connection closes once none of its lanes has a request in flight. */
  #park(lane: Lane): void {
    if (!this.#lanes.some((l) => l.connection === lane.connection && l.busy)) this.#transport.release(lane.connection);
  }

  /** Send on `lane` now (closed loop) or free it for the next slot (open loop); after its backoff, or not at all once the run is winding down. */
  #next(lane: Lane, now: number): void {
    if (this.#open) return this.#open.free(lane, now);
    if (!this.#loop.admits(lane)) return;
    // The rest of the amount is reserved by other connections' walks of the sequence: this lane is done.
    if (now >= this.#measureAt && !this.#sequence.mayMeasure(lane.connection)) return;
    const down = this.#downServer?.code;
    if (down !== undefined) {
      this.#failUnsent(lane, now, down);
      this.#retryLater(lane, 0);
      return;
    }
    this.#send(lane, now, now);
  }

  /** The server is down: the lane's next request fails under `code` at once, no byte of it written (in `sent`, as a refused one is). */
  #failUnsent(lane: Lane, now: number, code: string): void {
    lane.measured = now >= this.#measureAt;
    if (!lane.measured) return void this.#sequence.skip(lane);
    this.#loop.sent++;
    this.#downServer!.failedUnsent++;
    this.#sequence.skip(lane);
    const name = this.#nameOf[lane.requestIndex];
    this.#recorder.recordSent(0, now, name);
    this.#recorder.recordError(code, now, name);
  }

  /** Backoff after an error: the lane is neither free nor busy until the timer fires. */
  #retryLater(lane: Lane, delayMs: number): void {
    const timer = setTimeout(() => {
      this.#backoffTimers.delete(timer);
      this.#next(lane, performance.now());
    }, delayMs);
    this.#backoffTimers.set(timer, lane);
  }

  #send(lane: Lane, intendedAt: number, now: number): void {
    if (this.#sequence.journeys?.refuses(lane) === true) return;
    lane.busy = true;
    lane.intendedAt = intendedAt;
    lane.sentAt = now;
    lane.writtenAt = now;
    lane.firstByteAt = 0;
    lane.retried = false;
    lane.measured = intendedAt >= this.#measureAt;
    const measured = lane.measured ? 1 : 0;
    this.#loop.sent += measured;
    this.#loop.inFlight++;
    this.#stream?.sent(lane);
    const prepared = this.#sequence.next(lane);
    if (prepared === undefined) {
      // In `sent` with its error, so that every request sent ends in exactly one count.
      lane.sentBytes = 0;
      if (lane.measured) {
        this.#recorder.recordSent(0, now, this.#nameOf[lane.requestIndex]);
        this.#recorder.recordThrown('SETUP_REQUEST_FAILED', `${this.#sequence.stepOption(lane.requestIndex)}.setupRequest`, this.#sequence.thrown);
      }
      this.onError(lane, 'SETUP_REQUEST_FAILED');
      return;
    }
    const bytes = this.#transport.send(lane, prepared);
    lane.sentBytes = bytes;
    this.#recorders[measured]!.recordSent(bytes, now, this.#nameOf[lane.requestIndex]);
  }

  onResponse(lane: Lane, status: number, bytesReceived: number, details?: ResponseDetails): void {
    const now = performance.now();
    if (this.#loop.stopped) return;
    // Answered after the end: still busy, so `halt` counts it in `requests.unfinished`.
    if (now >= this.#endAt) {
      this.#run.stop(false);
      return;
    }
    const hop = this.#sequence.session === undefined ? undefined : this.#sequence.follow(lane, status, details);
    if (hop !== undefined) return this.#hop(lane, hop, bytesReceived, now);
    lane.busy = false;
    lane.failures = 0;
    if (this.#open) this.#open.failing = false;
    this.#downServer?.answered(lane);
    this.#loop.inFlight--;
    // A response whose `onResponse` hook threw is that request's error instead of a completion: each
    // request ends in exactly one of `completed` and `errors`.
    // A body salvo could not decode is that request's error (its code), as a hook that threw is.
    const undecodable = this.#stream?.undecodable(lane) ?? (details === undefined ? undefined : decodeDetails(details));
    const handled = undecodable === undefined && this.#sequence.answered(lane, status, details);
    this.#stream?.end(lane, now, lane.measured && handled);
    const name = this.#nameOf[lane.requestIndex];
    if (!handled) {
      if (lane.measured) {
        if (undecodable === undefined) this.#recorder.recordThrown('ON_RESPONSE_FAILED', `${this.#sequence.stepOption(lane.requestIndex)}.onResponse`, this.#sequence.thrown);
        this.#recorder.recordError(undecodable ?? 'ON_RESPONSE_FAILED', now, name);
        this.#recorder.recordReceivedBytes(bytesReceived, name);
      }
    } else {
      const measured = lane.measured ? 1 : 0;
      this.#recorders[measured]!.recordResponse(status, bytesReceived, now - lane.intendedAt, now - lane.sentAt, now, name);
      if (lane.firstByteAt !== 0) {
        const firstByteAt = lane.firstByteAt === FIRST_BYTE_IN_LAST_READ ? now : lane.firstByteAt;
        this.#phasesBy[measured]!.recordExchange(firstByteAt - lane.writtenAt, now - firstByteAt);
        if (this.#namedPhases !== undefined && lane.measured) this.#namedPhases[name!]!.recordExchange(firstByteAt - lane.writtenAt, now - firstByteAt);
      }
    }
    if (this.#sequence.journeys !== undefined) this.#sequence.journeys.ended(lane, now, handled);
    else this.#next(lane, now);
  }

  /** A redirect followed: the lane, still busy, sends the next hop of its request, timed from the request's first send. */
  #hop(lane: Lane, hop: unknown, bytesReceived: number, now: number): void {
    const recorder = this.#recorders[lane.measured ? 1 : 0]!;
    recorder.recordRedirect(bytesReceived, this.#nameOf[lane.requestIndex]);
    lane.writtenAt = now;
    lane.firstByteAt = 0;
    lane.retried = false;
    lane.sentBytes = this.#transport.send(lane, hop);
    recorder.recordSentBytes(lane.sentBytes, this.#nameOf[lane.requestIndex]);
  }

  onWarning(code: string, message: string): void {
    addWarning(this.#warnings, code, message);
  }

  onBody(lane: Lane, data: Uint8Array, start: number, end: number): boolean {
    return this.#stream!.body(lane, data, start, end);
  }

  onEncoding(lane: Lane, contentEncoding: string): boolean {
    return this.#stream!.encoding(lane, contentEncoding);
  }

  onHead(lane: Lane, status: number): boolean {
    this.#stream!.head(lane, status);
    return true;
  }

  onSentMore(lane: Lane, bytes: number): void {
    lane.sentBytes += bytes;
    if (lane.measured && !this.#loop.stopped) this.#recorder.recordSentBytes(bytes, this.#nameOf[lane.requestIndex]);
  }

  onRetry(lane: Lane, bytes: number): void {
    lane.sentBytes += bytes;
    if (lane.measured && !this.#loop.stopped) this.#recorder.recordRetry(bytes, performance.now(), this.#nameOf[lane.requestIndex]);
  }

  onError(lane: Lane, code: string, unsent = false): void {
    // A body that went on after `until`: its stream had ended, so the response completed.
    if (code === STREAM_UNTIL_CLOSED && this.#stream!.overdue(lane, Infinity)) {
      const { status, bytes } = this.#stream!.drained(lane);
      return this.onResponse(lane, status, bytes);
    }
    const now = performance.now();
    lane.busy = false;
    this.#loop.inFlight--;
    if (this.#loop.stopped) return;
    if (this.#open) this.#open.failing = true;
    if (lane.measured) {
      const name = this.#nameOf[lane.requestIndex];
      // A request whose connection never opened stays in `sent` with its error; its bytes never left.
      if (unsent) this.#recorder.recordUnwrittenBytes(lane.sentBytes, name);
      this.#recorder.recordError(code, now, name);
    }
    lane.failures++;
    this.#sequence.journeys?.failed(lane);
    // Always deferred, also because a transport may report an error from inside send().
    if (this.#downServer?.failed(lane, code, unsent)) {
      // Every lane waiting out a backoff counts the rest of its requests now.
      for (const [timer, waiting] of [...this.#backoffTimers]) {
        clearTimeout(timer);
        this.#backoffTimers.delete(timer);
        this.#retryLater(waiting, 0);
      }
      this.#retryLater(lane, 0);
      return;
    }
    this.#retryLater(lane, backoffMs(lane.failures - 1));
  }

  tick(now: number): void {
    const { timeoutMs } = this.#plan;
    const stream = this.#stream;
    for (const lane of this.#lanes) {
      if (!lane.busy) continue;
      // A streamed response's timeout bounds the wait for its first event and each gap after it, not the whole answer.
      if (stream === undefined) {
        if (now - lane.sentAt >= timeoutMs) this.#transport.cancel(lane, 'TIMEOUT');
      } else if (stream.overdue(lane, now)) this.#transport.cancel(lane, STREAM_UNTIL_CLOSED);
      else if (now - stream.lastActivityAt(lane) >= timeoutMs) this.#transport.cancel(lane, 'TIMEOUT');
    }
    this.#loop.ramp(now, this.#measureAt);
  }

  /**
   * In-flight requests are not waited for: those written are counted in `requests.unfinished`, those
   * still waiting for a connection are taken back out of `sent` (nothing of them reached the server).
   */
  halt(now: number, endAt: number): void {
    if (this.#open) this.#recorder.missed = this.#open.halt(now, endAt);
    this.#loop.stopped = true;
    this.#haltedAt = endAt;
    for (const timer of this.#backoffTimers.keys()) clearTimeout(timer);
    this.#sequence.journeys?.halt();
    for (const lane of this.#lanes) {
      if (!lane.busy || !lane.measured) continue;
      if (this.#transport.unwritten?.(lane)) this.#recorder.recordUnsent(lane.sentBytes, now, this.#nameOf[lane.requestIndex]);
      else this.#recorder.recordUnfinished(this.#nameOf[lane.requestIndex]);
    }
    this.#stream?.warnClock();
    const down = this.#downServer?.warning();
    if (down !== undefined) this.onWarning(down.code, down.message);
    for (const { code, message } of this.#warnings) addWarning(this.#recorder.warnings, code, message);
  }

  close(stats: ShardStats): Promise<void> {
    stats.phases = this.#phases.encode();
    const streams = this.#stream?.finish(this.#haltedAt);
    if (streams !== undefined) stats.stream = streams.stream;
    const names = this.#plan.names;
    names.forEach((name, index) => {
      const named = stats.byName?.[name];
      if (named === undefined) return;
      named.phases = this.#namedPhases?.[index]!.encode() ?? stats.phases;
      named.checks = this.#sequence.namedCheckers?.[index]!.stats() ?? stats.checks;
      const stream = streams?.byName?.[index] ?? streams?.stream;
      if (stream !== undefined) named.stream = stream;
    });
    return this.#transport.close();
  }
}

/** Runs one thread's share of a load test, after its pre-warm (see prewarm.ts) when it has one. */
export async function runEngine(plan: Plan, hooks: RunHooks = {}): Promise<ShardStats> {
  if (plan.transport === 'websocket' || plan.transport === 'socket.io' || plan.transport === 'task') throw new Error(`a ${plan.transport} plan runs on its own runner, not the HTTP engine`);
  const createTransport = await loadTransport(plan.transport);
  await loadSessionLibraries(plan);
  const cost = await prewarm(plan, (warm, warmHooks) => new Engine(warm, createTransport, warmHooks).run(), hooks.signal);
  const stats = await new Engine(plan, createTransport, hooks).run();
  if (cost !== undefined && stats.generator !== undefined) stats.generator.prewarm = cost;
  return stats;
}
