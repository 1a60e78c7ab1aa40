import type { Plan } from '../shared/plan.js';

/**
 * The open-loop schedule of `plan`, or undefined for a closed loop. The warm-up runs at the starting
 * rate (`rate`, 0 without it); rate `stages` begin when measuring does.
 */
export function planSchedule(plan: Plan): RateSchedule | undefined {
  if (plan.loop === 'closed') return undefined;
  const initialRate = plan.rate ?? 0;
  const ramps =
    plan.ramps === 'rate' ? plan.stages!.map((stage) => ({ durationMs: stage.durationMs, rate: stage.rate! })) : [];
  // Without stages the warm-up is the rate's own first stretch: a segment of its own would send the
  // schedule's code down a path it never took as measuring starts, unoptimised just then.
  const warmup = plan.warmupMs > 0 && ramps.length > 0 ? [{ durationMs: plan.warmupMs, rate: initialRate }] : [];
  return new RateSchedule(initialRate, [...warmup, ...ramps], plan.ratePhase);
}

/** A stretch of time over which the target rate moves linearly from `fromRate` to `toRate` (req/s). */
interface RateSegment {
  startMs: number;
  /** Infinity for the last segment, which holds its rate for ever. */
  durationMs: number;
  fromRate: number;
  toRate: number;
  /** Slots due before this segment starts: the integral of the rate up to `startMs`. */
  startCount: number;
}

/**
 * When each open-loop request is due, for one thread. The target rate is a piecewise-linear function
 * of time (k6's ramping arrival rate); slot i is due at the first moment the integral of the rate
 * exceeds i + phase. A constant rate therefore gives start + i / rate, and a ramp spreads its slots
 * smoothly, with no bursts at second boundaries. Memory is O(stages): a slot's time follows from its
 * index, so nothing is queued per request.
 */
export class RateSchedule {
  readonly #segments: RateSegment[] = [];
  readonly #phase: number;
  /** Where the last `timeOf` found its slot: slots are asked for in order, so the search resumes here. */
  #hint = 0;

  /**
   * @param initialRate the rate at the start, req/s; the first ramp starts from it.
   * @param ramps the stages in order, each reached linearly at its end; the last rate holds after them.
   * @param phase offset in slots (0 <= phase < 1): slot i is due where the integral exceeds i + phase.
   *   Worker shard k of n uses k / n, so the shards' slots interleave into the whole run's schedule.
   */
  constructor(initialRate: number, ramps: ReadonlyArray<{ durationMs: number; rate: number }>, phase = 0) {
    this.#phase = phase;
    let startMs = 0;
    let startCount = 0;
    let rate = initialRate;
    for (const ramp of ramps) {
      this.#segments.push({ startMs, durationMs: ramp.durationMs, fromRate: rate, toRate: ramp.rate, startCount });
      startCount += ((rate + ramp.rate) / 2) * (ramp.durationMs / 1000);
      startMs += ramp.durationMs;
      rate = ramp.rate;
    }
    this.#segments.push({ startMs, durationMs: Infinity, fromRate: rate, toRate: rate, startCount });
  }

  /**
   * Milliseconds after the start at which slot `slot` is due; Infinity if the rate never gets there.
   * The inverse of `countBefore`: `countBefore(timeOf(i))` is i, and any later time counts slot i too.
   */
  timeOf(slot: number): number {
    const target = slot + this.#phase;
    const segments = this.#segments;
    // The last segment starting at or below the target: on a tie the later one, since a flat stretch
    // at rate 0 leaves the integral equal to the target without exceeding it.
    let index = segments[this.#hint]!.startCount <= target ? this.#hint : 0;
    while (index + 1 < segments.length && segments[index + 1]!.startCount <= target) index++;
    this.#hint = index;
    const segment = segments[index]!;
    const n = target - segment.startCount;
    const fromPerMs = segment.fromRate / 1000;
    if (segment.durationMs === Infinity || segment.fromRate === segment.toRate) {
      return fromPerMs > 0 ? segment.startMs + n / fromPerMs : Infinity;
    }
    // Solve n = a x + s x^2 / 2 for the elapsed x; this form stays exact when a is 0.
    const slopePerMs2 = (segment.toRate - segment.fromRate) / 1000 / segment.durationMs;
    const discriminant = Math.max(0, fromPerMs * fromPerMs + 2 * slopePerMs2 * n);
    const denominator = fromPerMs + Math.sqrt(discriminant);
    const elapsed = denominator > 0 ? (2 * n) / denominator : 0;
    return segment.startMs + Math.min(elapsed, segment.durationMs);
  }

  /** Slots due strictly before `ms` after the start. */
  countBefore(ms: number): number {
    if (ms <= 0) return 0;
    const integral = this.integralAt(ms);
    // Slot i counts when i + phase < integral; the epsilon absorbs rounding at exact boundaries.
    const epsilon = Math.max(1e-9, integral * 1e-12);
    return Math.max(0, Math.ceil(integral - this.#phase - epsilon));
  }

  /** The integral of the rate from the start to `ms` after it: the slots due by then, fractions kept. */
  integralAt(ms: number): number {
    if (ms <= 0) return 0;
    const segment = this.#segmentAtTime(ms);
    const elapsed = Math.min(ms - segment.startMs, segment.durationMs);
    const slope = segment.durationMs === Infinity ? 0 : (segment.toRate - segment.fromRate) / segment.durationMs;
    return segment.startCount + ((segment.fromRate + (slope * elapsed) / 2) * elapsed) / 1000;
  }

  /** Slots due in second `second` of the measured run, which began `measureOffsetMs` after the start (the timeline's target). */
  slotsInSecond(measureOffsetMs: number, second: number): number {
    return slotsInSecond(this, measureOffsetMs, second);
  }

  /**
   * Slots of the measured run (from `measureOffsetMs`) due before `endOffsetMs`, at most `amount` of
   * them, that were never taken: `taken` is the slots sent since the start, warm-up included.
   */
  missedSlots(measureOffsetMs: number, endOffsetMs: number, amount: number | undefined, taken: number): number {
    return missedSlots(this, measureOffsetMs, endOffsetMs, amount, taken);
  }

  /** The target rate at `ms` after the start, req/s. */
  rateAt(ms: number): number {
    const segment = this.#segmentAtTime(ms);
    if (segment.durationMs === Infinity) return segment.toRate;
    return segment.fromRate + ((segment.toRate - segment.fromRate) * (ms - segment.startMs)) / segment.durationMs;
  }

  /**
   * From `ms` after the start on, the rate is `rate` and holds (the run's handle, `setRate`): the
   * stages after it are dropped. The integral is continuous there, so no slot is added or lost: the
   * next one falls due at the new spacing, with no catch-up burst, and slots due before `ms` keep their times.
   */
  holdFrom(ms: number, rate: number): void {
    const at = Math.max(0, ms);
    const startCount = this.integralAt(at);
    const rateThen = this.rateAt(at);
    const segments = this.#segments;
    while (segments.length > 1 && segments[segments.length - 1]!.startMs >= at) segments.pop();
    const last = segments[segments.length - 1]!;
    const held = { startMs: at, durationMs: Infinity, fromRate: rate, toRate: rate, startCount };
    if (last.startMs >= at) segments[0] = held;
    else {
      last.durationMs = at - last.startMs;
      last.toRate = rateThen;
      segments.push(held);
    }
    this.#hint = 0;
  }

  #segmentAtTime(ms: number): RateSegment {
    let found = this.#segments[0]!;
    for (const segment of this.#segments) {
      if (segment.startMs > ms) break;
      found = segment;
    }
    return found;
  }
}

/** A schedule's slots due in second `second` of the measured run, from its count of slots due before an instant. */
export function slotsInSecond(
  schedule: { countBefore(ms: number): number },
  measureOffsetMs: number,
  second: number,
): number {
  const from = measureOffsetMs + second * 1000;
  return schedule.countBefore(from + 1000) - schedule.countBefore(from);
}

/** A schedule's slots of the measured run due before `endOffsetMs`, at most `amount`, never taken (`taken` were). */
export function missedSlots(
  schedule: { countBefore(ms: number): number },
  measureOffsetMs: number,
  endOffsetMs: number,
  amount: number | undefined,
  taken: number,
): number {
  const first = schedule.countBefore(measureOffsetMs);
  let due = schedule.countBefore(endOffsetMs);
  if (amount !== undefined) due = Math.min(due, first + amount);
  return Math.max(0, due - Math.max(taken, first));
}
