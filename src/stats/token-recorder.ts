import { createHistogram, encodeHistogram, latencyUs } from './histogram.js';
import { PendingLatencies } from './pending-latencies.js';

/** What one thread measured of its streams' tokens beyond the output count (`result.stream`, with `tokens`). */
export interface ShardTokenFigures {
  reasoningTokens: number;
  inputTokens: number;
  usageStreams: number;
  /** Time to the first answer (not reasoning) token, µs, encoded. */
  answerTtft: string;
}

/**
 * One thread's reasoning and input tokens and time to the first answer token: counted per event and
 * per stream, nothing allocated per event; the histogram is built once, at the end.
 */
export class TokenRecorder {
  reasoningTokens = 0;
  inputTokens = 0;
  /** Streams that ended with the server's own counts (`usage`). */
  usageStreams = 0;
  readonly #answerTtft = new PendingLatencies();

  /** A stream's first answer token came `ms` after its request. */
  recordAnswer(ms: number): void {
    this.#answerTtft.record(latencyUs(ms <= 0 ? 0 : ms));
  }

  /** An ended stream's counts from the server's `usage`: `input` prompt tokens (-1: not given), and its reasoning tokens corrected by `reasoningDelta`. */
  recordUsage(input: number, reasoningDelta: number): void {
    this.usageStreams++;
    if (input > 0) this.inputTokens += input;
    this.reasoningTokens += reasoningDelta;
  }

  finish(): ShardTokenFigures {
    const histogram = createHistogram();
    this.#answerTtft.flushInto(histogram);
    const answerTtft = encodeHistogram(histogram);
    histogram.destroy();
    return {
      reasoningTokens: this.reasoningTokens,
      inputTokens: this.inputTokens,
      usageStreams: this.usageStreams,
      answerTtft,
    };
  }
}
