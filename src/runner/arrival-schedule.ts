import type { PlannedArrivals } from '../shared/arrivals.js';
import type { Plan } from '../shared/plan.js';
import { BlockRandom } from './arrival-draws.js';
import { missedSlots, planSchedule, slotsInSecond, type RateSchedule } from './schedule.js';

/** What the open loop asks of a schedule: when each of this thread's slots is due, and counts of them. */
export interface SlotSchedule {
  /** Milliseconds after the start at which slot `slot` is due; nondecreasing in the slot. */
  timeOf(slot: number): number;
  /** Slots due in second `second` of the measured run, which began `measureOffsetMs` after the start. */
  slotsInSecond(measureOffsetMs: number, second: number): number;
  /** Slots of the measured run due before `endOffsetMs`, at most `amount`, never taken (`taken` were). */
  missedSlots(measureOffsetMs: number, endOffsetMs: number, amount: number | undefined, taken: number): number;
  /** From `ms` after the start on, this thread's rate is `rate` and holds (`startLoad`'s `setRate`). */
  holdFrom(ms: number, rate: number): void;
}

/** The open-loop schedule of `plan`: evenly spaced (`RateSchedule`), or drawn (`arrivals`); undefined for a closed loop. */
export function planSlotSchedule(plan: Plan): SlotSchedule | undefined {
  const schedule = planSchedule(plan);
  if (schedule === undefined || plan.arrivals === undefined) return schedule;
  return new ArrivalSchedule(plan, plan.arrivals);
}

/** Arrivals drawn per block of this many: a block's draws are computed at once, and kept while it is used. */
export const ARRIVAL_BLOCK = 4096;

/** A stretch of the run whose count of arrivals is fixed: the warm-up, the measured run, what follows it. */
interface Stretch {
  /** Its first arrival's index in the whole run, and the index after its last (Infinity: no end). */
  first: number;
  end: number;
  /** Where it starts and stops, in expected arrivals (the integral of the rate). */
  from: number;
  to: number;
  /**
   * The index after its last arrival in use, and the position all those lie before: `end` and `to`,
   * unless a change of rate cut it there (`holdFrom`); its blocks are still drawn over the whole of it.
   */
  last: number;
  reach: number;
}

/** One block's arrivals: `count` of them from arrival `first`, their positions in `positions`. */
interface Block {
  first: number;
  count: number;
  positions: Float64Array;
}

/**
 * Drawn arrivals: a renewal process on the rate's own clock. Arrival g of the whole run sits at
 * position x_g in expected arrivals (the integral of the rate), and is due when the rate's integral
 * reaches x_g: at a constant rate the gaps are the drawn ones scaled by 1 / rate, and under rate
 * stages they follow the ramp (a non-homogeneous Poisson process for `poisson`).
 *
 * The warm-up, the measured run and what follows it each get exactly as many arrivals as the
 * constant rate gives them, so the measured run sends `rate × duration` requests whatever is drawn.
 * Within a stretch, arrivals come in blocks of ARRIVAL_BLOCK, each over ARRIVAL_BLOCK expected
 * arrivals (the last block of a stretch over what is left of it): a block of n arrivals draws n + 1
 * gaps from its own generator (seed, its first arrival) and scales them to span the block, so its
 * arrivals fall strictly inside it. For `poisson` that is exactly a Poisson process given the count
 * of each block (n sorted uniforms), and any thread finds any arrival without the ones before it.
 *
 * A share (worker thread, segment) with stride s and offset o takes the arrivals o, o + s, ...: the
 * arithmetic that splits the constant rate's slots, so the shares together send the whole run's
 * schedule exactly, for any split.
 */
export class ArrivalSchedule implements SlotSchedule {
  /** The whole run's rate, phase 0: positions to times. */
  readonly #clock: RateSchedule;
  readonly #arrivals: PlannedArrivals;
  readonly #stride: number;
  readonly #offset: number;
  readonly #bounds: number[];
  #stretches: Stretch[] = [];
  #block: Block = { first: -1, count: 0, positions: new Float64Array(ARRIVAL_BLOCK) };

  constructor(plan: Plan, arrivals: PlannedArrivals) {
    this.#arrivals = arrivals;
    this.#stride = arrivals.stride;
    this.#offset = Math.round((plan.ratePhase ?? 0) * arrivals.stride);
    const stages = plan.stages?.map((stage, index) => ({ ...stage, rate: arrivals.wholeStageRates?.[index] }));
    this.#clock = planSchedule({ ...plan, rate: arrivals.wholeRate, stages, ratePhase: 0 })!;
    this.#bounds = [plan.warmupMs, plan.durationMs === undefined ? Infinity : plan.warmupMs + plan.durationMs];
    this.#planStretches();
  }

  /**
   * The whole run's clock holds this thread's `rate` times the shares from `ms` on. The arrivals due
   * before `ms` keep their positions (the stretch under way is cut after them, its blocks drawn as
   * before); the rest of the run is re-planned from there at the new rate: stretches from the cut's
   * position to each bound, counted by the new clock. Every share cuts at the same arrival, since
   * the whole run's schedule decides it, so the shares still send the one schedule.
   */
  holdFrom(ms: number, rate: number): void {
    const at = Math.max(0, ms);
    const cut = this.#clock.integralAt(at);
    const kept = this.#wholeCountBefore(cut);
    this.#clock.holdFrom(at, rate * this.#stride);
    this.#stretches = this.#stretches.filter((stretch) => stretch.first < kept);
    const current = this.#stretches.at(-1);
    if (current !== undefined && current.reach > cut) {
      current.last = Math.min(current.last, kept);
      current.reach = cut;
    }
    // Forget the block drawn last: the hot path in `position` would otherwise read it.
    this.#block.first = -1;
    this.#block.count = 0;
    this.#planStretches(kept, cut, at);
  }

  /** Stretches from arrival `first` at position `from`, for the bounds after `afterMs`. */
  #planStretches(first = 0, from = 0, afterMs = -Infinity): void {
    for (const ms of this.#bounds) {
      if (ms <= afterMs) continue;
      const end = ms === Infinity ? Infinity : Math.max(first, this.#clock.countBefore(ms));
      const to = ms === Infinity ? Infinity : this.#clock.integralAt(ms);
      if (end > first) this.#stretches.push({ first, end, from, to, last: end, reach: to });
      [first, from] = [end, to];
      if (ms === Infinity) break;
    }
    if (first !== Infinity)
      this.#stretches.push({ first, end: Infinity, from, to: Infinity, last: Infinity, reach: Infinity });
  }

  timeOf(slot: number): number {
    return this.#clock.timeOf(this.position(this.#offset + slot * this.#stride));
  }

  /** This share's slots due strictly before `ms` after the start. */
  countBefore(ms: number): number {
    if (ms <= 0) return 0;
    const whole = this.#wholeCountBefore(this.#clock.integralAt(ms));
    return whole > this.#offset ? Math.ceil((whole - this.#offset) / this.#stride) : 0;
  }

  slotsInSecond(measureOffsetMs: number, second: number): number {
    return slotsInSecond(this, measureOffsetMs, second);
  }

  missedSlots(measureOffsetMs: number, endOffsetMs: number, amount: number | undefined, taken: number): number {
    return missedSlots(this, measureOffsetMs, endOffsetMs, amount, taken);
  }

  /** Where the whole run's arrival `arrival` sits, in expected arrivals from the start. */
  position(arrival: number): number {
    const block = this.#block;
    // The hot path: the arrival is in the block drawn last.
    if (arrival >= block.first && arrival < block.first + block.count) return block.positions[arrival - block.first]!;
    let stretch = this.#stretches[0]!;
    for (const candidate of this.#stretches) {
      stretch = candidate;
      if (arrival < candidate.last) break;
    }
    const drawn = this.#blockOf(stretch, Math.floor((arrival - stretch.first) / ARRIVAL_BLOCK));
    return drawn.positions[arrival - drawn.first]!;
  }

  /** The whole run's arrivals at positions before `integral` (less a rounding allowance, as RateSchedule's). */
  #wholeCountBefore(integral: number): number {
    const limit = integral - Math.max(1e-9, integral * 1e-12);
    if (limit <= 0) return 0;
    let stretch = this.#stretches[0]!;
    for (const candidate of this.#stretches) {
      stretch = candidate;
      if (limit <= candidate.reach) break;
    }
    // Before a stretch that follows one with no arrivals (a warm-up too short for one).
    if (limit <= stretch.from) return stretch.first;
    const lastBlock = Math.floor((stretch.last - 1 - stretch.first) / ARRIVAL_BLOCK);
    const block = this.#blockOf(stretch, Math.min(Math.floor((limit - stretch.from) / ARRIVAL_BLOCK), lastBlock));
    // The first arrival of the block at or after the limit.
    let low = 0;
    let high = block.count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (block.positions[middle]! < limit) low = middle + 1;
      else high = middle;
    }
    return block.first + low;
  }

  /** Block `index` of `stretch`: n drawn arrivals strictly inside its span of expected arrivals. */
  #blockOf(stretch: Stretch, index: number): Block {
    const first = stretch.first + index * ARRIVAL_BLOCK;
    const block = this.#block;
    if (block.first === first) return block;
    const count = Math.min(ARRIVAL_BLOCK, stretch.end - first);
    const from = stretch.from + index * ARRIVAL_BLOCK;
    const span = count < ARRIVAL_BLOCK || first + count === stretch.end ? stretch.to - from : ARRIVAL_BLOCK;
    const random = new BlockRandom(this.#arrivals.seed, first);
    const { distribution, shape } = this.#arrivals;
    const poisson = distribution === 'poisson';
    const positions = block.positions;
    // positions[i] holds the sum of the first i + 1 gaps; one more gap closes the span.
    let sum = 0;
    for (let i = 0; i <= count; i++) {
      sum += poisson ? random.exponential() : random.gamma(shape);
      if (i < count) positions[i] = sum;
    }
    const scale = span / sum;
    for (let i = 0; i < count; i++) positions[i] = from + positions[i]! * scale;
    block.first = first;
    // A cut stretch's arrivals after the cut are not its own any more.
    block.count = Math.min(count, stretch.last - first);
    return block;
  }
}
