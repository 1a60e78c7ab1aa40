// What a `stream` run's result adds: event timings, tokens, subscriptions, and each second's part.
import type { LatencyStats } from './latency-result.js';
import type { StreamFormat } from './stream.js';
import type { WebSocketStageStats } from './websocket-result.js';

/**
 * `result.stream`: responses read as event streams. Times in ms; `firstEvent`, `ttft` count from the
 * request's intended send time, as `latency` does.
 */
export interface StreamStats {
  format: StreamFormat;
  /** Streamed responses that ended (their body's end, or `until`). */
  streams: number;
  /** Of them, ended by `until`. */
  ended: number;
  /** Events received, those of streams still open at the run's end included. */
  events: number;
  /** Events per second of the measured run. */
  perSecond: number;
  /** Mean events per ended stream: the events of the `streams`, over them (streams still open at the end count in neither). */
  eventsPerStream: number;
  /** Time to first event: from the request to its response's first complete event. */
  firstEvent: LatencyStats;
  /** Every gap between consecutive events of a response. */
  gap: LatencyStats;
  /** From a stream's first event to its end. */
  duration: LatencyStats;
  /** `timestamp`: each event's arrival minus the send time it carries. */
  delivery?: LatencyStats;
  /**
   * `tokens`: output tokens received (reasoning ones included, as OpenAI's `completion_tokens`), those
   * of streams still open at the run's end included; an ended stream whose server reported `usage`
   * counts the server's number.
   */
  outputTokens?: number;
  /** `tokens`: output tokens per second of the measured run (vLLM's output token throughput). */
  outputTokensPerSecond?: number;
  /** `tokens`: mean output tokens per ended stream, of the ended streams only (GenAI-Perf's output sequence length). */
  outputTokensPerStream?: number;
  /** `tokens`: time to first token, from the request to the first event with a token, reasoning or answer. */
  ttft?: LatencyStats;
  /** `tokens`: time to the first answer token (past any reasoning), from the request; equal to `ttft` for a stream without reasoning. */
  answerTtft?: LatencyStats;
  /**
   * `tokens`: inter-token latency: an event carrying k tokens g ms after the last event with tokens
   * gives k values of g / k (vLLM's ITL); the first event's tokens give TTFT only.
   */
  itl?: LatencyStats;
  /** `tokens`: reasoning tokens (`reasoning_content`, `reasoning`, `thinking` beside the answer's path; the server's `reasoning_tokens` when it reports them). */
  reasoningTokens?: number;
  /** `tokens`: input (prompt) tokens of the ended streams whose server reported `usage`. */
  inputTokens?: number;
  /** `tokens`: mean input tokens per stream that reported `usage`. */
  inputTokensPerStream?: number;
  /** `tokens`: ended streams whose token counts came from the server's `usage`. */
  usageStreams?: number;
  /** `tokens`: time per output token after the first, per stream: (end - first token) / (tokens - 1). */
  tpot?: LatencyStats;
  /** `subscribe`: the clients' long-lived subscriptions. */
  subscriptions?: SubscriptionStats;
}

/**
 * `result.stream.subscriptions`: SSE subscriptions held for the run (`stream.subscribe`). The events,
 * their rate and their delivery times are `result.stream`'s `events`, `perSecond` and `delivery`.
 */
export interface SubscriptionStats {
  /** Subscriptions the server accepted (a 200 `text/event-stream` head), reconnections included. */
  subscribed: number;
  /** Subscriptions open when the run ended. */
  open: number;
  /** Subscription requests sent again after a close the client did not ask for. */
  reconnects: number;
  /**
   * Subscriptions that ended, by cause, salvo's own closes (ramp-downs, the run's end) aside:
   * `ended` (the server ended the response), `lost` (the connection broke mid-stream), `failed` (no
   * response: refused, reset, `TIMEOUT`), which reconnect after the server's `retry:`; and
   * `noContent` (a 204) and `rejected` (another status, or no `text/event-stream`), which stop the
   * client, as they stop an EventSource.
   */
  closes: Record<string, number>;
  /**
   * Per connection stage (`stages`), as `websocket.stages`: `sent` counts subscription requests,
   * `received` events, `perSecond` events per second, `p50` and `p99` their delivery times.
   */
  stages?: WebSocketStageStats[];
}

/** A timeline second's streams (`timeline[i].stream`). */
export interface StreamSecond {
  events: number;
  outputTokens: number;
  /** Time to first event of the streams whose first event came in this second, ms; NaN (`null` in JSON) in a second with none. */
  firstEventP50: number;
  firstEventP99: number;
  /** `tokens`: time to first token of the streams whose first token came in this second, ms; NaN as `firstEventP50`. */
  ttftP50?: number;
  ttftP99?: number;
  /** `slo`: the streams that ended in this second having met every objective (they add up to `goodput.requests`). */
  good?: number;
}
