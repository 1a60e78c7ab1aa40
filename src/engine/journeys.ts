import { performance } from 'node:perf_hooks';
import type { PlannedJourney } from '../shared/journey.js';
import type { ClosedLoop } from '../runner/closed-loop.js';
import type { Lane } from '../transports/transport.js';

/** 1/φ: journey k takes the flow where frac(k / φ) falls, an even spread for any run of journeys. */
const INVERSE_GOLDEN_RATIO = 0.6180339887498949;
const NOT_WALKING = -1;

/** What the journeys need of the engine whose lanes walk them. */
export interface JourneyOwner {
  /** The loop's counts: a lane thinking counts as in flight, so the open loop waits for it. */
  loop: ClosedLoop<Lane>;
  /** Open loop: slots start journeys; a lane's later steps are sent here, due when its think ends. */
  openLoop: boolean;
  send(lane: Lane, intendedAt: number, now: number): void;
  /** The lane is between journeys: send again (closed loop) or free it for the next slot (open loop). */
  next(lane: Lane, now: number): void;
  stop(): void;
  warn(code: string, message: string): void;
}

/**
 * Lanes walking journeys (`think`, `flows`, `feed`): each lane sends one flow's steps in order, the
 * next after the answer to the last and its think time, then starts another journey (closed loop) or
 * is free for the next slot (open loop: a slot of the rate starts a journey, and a later step is due
 * when its think ends, so its latency counts any lateness from then, and no think delays a slot).
 * Journey k of this share is journey `first + k * stride` of the whole run, which picks its flow
 * and its feed row, so the mix and the rows are the same however the run is split.
 */
export class Journeys {
  readonly #journey: PlannedJourney;
  /** Each flow's upper bound in [0, 1), by the flows' weights. */
  readonly #bounds: number[];
  /** Per lane: the request index it sends next, or NOT_WALKING between journeys. */
  readonly #step: Int32Array;
  /** Per lane: the end (exclusive) of its flow's requests. */
  readonly #end: Int32Array;
  /** Per lane: its journey's number in the whole run, flow index and row. */
  readonly #number: Float64Array;
  readonly #flow: Uint16Array;
  readonly #walks: Uint32Array;
  readonly #thinkTimers = new Map<NodeJS.Timeout, Lane>();
  #owner!: JourneyOwner;
  /** Journeys this share has begun. */
  #begun = 0;
  #walking = 0;
  #exhausted = false;

  constructor(journey: PlannedJourney, lanes: number) {
    this.#journey = journey;
    const total = journey.flows.reduce((sum, flow) => sum + flow.weight, 0);
    let sum = 0;
    this.#bounds = journey.flows.map((flow) => (sum += flow.weight) / total);
    this.#step = new Int32Array(lanes).fill(NOT_WALKING);
    this.#end = new Int32Array(lanes);
    this.#number = new Float64Array(lanes);
    this.#flow = new Uint16Array(lanes);
    this.#walks = new Uint32Array(lanes);
  }

  bind(owner: JourneyOwner): void {
    this.#owner = owner;
  }

  /** The flow journey `number` of the whole run walks. */
  flowOf(number: number): number {
    const at = (number * INVERSE_GOLDEN_RATIO) % 1;
    const bounds = this.#bounds;
    for (let flow = 0; flow < bounds.length - 1; flow++) if (at < bounds[flow]!) return flow;
    return bounds.length - 1;
  }

  /** Whether `lane` starts a journey with its next send. */
  beginsWith(lane: Lane): boolean {
    return this.#step[lane.id] === NOT_WALKING;
  }

  /**
   * True when `lane` may not send: it would begin a journey and `feed` (without reuse) has no row
   * left for it. The run ends once the journeys under way have ended.
   */
  refuses(lane: Lane): boolean {
    const feed = this.#journey.feed;
    if (feed === undefined || feed.reuse || this.#step[lane.id] !== NOT_WALKING) return false;
    if (this.#journey.first + this.#begun * this.#journey.stride < feed.rows.length) return false;
    if (!this.#exhausted) {
      this.#exhausted = true;
      this.#owner.warn(
        'FEED_EXHAUSTED',
        `feed: all ${feed.rows.length} rows of ${feed.source} were used once (reuse: false): the run ended then`,
      );
    }
    // After the open loop's pump is done with its slots: it may be the caller, and a stop closes its pacer.
    if (this.#walking === 0) queueMicrotask(() => this.#owner.stop());
    return true;
  }

  /** The request index `lane` sends now, beginning a journey when it is between two. */
  take(lane: Lane): number {
    const id = lane.id;
    if (this.#step[id] === NOT_WALKING) {
      const journey = this.#journey;
      const number = journey.first + this.#begun++ * journey.stride;
      const flow = this.flowOf(number);
      const { first, count } = journey.flows[flow]!;
      this.#number[id] = number;
      this.#flow[id] = flow;
      this.#walks[id] = this.#walks[id]! + 1;
      this.#step[id] = first;
      this.#end[id] = first + count;
      this.#walking++;
    }
    const index = this.#step[id]!;
    this.#step[id] = index + 1;
    return index;
  }

  /** What a hook's `context` says of `lane`'s journey. */
  describe(lane: Lane): { row: unknown; flow: string | undefined; journey: number; iteration: number } {
    const { feed, flows } = this.#journey;
    const number = this.#number[lane.id]!;
    const flow = flows[this.#flow[lane.id]!]!.name;
    return {
      row: feed?.rows[number % feed.rows.length],
      flow: flow === '' ? undefined : flow,
      journey: number,
      iteration: this.#walks[lane.id]! - 1,
    };
  }

  /**
   * `lane`'s request was answered (`ok`) or failed: the journey goes on after the step's think
   * time, or ends (its last step, or a failure: later steps may need what this one set up).
   */
  ended(lane: Lane, now: number, ok: boolean): void {
    const id = lane.id;
    const owner = this.#owner;
    const think = this.#journey.thinkMs[lane.requestIndex];
    const thinkMs = think == null ? 0 : think[0] + Math.random() * (think[1] - think[0]);
    const goesOn = ok && this.#step[id]! < this.#end[id]!;
    if (!goesOn) {
      this.#step[id] = NOT_WALKING;
      this.#walking--;
      if (this.#exhausted && this.#walking === 0) return owner.stop();
      // Open loop: the next journey is the schedule's; the last step's think would only hold the lane.
      if (!ok || owner.openLoop || thinkMs === 0) return owner.next(lane, now);
    } else if (thinkMs === 0) {
      return owner.openLoop ? owner.send(lane, now, now) : owner.next(lane, now);
    }
    owner.loop.inFlight++;
    const timer = setTimeout(() => {
      this.#thinkTimers.delete(timer);
      owner.loop.inFlight--;
      if (owner.loop.stopped) return;
      const at = performance.now();
      // A timer may fire a fraction of a millisecond early: the step is never due after it is sent.
      if (goesOn && owner.openLoop) owner.send(lane, Math.min(now + thinkMs, at), at);
      else owner.next(lane, at);
    }, thinkMs);
    this.#thinkTimers.set(timer, lane);
  }

  /** `lane`'s request failed (the engine backs off and sends again): its journey ends. */
  failed(lane: Lane): void {
    if (this.#step[lane.id] === NOT_WALKING) return;
    this.#step[lane.id] = NOT_WALKING;
    this.#walking--;
    if (this.#exhausted && this.#walking === 0) this.#owner.stop();
  }

  /** The run stopped: lanes thinking send nothing more. */
  halt(): void {
    for (const timer of this.#thinkTimers.keys()) clearTimeout(timer);
    this.#thinkTimers.clear();
  }
}
