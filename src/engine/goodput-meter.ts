import type { SloOptions } from '../shared/llm.js';

/**
 * `slo` on the HTTP engine's streams: each lane's largest inter-token latency, and the streams that
 * met every objective given (`result.goodput`), judged once per stream at its end.
 */
export class GoodputMeter {
  /** Measured streams that met every objective. */
  requests = 0;
  readonly slo: SloOptions;
  readonly #ttft: number;
  readonly #tpot: number;
  readonly #itl: number;
  readonly #e2e: number;
  readonly #maxItl: Float64Array;

  constructor(slo: SloOptions, lanes: number) {
    this.slo = slo;
    this.#ttft = slo.ttft ?? Infinity;
    this.#tpot = slo.tpot ?? Infinity;
    this.#itl = slo.itl ?? Infinity;
    this.#e2e = slo.e2e ?? Infinity;
    this.#maxItl = new Float64Array(lanes);
  }

  /** A new stream on `lane`. */
  reset(lane: number): void {
    this.#maxItl[lane] = 0;
  }

  /** Tokens after the first event came `perTokenMs` apart each (an event of k tokens g ms after the last: g / k). */
  gap(lane: number, perTokenMs: number): void {
    if (perTokenMs > this.#maxItl[lane]!) this.#maxItl[lane] = perTokenMs;
  }

  /**
   * A measured stream ended: `ttftMs` from its request to its first token (-1: no token, never good),
   * `tpotMs` per token after it (-1 for a single token: nothing to miss, as vLLM counts it), `e2eMs`
   * from its request to its end. True when it met them all.
   */
  judge(lane: number, ttftMs: number, tpotMs: number, e2eMs: number): boolean {
    if (ttftMs < 0 || ttftMs > this.#ttft || tpotMs > this.#tpot || e2eMs > this.#e2e) return false;
    if (this.#maxItl[lane]! > this.#itl) return false;
    this.requests++;
    return true;
  }
}
