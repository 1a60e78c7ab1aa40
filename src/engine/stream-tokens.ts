import type { EventTokens } from './token-count.js';
import type { TokenRecorder } from '../stats/token-recorder.js';

/**
 * Each lane's stream's tokens beyond the output count the meter keeps: reasoning tokens, whether an
 * answer token came yet, and the server's own counts (`usage`) when an event carried them.
 */
export class StreamTokens {
  readonly #reasoning: Float64Array;
  readonly #answered: Uint8Array;
  readonly #usageOutput: Float64Array;
  readonly #usageInput: Float64Array;
  readonly #usageReasoning: Float64Array;

  constructor(lanes: number) {
    this.#reasoning = new Float64Array(lanes);
    this.#answered = new Uint8Array(lanes);
    this.#usageOutput = new Float64Array(lanes);
    this.#usageInput = new Float64Array(lanes);
    this.#usageReasoning = new Float64Array(lanes);
    for (let lane = 0; lane < lanes; lane++) this.reset(lane);
  }

  /** A new stream on `lane`. */
  reset(lane: number): void {
    this.#reasoning[lane] = 0;
    this.#answered[lane] = 0;
    this.#usageOutput[lane] = this.#usageInput[lane] = this.#usageReasoning[lane] = -1;
  }

  /**
   * An event that carries tokens and the server's running count (vLLM's `continuous_usage_stats`):
   * its tokens are the count's growth since the last one, exact where a path counts one per event.
   */
  fromRunningCount(lane: number, tokens: EventTokens): void {
    if (tokens.usageOutput < 0 || tokens.answer > 0 === tokens.reasoning > 0) return;
    const grown = tokens.usageOutput - Math.max(0, this.#usageOutput[lane]!);
    if (grown <= 0) return;
    if (tokens.answer > 0) tokens.answer = grown;
    else tokens.reasoning = grown;
  }

  /** An event's tokens on `lane`, `sinceRequestMs` after its request; `recorder` when it counts. */
  event(lane: number, tokens: EventTokens, sinceRequestMs: number, recorder: TokenRecorder | undefined): void {
    if (tokens.answer > 0 && this.#answered[lane] === 0) {
      this.#answered[lane] = 1;
      recorder?.recordAnswer(sinceRequestMs);
    }
    if (tokens.reasoning > 0) {
      this.#reasoning[lane] = this.#reasoning[lane]! + tokens.reasoning;
      if (recorder !== undefined) recorder.reasoningTokens += tokens.reasoning;
    }
    if (tokens.usageOutput >= 0) {
      this.#usageOutput[lane] = tokens.usageOutput;
      this.#usageInput[lane] = tokens.usageInput;
      this.#usageReasoning[lane] = tokens.usageReasoning;
    }
  }

  /**
   * `lane`'s stream ended having counted `counted` output tokens: the count it stands for (the
   * server's, when it sent one); `recorder` takes its input tokens and the reasoning correction.
   */
  end(lane: number, counted: number, recorder: TokenRecorder | undefined): number {
    const output = this.#usageOutput[lane]!;
    if (output < 0) return counted;
    const reasoning = this.#usageReasoning[lane]!;
    recorder?.recordUsage(this.#usageInput[lane]!, reasoning < 0 ? 0 : reasoning - this.#reasoning[lane]!);
    return output;
  }
}
