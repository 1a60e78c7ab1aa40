import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import type { LoadOptions } from '../shared/load-options.js';
import { peakConnections, type Plan } from '../shared/plan.js';
import type { RunControl } from '../shared/run-control.js';
import type { SteerStep } from '../shared/load-result.js';
import { ThreadSteering } from '../runner/steering.js';
import { wallClockMs, type StartGate } from '../runner/start-gate.js';
import type { ToWorker } from './messages.js';
import { splitEvenly } from './shard.js';

/**
 * How far ahead of now a rate change takes effect in worker threads: the same instant in every
 * shard keeps their slots interleaved on one schedule (a message reaches each thread a few ms
 * apart), as the start does (`GO_LEAD_MS` in pool.ts).
 */
const RATE_LEAD_MS = 10;

/** Posts a message to shard `index` of `count` worker threads. */
type PostToShard = (index: number, message: ToWorker) => void;

/**
 * The main thread's end of `startLoad`'s handle: checks each change, records it as a step, splits
 * it over the segment and the worker threads exactly as `splitPlan` splits the rate and the
 * connections, and hands each thread its share (`ThreadSteering`, in this thread or by message).
 * `stop()` aborts the run's own signal, which ends every thread with everything counted.
 */
export class RunSteering implements RunControl {
  readonly steps: SteerStep[] = [];
  readonly #controller = new AbortController();
  readonly #options: LoadOptions;
  #whole: Plan | undefined;
  #thread: ThreadSteering | undefined;
  #post: PostToShard | undefined;
  #shards = 1;
  /** Wall-clock epoch ms at which measuring starts, once the threads' clocks started. */
  #measureAtWall: number | undefined;
  #ended = false;

  constructor(options: LoadOptions) {
    this.#options = options;
  }

  /** The run's signal: the user's `signal`, or this handle's `stop()`. */
  signal(given: AbortSignal | undefined): AbortSignal {
    return given === undefined ? this.#controller.signal : AbortSignal.any([given, this.#controller.signal]);
  }

  /** The run's one scenario was planned: `plan` is what this process runs (its segment's share of `whole`). */
  bind(whole: Plan, plan: Plan, start: StartGate): void {
    this.#whole = whole;
    const onGo = start.onGo;
    start.onGo = (atMs) => {
      this.#measureAtWall = atMs + plan.warmupMs;
      onGo?.(atMs);
    };
  }

  /** The run goes in this thread: its steering. */
  inThisThread(): ThreadSteering {
    this.#shards = 1;
    this.#thread = new ThreadSteering();
    this.#sendSoFar();
    return this.#thread;
  }

  /** The run goes on `count` worker threads, reached by `post`. */
  onWorkers(count: number, post: PostToShard): void {
    this.#shards = count;
    this.#post = post;
    this.#sendSoFar();
  }

  /** Changes made before the threads were there: they apply from each thread's start. */
  #sendSoFar(): void {
    const rate = this.#lastStep('rate');
    const connections = this.#lastStep('connections');
    if (rate !== undefined) this.#sendRate(rate, wallClockMs());
    if (connections !== undefined) this.#sendConnections(connections);
  }

  /** The run ended: later changes are an error. */
  end(): void {
    this.#ended = true;
  }

  setRate(rate: number): void {
    this.#check('setRate', rate, 0);
    if (!this.#openLoop()) {
      throw new SalvoOptionError(
        'setRate: this run has no rate (it is a closed loop: each connection sends again when answered); start it with rate to steer the rate, or use setConnections',
        { option: 'setRate', value: rate, mentions: ['rate', 'setConnections'] },
      );
    }
    const atWall = wallClockMs() + (this.#shards > 1 ? RATE_LEAD_MS : 0);
    this.#record(atWall, { rate });
    this.#sendRate(rate, atWall);
  }

  setConnections(connections: number): void {
    this.#check('setConnections', connections, 1);
    if (!Number.isInteger(connections)) {
      throw new SalvoRangeError(`setConnections: expected a whole number of connections, got ${connections}`, {
        option: 'setConnections',
        value: connections,
      });
    }
    const most = this.#whole === undefined ? planned(this.#options) : peakConnections(this.#whole);
    if (connections > most) {
      throw new SalvoRangeError(
        `setConnections: ${connections} is more than the ${most} connections this run was planned with; start it with maxConnections: ${connections} (or more) to raise them that far`,
        { option: 'setConnections', value: connections, mentions: ['maxConnections'] },
      );
    }
    this.#record(wallClockMs(), { connections });
    this.#sendConnections(connections);
  }

  stop(): void {
    this.#controller.abort();
  }

  #check(method: string, value: number, least: number): void {
    if (this.#ended) {
      throw new SalvoOptionError(`${method}: the run has ended`, { option: method, value });
    }
    if (this.#options.scenarios !== undefined) {
      throw new SalvoOptionError(`${method}: a run of named scenarios cannot be steered (only stop() it)`, {
        option: method,
        value,
        mentions: ['scenarios'],
      });
    }
    if (this.#options.agents !== undefined) {
      // The agents run their segments in processes of their own; steering them is not built yet.
      throw new SalvoOptionError(`${method}: a run over agents cannot be steered (only stop() it)`, {
        option: method,
        value,
        mentions: ['agents'],
      });
    }
    const kind = this.#whole?.kind ?? optionsKind(this.#options);
    if (kind !== 'http' && kind !== 'task') {
      throw new SalvoOptionError(
        `${method}: a ${kind} run cannot be steered (only HTTP and task runs; stop() works for all)`,
        {
          option: method,
          value,
        },
      );
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < least) {
      throw new SalvoRangeError(`${method}: expected a finite number of at least ${least}, got ${String(value)}`, {
        option: method,
        value,
      });
    }
  }

  #openLoop(): boolean {
    if (this.#whole !== undefined) return this.#whole.loop === 'open';
    const { rate, stages } = this.#options;
    return rate !== undefined || (stages?.some((stage) => stage.rate !== undefined) ?? false);
  }

  #record(atWall: number, change: { rate?: number; connections?: number }): void {
    const from = this.#measureAtWall;
    const atMs = from === undefined ? 0 : Math.max(0, Math.round((atWall - from) * 1000) / 1000);
    this.steps.push({ atMs, ...change });
  }

  #lastStep(field: 'rate' | 'connections'): number | undefined {
    for (let index = this.steps.length - 1; index >= 0; index--) {
      const value = this.steps[index]![field];
      if (value !== undefined) return value;
    }
    return undefined;
  }

  /** Each thread's share: the segment's (rate / segments) split over its shards, as `splitPlan` does. */
  #sendRate(rate: number, atWall: number): void {
    const segment = this.#whole?.segment;
    const share = segment === undefined ? rate : rate / segment.count;
    const perShard = this.#shards > 1 ? share / this.#shards : share;
    this.#thread?.setRate(perShard, atWall);
    for (let index = 0; index < this.#shards; index++) {
      this.#post?.(index, { type: 'rate', rate: perShard, atMs: atWall });
    }
  }

  #sendConnections(connections: number): void {
    const segment = this.#whole?.segment;
    const share = segment === undefined ? connections : splitEvenly(connections, segment.count)[segment.index]!;
    const parts = splitEvenly(share, this.#shards);
    this.#thread?.setConnections(parts[0]!);
    parts.forEach((part, index) => this.#post?.(index, { type: 'connections', connections: part }));
  }
}

/** The connections the options plan at most (default 10; stages may ramp higher, maxConnections leaves room). */
function planned(options: LoadOptions): number {
  const base = options.connections ?? options.concurrency ?? 10;
  return Math.max(base, options.maxConnections ?? 0, ...(options.stages ?? []).map((stage) => stage.connections ?? 0));
}

/** The kind of run the options ask for, before they are planned (`planLoad` names it for good). */
function optionsKind(options: LoadOptions): string {
  if (options.task !== undefined) return 'task';
  if (options.socketio !== undefined) return 'socketio';
  if (/^wss?:/i.test(String(options.url ?? ''))) return 'websocket';
  if (options.stream?.subscribe !== undefined) return 'subscription';
  return 'http';
}
