/** A stretch of time over which the target rate moves linearly from `fromRate` to `toRate` (req/s). */
interface Segment {
  startMs: number;
  durationMs: number;
  fromRate: number;
  toRate: number;
  /** Slots due before this segment starts (the integral of the rate so far). */
  startCount: number;
}

/**
 * When each open-loop request is due. Slot i is due at the moment the integral of the target rate
 * reaches i, so a constant rate gives start + i / rate and a ramp spreads slots smoothly, with no
 * bursts at second boundaries. Memory is O(stages): intended times follow from the index.
 */
export class RateSchedule {
  readonly #segments: Segment[] = [];
  readonly #phase: number;

  /**
   * @param ramps the stages in order; the rate before the first ramp is `initialRate`, and the last
   *   rate holds after the last stage.
   * @param phase offset in slots (0 <= phase < 1): slot i is due where the integral reaches i + phase.
   *   Worker shard k of n uses k / n, so the shards' slots interleave into the whole run's schedule.
   */
  constructor(initialRate: number, ramps: ReadonlyArray<{ durationMs: number; rate: number }>, phase = 0) {
    this.#phase = phase;
    let startMs = 0;
    let startCount = 0;
    let rate = initialRate;
    for (const ramp of ramps) {
      const segment = { startMs, durationMs: ramp.durationMs, fromRate: rate, toRate: ramp.rate, startCount };
      this.#segments.push(segment);
      startCount += ((rate + ramp.rate) / 2) * (ramp.durationMs / 1000);
      startMs += ramp.durationMs;
      rate = ramp.rate;
    }
    this.#segments.push({ startMs, durationMs: Infinity, fromRate: rate, toRate: rate, startCount });
  }

  #segmentAtCount(slot: number): Segment {
    let found = this.#segments[0]!;
    for (const segment of this.#segments) {
      if (segment.startCount > slot) break;
      found = segment;
    }
    return found;
  }

  #segmentAtTime(ms: number): Segment {
    let found = this.#segments[0]!;
    for (const segment of this.#segments) {
      if (segment.startMs > ms) break;
      found = segment;
    }
    return found;
  }

  /** Milliseconds after the start at which slot `slot` is due; Infinity if the rate never gets there. */
  timeOf(slot: number): number {
    slot += this.#phase;
    const segment = this.#segmentAtCount(slot);
    const n = slot - segment.startCount;
    if (n <= 0) return segment.startMs;
    const a = segment.fromRate / 1000;
    if (segment.durationMs === Infinity || segment.fromRate === segment.toRate) {
      return a > 0 ? segment.startMs + n / a : Infinity;
    }
    // count(x) = a x + slope x^2 / 2 solved for x; this form stays exact when a is 0.
    const slope = (segment.toRate - segment.fromRate) / 1000 / segment.durationMs;
    const discriminant = a * a + 2 * slope * n;
    if (discriminant < 0) return Infinity;
    return segment.startMs + (2 * n) / (a + Math.sqrt(discriminant));
  }

  /** Slots due strictly before `ms` after the start. */
  countBefore(ms: number): number {
    if (ms <= 0) return 0;
    const segment = this.#segmentAtTime(ms);
    const x = Math.min(ms - segment.startMs, segment.durationMs);
    const slope = segment.durationMs === Infinity ? 0 : (segment.toRate - segment.fromRate) / segment.durationMs;
    const count = segment.startCount + ((segment.fromRate + (slope * x) / 2) * x) / 1000;
    return Math.max(0, Math.ceil(count - this.#phase - 1e-9));
  }

  /** The target rate at `ms` after the start, req/s. */
  rateAt(ms: number): number {
    const segment = this.#segmentAtTime(ms);
    if (segment.durationMs === Infinity) return segment.toRate;
    return segment.fromRate + ((segment.toRate - segment.fromRate) * (ms - segment.startMs)) / segment.durationMs;
  }
}
