import type { PlannedArrivals } from '../shared/arrivals.js';
import type { Plan } from '../shared/plan.js';
import { BlockRandom } from './arrival-draws.js';
import { planSchedule, type RateSchedule } from './schedule.js';

/** What the open loop asks of a schedule: when each of this thread's slots is due, and counts of them. */
export interface SlotSchedule {
  /** Milliseconds after the start at which slot `slot` is due; nondecreasing in the slot. */
  timeOf(slot: number): number;
  /** Slots due in second `second` of the measured run, which began `measureOffsetMs` after the start. */
  slotsInSecond(measureOffsetMs: number, second: number): number;
  /** Slots of the measured run due before `endOffsetMs`, at most `amount`, never taken (`taken` were). */
  missedSlots(measureOffsetMs: number, endOffsetMs: number, amount: number | undefined, taken: number): number;
}

/** The open-loop schedule of `plan`: evenly spaced (`RateSchedule`), or drawn (`arrivals`); undefined for a closed loop. */
export function planSlotSchedule(plan: Plan): SlotSchedule | undefined {
  const schedule = planSchedule(plan);
  if (schedule === undefined || plan.arrivals === undefined) return schedule;
  return new ArrivalSchedule(plan, plan.arrivals);
}

/**
 * Arrivals drawn per block of this many: each block's gaps are normalised to span it exactly, so
 * the count of arrivals stays on the rate (1 in 4,096 is at a fixed place: immaterial to the gaps).
 */
export const ARRIVAL_BLOCK = 4096;

/**
 * Drawn arrivals: a renewal process on the rate's own clock. Arrival g of the whole run sits at
 * position x_g in expected arrivals (the integral of the rate), and is due when the rate's integral
 * reaches x_g: at a constant rate the gaps are the drawn ones scaled by 1 / rate, and under rate
 * stages they follow the ramp (a non-homogeneous Poisson process for `poisson`).
 *
 * Positions come in blocks of ARRIVAL_BLOCK: block b's gaps are drawn from its own generator
 * (seed, b) and scaled to sum to ARRIVAL_BLOCK, so block b starts at b × ARRIVAL_BLOCK whatever was
 * drawn before it, and any thread finds any arrival without the whole sequence. The block holding
 * the run's end is scaled to end there instead: a run of a given duration sends exactly as many
 * requests as the constant rate does (arrivals past the end are spaced by one, never sent).
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
  /** The whole run's expected arrivals by its end (Infinity with no end), and the count due before it. */
  readonly #endPosition: number;
  readonly #endCount: number;
  /** The block holding the end (scaled to end there), -1 when nothing is due before it, Infinity with no end. */
  readonly #lastBlock: number;
  #cachedBlock = -1;
  #positions: Float64Array;

  constructor(plan: Plan, arrivals: PlannedArrivals) {
    this.#arrivals = arrivals;
    this.#stride = arrivals.stride;
    this.#offset = Math.round((plan.ratePhase ?? 0) * arrivals.stride);
    const stages = plan.stages?.map((stage, index) => ({ ...stage, rate: arrivals.wholeStageRates?.[index] }));
    this.#clock = planSchedule({ ...plan, rate: arrivals.wholeRate, stages, ratePhase: 0 })!;
    const endMs = plan.durationMs === undefined ? Infinity : plan.warmupMs + plan.durationMs;
    this.#endPosition = endMs === Infinity ? Infinity : this.#clock.integralAt(endMs);
    this.#endCount = endMs === Infinity ? Infinity : this.#clock.countBefore(endMs);
    this.#lastBlock = Number.isFinite(this.#endCount) ? Math.floor((this.#endCount - 1) / ARRIVAL_BLOCK) : Infinity;
    this.#positions = new Float64Array(ARRIVAL_BLOCK);
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
    const from = measureOffsetMs + second * 1000;
    return this.countBefore(from + 1000) - this.countBefore(from);
  }

  missedSlots(measureOffsetMs: number, endOffsetMs: number, amount: number | undefined, taken: number): number {
    const first = this.countBefore(measureOffsetMs);
    let due = this.countBefore(endOffsetMs);
    if (amount !== undefined) due = Math.min(due, first + amount);
    return Math.max(0, due - Math.max(taken, first));
  }

  /** Where the whole run's arrival `arrival` sits, in expected arrivals from the start. */
  position(arrival: number): number {
    if (arrival >= this.#endCount) return this.#endPosition + (arrival - this.#endCount + 1);
    const block = Math.floor(arrival / ARRIVAL_BLOCK);
    return this.#block(block)[arrival - block * ARRIVAL_BLOCK]!;
  }

  /** The whole run's arrivals at positions before `integral` (less a rounding allowance, as RateSchedule's). */
  #wholeCountBefore(integral: number): number {
    const limit = integral - Math.max(1e-9, integral * 1e-12);
    if (limit <= 0) return 0;
    if (limit > this.#endPosition) return this.#endCount + Math.max(0, Math.ceil(limit - this.#endPosition) - 1);
    if (this.#endCount === 0) return 0;
    const block = Math.min(Math.floor(limit / ARRIVAL_BLOCK), this.#lastBlock);
    const positions = this.#block(block);
    const size = Math.min(ARRIVAL_BLOCK, this.#endCount - block * ARRIVAL_BLOCK);
    // The first position of the block at or after the limit.
    let low = 0;
    let high = size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (positions[middle]! < limit) low = middle + 1;
      else high = middle;
    }
    return block * ARRIVAL_BLOCK + low;
  }

  /** Block `block`'s positions: drawn gaps scaled to fill it (or up to the end, for the block holding it). */
  #block(block: number): Float64Array {
    if (block === this.#cachedBlock) return this.#positions;
    const start = block * ARRIVAL_BLOCK;
    const size = Math.min(ARRIVAL_BLOCK, this.#endCount - start);
    const span = block === this.#lastBlock ? this.#endPosition - start : ARRIVAL_BLOCK;
    const random = new BlockRandom(this.#arrivals.seed, block);
    const { distribution, shape } = this.#arrivals;
    const positions = this.#positions;
    // positions[i] holds the sum of the gaps before arrival i; the block's last gap closes the span.
    let sum = 0;
    for (let i = 0; i < size; i++) {
      positions[i] = sum;
      sum += distribution === 'poisson' ? random.exponential() : random.gamma(shape);
    }
    const scale = span / sum;
    for (let i = 0; i < size; i++) positions[i] = start + positions[i]! * scale;
    this.#cachedBlock = block;
    return positions;
  }
}
