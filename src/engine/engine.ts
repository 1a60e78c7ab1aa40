import { performance } from 'node:perf_hooks';
import type { Plan } from '../shared/plan.js';
import type { Recorder, ShardStats } from '../stats/recorder.js';
import { loadTransport } from '../transports/index.js';
import { FIRST_BYTE_IN_LAST_READ, Lane, type Transport, type TransportFactory, type TransportSink } from '../transports/transport.js';
import type { ResponseDetails } from '../shared/exchange.js';
import type { RequestSpec } from '../shared/load-options.js';
import { abortOnFailCheck, type PartialLoadResult } from '../stats/thresholds.js';
import { PhaseRecorder } from '../stats/phases.js';
import type { GeneratorMonitor } from '../stats/generator.js';
import { Pacer } from './pacer.js';
import { connectionTarget } from './ramp.js';
import { measuredSpan, prepareMeasuring, type Measuring, type OnSecond } from './measuring.js';
import { RequestSequence } from './request-sequence.js';
import { RateSchedule } from './schedule.js';
import { addWarning, type Warning } from '../shared/warnings.js';

/** What one thread's engine needs besides its plan; everything here stays in that thread. */
export interface EngineHooks {
  /** The user's request specs, for `setupRequest` / `onResponse` hooks. */
  requests?: RequestSpec[] | undefined;
  signal?: AbortSignal | undefined;
  /** Called as each second closes, with totals so far. */
  onSecond?: OnSecond | undefined;
  /**
   * Awaited after the connections are open and before the clock starts (the workers' start barrier).
   * It may resolve with the instant the clock starts from (performance.now() ms), shared with other
   * threads, when this thread may get there a little late.
   */
  ready?: (() => Promise<number | void>) | undefined;
}

/** First retry after a network error, then doubling up to the cap, so a refused port cannot spin the CPU. */
const BACKOFF_FIRST_MS = 5;
const BACKOFF_MAX_MS = 1000;

/**
 * The per-thread load loop: closed loop (each lane sends again as soon as its response arrives) or
 * open loop (`rate`: slots due on a schedule, taken by whichever lane is free). Owns the lanes,
 * timing, timeouts, backoff and stop conditions. It schedules exchanges: a lane sends a prepared
 * payload and waits for its answer, an error or a timeout. What the payloads are and what an answer
 * means is the `RequestSequence`'s; moving the bytes is the transport's.
 */
export class Engine implements TransportSink {
  readonly #plan: Plan;
  readonly #hooks: EngineHooks;
  readonly #transport: Transport;
  readonly #sequence: RequestSequence;
  readonly #lanes: Lane[];
  /** The `abortOnFail` thresholds, checked from the tick about once per second, off the hot path. */
  readonly #abortOnFail: ((partial: PartialLoadResult) => boolean) | undefined;
  #nextAbortCheckAt = Infinity;
  readonly #schedule: RateSchedule | undefined;
  /** Lanes free to take an open-loop slot. */
  readonly #freeLanes: Lane[] = [];
  /** Lanes idle because connections were ramped down. */
  readonly #parked = new Set<Lane>();
  #recorder!: Recorder;
  /** Connections are timed from before the clock starts (they open ahead of it), so not in the Recorder. */
  readonly #phases = new PhaseRecorder();
  /** The clock has started (`#begin` ran): the recorder exists. */
  #begun = false;
  #startAt = 0;
  #measureAt = 0;
  #endAt = Infinity;
  #activeConnections: number;
  #inFlight = 0;
  /** Measured requests sent, for `amount`. */
  #measuredSent = 0;
  #slot = 0;
  /** Open loop: wakes the loop when slots fall due (see pacer.ts). */
  #pacer: Pacer | undefined;
  #monitor!: GeneratorMonitor;
  #measuring!: Measuring;
  #startMeasuring: ((clockFrom?: number) => Measuring) | undefined;
  #tickTimer: NodeJS.Timeout | undefined;
  readonly #backoffTimers = new Set<NodeJS.Timeout>();
  #stopped = false;
  /** Transport findings, kept here because they can come before the recorder exists. */
  readonly #warnings: Warning[] = [];
  #resolve!: (stats: ShardStats) => void;
  readonly #onAbort = () => this.stop(true);

  constructor(plan: Plan, createTransport: TransportFactory, hooks: EngineHooks = {}) {
    this.#plan = plan;
    this.#hooks = hooks;
    const staged = plan.stages?.some((s) => s.connections !== undefined) ?? false;
    const maxConnections = staged ? Math.max(plan.connections, ...plan.stages!.map((s) => s.connections ?? 0)) : plan.connections;
    this.#activeConnections = plan.connections;
    this.#sequence = new RequestSequence(plan, hooks.requests, maxConnections);
    this.#abortOnFail = abortOnFailCheck(plan.thresholds);
    this.#transport = createTransport(
      {
        url: new URL(plan.url),
        connections: maxConnections,
        pipelining: plan.pipelining,
        keepAlive: plan.keepAlive,
        tls: plan.tls,
        tlsSessionReuse: plan.tlsSessionReuse,
        timeoutMs: plan.timeoutMs,
        captureResponses: this.#sequence.captureResponses,
        phases: this.#phases,
      },
      this,
    );
    this.#sequence.bind(this.#transport);
    this.#lanes = [];
    for (let connection = 0; connection < maxConnections; connection++) {
      for (let i = 0; i < plan.pipelining; i++) this.#lanes.push(new Lane(this.#lanes.length, connection));
    }
    const rampsRate = plan.stages?.some((s) => s.rate !== undefined) ?? false;
    if (plan.rate !== undefined || rampsRate) {
      const ramps = rampsRate ? plan.stages!.map((s) => ({ durationMs: s.durationMs, rate: s.rate! })) : [];
      const initialRate = plan.rate ?? 0;
      // The warm-up runs at the starting rate; the stages begin when measuring does.
      this.#schedule = new RateSchedule(initialRate, [
        ...(plan.warmupMs > 0 ? [{ durationMs: plan.warmupMs, rate: initialRate }] : []),
        ...ramps,
      ], plan.ratePhase);
    }
  }

  /** Runs to the end (duration, amount, abort) and returns what this thread measured. */
  async run(): Promise<ShardStats> {
    const { signal } = this.#hooks;
    const done = new Promise<ShardStats>((resolve) => (this.#resolve = resolve));
    if (signal?.aborted) {
      this.stop(true);
      return done;
    }
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (this.#schedule) this.#pacer = new Pacer(this.#onPumpWake);
    await Promise.all([this.#openConnections(), this.#pacer?.ready()]);
    this.#prepare();
    const clockFrom = await this.#hooks.ready?.();
    if (this.#stopped) return done;
    if (signal?.aborted) {
      this.stop(true);
      return done;
    }
    const now = this.#begin(clockFrom ?? undefined);
    // A server may allow fewer requests per connection than asked (HTTP/2 streams): the lanes
    // above its limit stay idle instead of queueing behind the others.
    const { pipelining } = this.#plan;
    const usable = Math.min(pipelining, this.#transport.lanesPerConnection?.() ?? Infinity);
    const tickMs = Math.min(100, Math.max(5, Math.floor(this.#plan.timeoutMs / 10)));
    this.#tickTimer = setInterval(() => this.#tick(), tickMs);
    if (this.#schedule) {
      // Popped from the end: the first lane of every connection comes before any second (pipelined) one.
      for (let depth = usable - 1; depth >= 0; depth--) {
        for (let lane = this.#lanes.length - pipelining + depth; lane >= 0; lane -= pipelining) {
          this.#freeLanes.push(this.#lanes[lane]!);
        }
      }
      this.#pump();
    } else {
      for (const lane of this.#lanes) if (lane.id % pipelining < usable) this.#next(lane, now);
    }
    return done;
  }

  /**
   * Opens the connections before the clock starts, for at most the request timeout (or until the run
   * is aborted): a server that accepts and never finishes a handshake must not hold the run. Requests
   * sent on connections still opening wait for them, and time out like any other.
   */
  async #openConnections(): Promise<void> {
    const { timeoutMs } = this.#plan;
    const signal = this.#hooks.signal;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const bound = new Promise<false>((resolve) => {
      timer = setTimeout(resolve, timeoutMs, false);
      onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    const opened = await Promise.race([this.#transport.connect(this.#activeConnections).then(() => true), bound]);
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort!);
    const open = this.#transport.openConnections();
    if (opened || this.#stopped || open >= this.#activeConnections) return;
    this.onWarning(
      'CONNECTIONS_NOT_OPEN',
      `${open} of ${this.#activeConnections} connections had opened ${timeoutMs} ms (the request timeout) after the run began opening them, ` +
        'and the clock started without the rest: requests wait on them and count as TIMEOUT if they never open. ' +
        'A server that accepts TCP connections but never completes the TLS handshake (or is not listening for TLS) looks like this.',
    );
  }

  /** Builds what measures this thread, before it waits for its start (see `prepareMeasuring`). */
  #prepare(): void {
    this.#startMeasuring ??= prepareMeasuring(this.#plan, {
      openLoop: this.#schedule !== undefined,
      gauges: {
        connections: () => this.#transport.openConnections(),
        targetRate: (second) => {
          if (!this.#schedule) return undefined;
          const from = this.#measureAt - this.#startAt + second * 1000;
          return this.#schedule.countBefore(from + 1000) - this.#schedule.countBefore(from);
        },
      },
      onSecond: this.#hooks.onSecond,
      onEnd: () => this.stop(false),
    });
  }

  /** Starts the thread's clock, from `clockFrom` if given and past; returns when, performance.now() ms. */
  #begin(clockFrom?: number): number {
    this.#begun = true;
    this.#prepare();
    const measuring = (this.#measuring = this.#startMeasuring!(clockFrom));
    this.#measureAt = measuring.measureAt;
    this.#endAt = measuring.endAt;
    this.#monitor = measuring.monitor;
    this.#recorder = measuring.recorder;
    this.#startAt = measuring.startAt;
    if (this.#abortOnFail) this.#nextAbortCheckAt = this.#measureAt + 1000;
    return measuring.startAt;
  }

  #amountReached(): boolean {
    return this.#plan.amount !== undefined && this.#measuredSent >= this.#plan.amount;
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
      if (this.#inFlight === 0) this.stop(false);
      return;
    }
    this.#send(lane, now, now);
  }

  /** Backoff after an error: the lane is neither free nor busy until the timer fires. */
  #retryLater(lane: Lane, delayMs: number): void {
    const timer = setTimeout(() => {
      this.#backoffTimers.delete(timer);
      this.#next(lane, performance.now());
    }, delayMs);
    this.#backoffTimers.add(timer);
  }

  #freeLane(lane: Lane, now: number): void {
    if (this.#stopped) return;
    lane.freedAt = now;
    this.#freeLanes.push(lane);
    if (this.#amountReached()) {
      if (this.#inFlight === 0) this.stop(false);
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
      this.stop(false);
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
      const lane = this.#freeLanes.pop();
      if (lane === undefined) break; // every lane busy: the next response pumps again
      this.#slot++;
      this.#send(lane, due, now);
      // The generator's own lateness: a slot that waited for a free connection was late because of
      // the connections (its latency counts from `due` all the same), not because of salvo.
      if (lane.measured) this.#monitor.recordSendLag(now - Math.max(due, lane.freedAt));
    }
    pacer.pause();
  }

  #send(lane: Lane, intendedAt: number, now: number): void {
    lane.busy = true;
    lane.intendedAt = intendedAt;
    lane.sentAt = now;
    lane.writtenAt = now;
    lane.firstByteAt = 0;
    lane.measured = intendedAt >= this.#measureAt;
    if (lane.measured) this.#measuredSent++;
    this.#inFlight++;
    const prepared = this.#sequence.next(lane);
    if (prepared === undefined) {
      this.onError(lane, 'SETUP_REQUEST_FAILED');
      return;
    }
    const bytes = this.#transport.send(lane, prepared);
    lane.sentBytes = bytes;
    if (lane.measured) this.#recorder.recordSent(bytes, now);
  }

  onResponse(lane: Lane, status: number, bytesReceived: number, details?: ResponseDetails): void {
    const now = performance.now();
    lane.busy = false;
    lane.failures = 0;
    this.#inFlight--;
    if (this.#stopped) return;
    if (now >= this.#endAt) {
      this.stop(false);
      return;
    }
    if (lane.measured) {
      this.#recorder.recordResponse(status, bytesReceived, now - lane.intendedAt, now - lane.sentAt, now);
      if (lane.firstByteAt !== 0) {
        const firstByteAt = lane.firstByteAt === FIRST_BYTE_IN_LAST_READ ? now : lane.firstByteAt;
        this.#phases.recordExchange(firstByteAt - lane.writtenAt, now - firstByteAt);
      }
    }
    if (!this.#sequence.answered(lane, status, details) && lane.measured) this.#recorder.recordError('ON_RESPONSE_FAILED', performance.now());
    this.#next(lane, now);
  }

  onWarning(code: string, message: string): void {
    addWarning(this.#warnings, code, message);
  }

  onSentMore(lane: Lane, bytes: number): void {
    lane.sentBytes += bytes;
    if (lane.measured && !this.#stopped) this.#recorder.recordSentBytes(bytes);
  }

  onError(lane: Lane, code: string, unsent = false): void {
    const now = performance.now();
    lane.busy = false;
    this.#inFlight--;
    if (this.#stopped) return;
    if (lane.measured) {
      if (unsent) this.#recorder.recordUnsent(lane.sentBytes, now);
      this.#recorder.recordError(code, now);
    }
    lane.failures++;
    // Always deferred, also because a transport may report an error from inside send().
    this.#retryLater(lane, Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (lane.failures - 1)));
  }

  #tick(): void {
    const now = performance.now();
    if (now >= this.#endAt) {
      this.stop(false);
      return;
    }
    this.#recorder.rollTo(now);
    if (now >= this.#nextAbortCheckAt) {
      this.#nextAbortCheckAt += 1000;
      if (this.#abortOnFail!(this.#recorder.snapshot(this.#sequence.checker?.stats()))) {
        this.stop(true);
        return;
      }
    }
    const { timeoutMs } = this.#plan;
    for (const lane of this.#lanes) {
      if (lane.busy && now - lane.sentAt >= timeoutMs) this.#transport.cancel(lane, 'TIMEOUT');
    }
    this.#rampConnections(now);
  }

  /** Closed-loop `stages`: moves the open connections linearly toward each stage's target. */
  #rampConnections(now: number): void {
    const stages = this.#plan.stages;
    if (!stages || stages[0]!.connections === undefined || now < this.#measureAt) return;
    const target = connectionTarget(stages, this.#plan.connections, now - this.#measureAt);
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

  /** Ends the run now: in-flight requests are neither waited for nor counted as errors. */
  stop(aborted: boolean): void {
    if (this.#stopped) return;
    this.#stopped = true;
    const now = performance.now();
    // Aborted while the connections were still opening: nothing was measured.
    if (!this.#begun) this.#begin();
    this.#pacer?.close();
    this.#measuring.cancelTimers();
    clearInterval(this.#tickTimer);
    for (const timer of this.#backoffTimers) clearTimeout(timer);
    this.#hooks.signal?.removeEventListener('abort', this.#onAbort);
    const { endAt, durationMs } = measuredSpan(this.#plan, this.#measuring, now);
    if (this.#schedule) {
      const startOffset = this.#measureAt - this.#startAt;
      let due = this.#schedule.countBefore(endAt - this.#startAt);
      if (this.#plan.amount !== undefined) due = Math.min(due, this.#schedule.countBefore(startOffset) + this.#plan.amount);
      this.#recorder.missed = Math.max(0, due - Math.max(this.#slot, this.#schedule.countBefore(startOffset)));
    }
    for (const lane of this.#lanes) {
      if (lane.busy && lane.measured && this.#transport.unwritten?.(lane)) this.#recorder.recordUnsent(lane.sentBytes, now);
    }
    for (const { code, message } of this.#warnings) addWarning(this.#recorder.warnings, code, message);
    const stats = this.#recorder.finish(endAt, durationMs, aborted, this.#sequence.checker?.stats());
    stats.phases = this.#phases.encode();
    stats.generator = this.#monitor.finish(stats.warnings);
    void this.#transport.close().then(() => this.#resolve(stats));
  }
}

/** Runs one thread's share of a load test. */
export async function runEngine(plan: Plan, hooks?: EngineHooks): Promise<ShardStats> {
  if (plan.transport === 'websocket') throw new Error('a WebSocket plan runs on runWebSocket, not the HTTP engine');
  return new Engine(plan, await loadTransport(plan.transport), hooks).run();
}
