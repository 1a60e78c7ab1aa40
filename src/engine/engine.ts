import { performance } from 'node:perf_hooks';
import { lanesPerConnection, peakConnections, type Plan } from '../shared/plan.js';
import type { Recorder, ShardStats } from '../stats/recorder.js';
import { loadTransport } from '../transports/index.js';
import { FIRST_BYTE_IN_LAST_READ, Lane, type Transport, type TransportFactory, type TransportSink } from '../transports/transport.js';
import type { ResponseDetails } from '../shared/exchange.js';
import type { CheckStats } from '../shared/load-result.js';
import { PhaseRecorder } from '../stats/phases.js';
import type { GeneratorMonitor } from '../stats/generator.js';
import { Pacer } from '../runner/pacer.js';
import { connectionTarget } from '../runner/ramp.js';
import type { Measuring } from '../runner/measuring.js';
import { backoffMs, RunLifecycle, timeoutTickMs, type Exchanges, type RunHooks } from '../runner/lifecycle.js';
import { RequestSequence } from './request-sequence.js';
import { FreeLanes } from './free-lanes.js';
import { DownServer } from './down-server.js';
import { openAhead } from './open-ahead.js';
import { planSchedule, type RateSchedule } from '../runner/schedule.js';
import { addWarning, type Warning } from '../shared/warnings.js';
import { StreamMeter } from './stream-meter.js';

/**
 * The HTTP exchanges of one thread's run: closed loop (each lane sends again as soon as its response
 * arrives) or open loop (`rate`: slots due on a schedule, taken by whichever lane is free). Owns the
 * lanes, timeouts, backoff, connection ramps and `amount`; the run's shape (start, ticks, abort, end,
 * stats) is the `RunLifecycle`'s. A lane sends a prepared payload and waits for its answer, an error
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
  readonly #schedule: RateSchedule | undefined;
  /** Lanes free to take an open-loop slot, least recently freed first. */
  readonly #freeLanes: FreeLanes;
  /** Lanes idle because connections were ramped down. */
  readonly #parked = new Set<Lane>();
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
  #startAt = 0;
  #measureAt = 0;
  #endAt = Infinity;
  #activeConnections: number;
  #inFlight = 0;
  /** Measured requests sent, for `amount`. */
  #measuredSent = 0;
  #slot = 0;
  /** Open loop: measured slots that fell due while no lane could carry them (`missed`). */
  #skipped = 0;
  /** The last request to end failed: no response since (the server may be down). */
  #failing = false;
  /** Open loop: wakes the loop when slots fall due (see pacer.ts). */
  #pacer: Pacer | undefined;
  #monitor!: GeneratorMonitor;
  /** Lanes waiting out their backoff, by timer. */
  readonly #backoffTimers = new Map<NodeJS.Timeout, Lane>();
  /** Closed-loop `amount` runs without connection ramps: fail fast once the server is down. */
  #downServer: DownServer | undefined;
  #stopped = false;
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
    this.#activeConnections = plan.connections;
    this.#sequence = new RequestSequence(plan, hooks.requests, maxConnections);
    this.#nameOf = Uint16Array.from(plan.requests, (request) => request.nameIndex);
    this.#namedPhases = plan.names.length > 1 ? plan.names.map(() => new PhaseRecorder()) : undefined;
    this.#phasesBy = [plan.warmupMs > 0 ? new PhaseRecorder() : this.#phases, this.#phases];
    this.#transport = createTransport(
      {
        url: new URL(plan.url),
        connections: maxConnections,
        pipelining: this.#lanesPerConnection,
        keepAlive: plan.keepAlive,
        tls: plan.tls,
        tlsSessionReuse: plan.tlsSessionReuse,
        retry: plan.retry,
        timeoutMs: plan.timeoutMs,
        captureResponses: this.#sequence.captureResponses,
        stream: plan.stream !== undefined,
        phases: this.#phases,
      },
      this,
    );
    this.#sequence.bind(this.#transport);
    this.#lanes = [];
    for (let connection = 0; connection < maxConnections; connection++) {
      for (let i = 0; i < this.#lanesPerConnection; i++) this.#lanes.push(new Lane(this.#lanes.length, connection));
    }
    if (plan.stream !== undefined) this.#stream = new StreamMeter(plan.stream, hooks.stream, this.#lanes, { nameOf: this.#nameOf, count: plan.names.length }, (code, message) => this.onWarning(code, message));
    this.#freeLanes = new FreeLanes(this.#lanes.length);
    this.#schedule = planSchedule(plan);
    this.tickMs = timeoutTickMs(plan.timeoutMs);
    this.gauges = {
      connections: () => this.#transport.openConnections(),
      targetRate: (second) => this.#schedule?.slotsInSecond(this.#measureAt - this.#startAt, second),
      ...(this.#stream !== undefined ? { stream: (second: number) => this.#stream!.second(second) } : {}),
    };
    this.#run = new RunLifecycle(plan, hooks, this);
  }

  /** Runs to the end (duration, amount, abort) and returns what this thread measured. */
  run(): Promise<ShardStats> {
    return this.#run.run();
  }

  async open(): Promise<void> {
    if (this.#schedule) this.#pacer = new Pacer(this.#onPumpWake);
    await Promise.all([this.#openConnections(), this.#pacer?.ready()]);
  }

  begin(measuring: Measuring): void {
    this.#measureAt = measuring.measureAt;
    this.#endAt = measuring.endAt;
    this.#monitor = measuring.monitor;
    this.#recorder = measuring.recorder;
    this.#recorders = [measuring.warmupRecorder ?? measuring.recorder, measuring.recorder];
    this.#startAt = measuring.startAt;
    this.#stream?.begin(measuring.measureAt, measuring.endAt);
  }

  start(now: number): void {
    // A server may allow fewer requests per connection than asked (HTTP/2 streams): the lanes
    // above its limit stay idle instead of queueing behind the others.
    const pipelining = this.#lanesPerConnection;
    const usable = Math.min(pipelining, this.#transport.lanesPerConnection?.() ?? Infinity);
    if (this.#schedule) {
      // The first lane of every connection comes before any second (pipelined) one.
      for (let depth = 0; depth < usable; depth++) {
        for (let lane = depth; lane < this.#lanes.length; lane += pipelining) this.#freeLanes.push(this.#lanes[lane]!);
      }
      this.#pump();
    } else {
      const started = this.#lanes.filter((lane) => lane.id % pipelining < usable && lane.connection < this.#activeConnections);
      if (this.#plan.amount !== undefined && this.#plan.ramps !== 'connections') this.#downServer = new DownServer(started.length, this.#lanes.length);
      for (const lane of this.#lanes) if (lane.id % pipelining < usable) this.#next(lane, now);
    }
  }

  checks(): CheckStats | undefined {
    return this.#sequence.checker?.stats();
  }

  async #openConnections(): Promise<void> {
    const warning = await openAhead(this.#transport, this.#activeConnections, this.#plan.timeoutMs, this.#hooks.signal);
    if (warning !== undefined && !this.#run.stopped) this.onWarning(warning.code, warning.message);
  }

  #amountReached(): boolean {
    return this.#plan.amount !== undefined && this.#measuredSent + this.#skipped >= this.#plan.amount;
  }

  /** Closed loop: send on `lane` now, after its backoff, or not at all once the run is winding down. */
  #next(lane: Lane, now: number): void {
    if (this.#stopped) return;
    if (this.#schedule) {
      this.#freeLane(lane, now);
      return;
    }
    if (lane.connection >= this.#activeConnections) {
      this.#parked.add(lane);
      if (!this.#lanes.some((l) => l.connection === lane.connection && l.busy)) this.#transport.release(lane.connection);
      return;
    }
    if (this.#amountReached()) {
      if (this.#inFlight === 0) this.#run.stop(false);
      return;
    }
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
    this.#measuredSent++;
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

  #freeLane(lane: Lane, now: number): void {
    if (this.#stopped) return;
    lane.freedAt = now;
    this.#freeLanes.push(lane);
    if (this.#amountReached()) {
      if (this.#inFlight === 0) this.#run.stop(false);
      return;
    }
    this.#pump();
  }

  #onPumpWake = (): void => this.#pump();

  /** When slot `slot` is due, performance.now() ms. */
  #dueAt = (slot: number): number => this.#startAt + this.#schedule!.timeOf(slot);

  /**
   * Open loop: send every slot that is due on a free lane, then wait for the next slot or lane. Called
   * from the pacer's wake-up and from every freed lane; the pacer is told the next slot each time
   * (a plain store), and paused while nothing could be sent.
   */
  #pump(): void {
    if (this.#stopped) return;
    const schedule = this.#schedule!;
    const now = performance.now();
    // Woken after the end (the host stalled this process): what is still due was missed, not sent late.
    if (now >= this.#endAt) {
      this.#run.stop(false);
      return;
    }
    const pacer = this.#pacer!;
    while (!this.#amountReached()) {
      const due = this.#startAt + schedule.timeOf(this.#slot);
      if (due >= this.#endAt) break;
      if (due > now) {
        pacer.waitFor(this.#slot, this.#dueAt);
        return;
      }
      const lane = this.#freeLanes.shift();
      if (lane === undefined) {
        // Every lane busy: the next response pumps again, and the slot's latency counts its wait.
        if (this.#inFlight > 0 && !this.#failing) break;
        // None free and nothing answering since the last error: the lanes are backing off or trying
        // to reconnect (the server is down). The slot is missed rather than kept for a burst when
        // the server is back, as k6 drops an iteration it cannot start.
        if (due >= this.#measureAt) this.#skipped++;
        this.#slot++;
        continue;
      }
      this.#slot++;
      this.#send(lane, due, now);
      // The generator's own lateness: a slot that waited for a free connection was late because of
      // the connections (its latency counts from `due` all the same), not because of salvo.
      this.#monitor.recordSendLag(now - Math.max(due, lane.freedAt), lane.measured ? 1 : 0);
    }
    pacer.pause();
    if (this.#inFlight === 0 && this.#amountReached()) this.#run.stop(false);
  }

  /**
   * At the end: the slots due in its last millisecond may not have had their wake-up yet (1-9 of them
   * at 5,000-20,000/s were `missed`). They go now, and end `unfinished` like any request in flight;
   * a slot due earlier that no lane could take stays missed.
   */
  #sendLastDue(now: number, endAt: number): void {
    while (!this.#amountReached()) {
      const due = this.#startAt + this.#schedule!.timeOf(this.#slot);
      if (due >= endAt || due < endAt - 1) return;
      const lane = this.#freeLanes.shift();
      if (lane === undefined) return;
      this.#slot++;
      this.#send(lane, due, now);
    }
  }

  #send(lane: Lane, intendedAt: number, now: number): void {
    lane.busy = true;
    lane.intendedAt = intendedAt;
    lane.sentAt = now;
    lane.writtenAt = now;
    lane.firstByteAt = 0;
    lane.retried = false;
    lane.measured = intendedAt >= this.#measureAt;
    const measured = lane.measured ? 1 : 0;
    this.#measuredSent += measured;
    this.#inFlight++;
    this.#stream?.sent(lane);
    const prepared = this.#sequence.next(lane);
    if (prepared === undefined) {
      // In `sent` with its error, so that every request sent ends in exactly one count.
      lane.sentBytes = 0;
      if (lane.measured) {
        this.#recorder.recordSent(0, now, this.#nameOf[lane.requestIndex]);
        this.#recorder.recordThrown('SETUP_REQUEST_FAILED', `requests[${lane.requestIndex}].setupRequest`, this.#sequence.thrown);
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
    if (this.#stopped) return;
    // Answered after the end: still busy, so `halt` counts it in `requests.unfinished`.
    if (now >= this.#endAt) {
      this.#run.stop(false);
      return;
    }
    lane.busy = false;
    lane.failures = 0;
    this.#failing = false;
    this.#downServer?.answered(lane);
    this.#inFlight--;
    // A response whose `onResponse` hook threw is that request's error instead of a completion: each
    // request ends in exactly one of `completed` and `errors`.
    const handled = this.#sequence.answered(lane, status, details);
    this.#stream?.end(lane, now, lane.measured && handled);
    const name = this.#nameOf[lane.requestIndex];
    if (!handled) {
      if (lane.measured) {
        this.#recorder.recordThrown('ON_RESPONSE_FAILED', `requests[${lane.requestIndex}].onResponse`, this.#sequence.thrown);
        this.#recorder.recordError('ON_RESPONSE_FAILED', now, name);
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
    this.#next(lane, now);
  }

  onWarning(code: string, message: string): void {
    addWarning(this.#warnings, code, message);
  }

  onBody(lane: Lane, data: Uint8Array, start: number, end: number): boolean {
    return this.#stream!.body(lane, data, start, end);
  }

  onSentMore(lane: Lane, bytes: number): void {
    lane.sentBytes += bytes;
    if (lane.measured && !this.#stopped) this.#recorder.recordSentBytes(bytes, this.#nameOf[lane.requestIndex]);
  }

  onRetry(lane: Lane, bytes: number): void {
    lane.sentBytes += bytes;
    if (lane.measured && !this.#stopped) this.#recorder.recordRetry(bytes, performance.now(), this.#nameOf[lane.requestIndex]);
  }

  onError(lane: Lane, code: string, unsent = false): void {
    const now = performance.now();
    lane.busy = false;
    this.#inFlight--;
    if (this.#stopped) return;
    this.#failing = true;
    if (lane.measured) {
      const name = this.#nameOf[lane.requestIndex];
      // A request whose connection never opened stays in `sent` with its error; its bytes never left.
      if (unsent) this.#recorder.recordUnwrittenBytes(lane.sentBytes, name);
      this.#recorder.recordError(code, now, name);
    }
    lane.failures++;
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
    for (const lane of this.#lanes) {
      if (lane.busy && now - lane.sentAt >= timeoutMs) this.#transport.cancel(lane, 'TIMEOUT');
    }
    this.#rampConnections(now);
  }

  /** Closed-loop `stages`: moves the open connections linearly toward each stage's target. */
  #rampConnections(now: number): void {
    if (this.#plan.ramps !== 'connections' || now < this.#measureAt) return;
    const target = connectionTarget(this.#plan.stages!, this.#plan.connections, now - this.#measureAt);
    if (target === this.#activeConnections) return;
    const grew = target > this.#activeConnections;
    this.#activeConnections = target;
    if (!grew) return; // lanes above the target park themselves when their response arrives
    for (const lane of [...this.#parked]) {
      if (lane.connection < target) {
        this.#parked.delete(lane);
        this.#next(lane, now);
      }
    }
  }

  /**
   * In-flight requests are not waited for: those written are counted in `requests.unfinished`, those
   * still waiting for a connection are taken back out of `sent` (nothing of them reached the server).
   */
  halt(now: number, endAt: number): void {
    if (this.#schedule) this.#sendLastDue(now, endAt);
    this.#stopped = true;
    this.#haltedAt = endAt;
    this.#pacer?.close();
    for (const timer of this.#backoffTimers.keys()) clearTimeout(timer);
    if (this.#schedule) this.#recorder.missed = this.#schedule.missedSlots(this.#measureAt - this.#startAt, endAt - this.#startAt, this.#plan.amount, this.#slot) + this.#skipped;
    for (const lane of this.#lanes) {
      if (!lane.busy || !lane.measured) continue;
      if (this.#transport.unwritten?.(lane)) this.#recorder.recordUnsent(lane.sentBytes, now, this.#nameOf[lane.requestIndex]);
      else this.#recorder.recordUnfinished(this.#nameOf[lane.requestIndex]);
    }
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

/** Runs one thread's share of a load test. */
export async function runEngine(plan: Plan, hooks?: RunHooks): Promise<ShardStats> {
  if (plan.transport === 'websocket' || plan.transport === 'socket.io' || plan.transport === 'task') throw new Error(`a ${plan.transport} plan runs on its own runner, not the HTTP engine`);
  return new Engine(plan, await loadTransport(plan.transport), hooks).run();
}
