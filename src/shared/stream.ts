// Streamed responses (`stream`): the option, its plan, and what a run measures of them.
import type { ShardStage } from './stage.js';
import type { SloOptions } from './llm.js';

/**
 * How a streamed body divides into events: Server-Sent Events (`text/event-stream`), one JSON value
 * per line (NDJSON), or each piece of body as the transport hands it over (`chunks`).
 */
export type StreamFormat = 'sse' | 'ndjson' | 'chunks';

/** An event as the `stream` option's functions see it. */
export interface StreamEvent {
  /** SSE: the `data` lines joined with `\n`; NDJSON: the line; chunks: the piece as UTF-8 text. */
  data: string;
  /** SSE: the `event:` type, `message` when none; `''` otherwise. */
  event: string;
  /** SSE: the last `id:` the server sent; `''` otherwise. */
  id: string;
}

/** The `stream` option: read each response's body as a stream of events and time them. */
export interface StreamOptions {
  format: StreamFormat;
  /**
   * The event that ends the stream: a string equal to its data (trimmed; `'[DONE]'` for OpenAI's
   * streams), or a function. The stream ends there and that event is not one of its events; HTTP/1.1
   * reads the body on to its end (closing the connection only if it goes on past 100 ms), HTTP/2
   * cancels the stream. Without it, the body's end.
   */
  until?: string | ((event: StreamEvent) => boolean);
  /** Events whose JSON data carries the server's send time (epoch ms) at `field`: `stream.delivery` times them. */
  timestamp?: { field: string };
  /**
   * Output tokens per event, for the LLM figures (`stream.ttft`, `itl`, `tpot`, `outputTokens`): a
   * dot path into the event's JSON data (`'choices.0.delta.content'`), counted by one rule (a
   * non-empty string is one token, a number that many, an array its length), or a function.
   */
  tokens?: string | ((event: StreamEvent) => number);
  /**
   * With a `tokens` path: counts the tokens in the text there (and in the reasoning text beside it),
   * in place of one per event: your model's tokenizer, `(text) => number`. In-process only.
   */
  tokenizer?: (text: string) => number;
  /**
   * With `tokens`: take the server's own counts when it sends them (OpenAI's `usage`, Ollama's
   * `eval_count`), and ask OpenAI-style requests for them (`stream_options: { include_usage: true }`
   * added to a JSON body with `stream: true` and `messages` or `prompt` that has no `stream_options`).
   * Default true; false counts events only and sends bodies as given.
   */
  usage?: boolean;
  /**
   * SSE subscriptions (`format: 'sse'`): each of the `connections` clients holds one stream open for
   * the whole run, as an EventSource does: it reconnects when the stream ends or breaks, after the
   * server's `retry:` (3 s until one came), sending `Last-Event-ID`; a 204 or a response that is no
   * 200 `text/event-stream` stops it. `stages` ramp the subscribers. See docs/streams.md.
   */
  subscribe?: boolean;
}

/** `stream` validated, as a plan carries it (plain data; the functions stay in `StreamHooks`). */
export interface PlannedStream {
  format: StreamFormat;
  until: string | undefined;
  timestampField: string | undefined;
  /** `tokens` as a path, split at the dots. */
  tokensPath: string[] | undefined;
  /** The functions given, kept in this thread's hooks. */
  untilFunction: boolean;
  tokensFunction: boolean;
  /** `tokenizer` given (kept in this thread's hooks). */
  tokenizerFunction: boolean;
  /** `usage`: read the server's counts (and ask for them). */
  usage: boolean;
  /** Paths of reasoning text beside `tokensPath` (`reasoning_content`, `reasoning`, `thinking`). */
  reasoningPaths: string[][] | undefined;
  /** `subscribe`: long-lived subscriptions in place of a request loop. */
  subscribe: boolean;
  /** The run's `slo`: each ended stream is judged against it for `result.goodput`. */
  slo?: SloOptions;
}

/** The `stream` option's functions (in-process only). */
export interface StreamHooks {
  until?: (event: StreamEvent) => boolean;
  tokens?: (event: StreamEvent) => number;
  tokenizer?: (text: string) => number;
}

/** One second of a thread's streams. */
export interface ShardStreamSecond {
  events: number;
  outputTokens: number;
  /** Streams that ended in this second. */
  streams: number;
  /** First-event times of the streams whose first event came in this second (µs, encoded; `''` for none). */
  firstEvent: string;
  /** The gaps, with `tokens` the TTFTs and ITLs, and with `timestamp` the deliveries, that ended in this second (µs, encoded; `''` for none). */
  gap: string;
  ttft: string;
  itl: string;
  delivery: string;
  /** `slo`: streams that ended in this second having met it. */
  good?: number;
}

/** What one thread measured of its streams, encoded to merge exactly. */
export interface ShardStream {
  format: StreamFormat;
  streams: number;
  ended: number;
  events: number;
  outputTokens: number;
  /** Events and output tokens of the `streams` that ended (the totals also count streams still open at the end). */
  streamEvents: number;
  streamOutputTokens: number;
  /** With `tokens`: reasoning tokens, and the input tokens and streams of the ended streams that reported `usage`. */
  reasoningTokens?: number;
  inputTokens?: number;
  usageStreams?: number;
  histograms: StreamHistograms;
  seconds: ShardStreamSecond[];
  /** `subscribe`: the thread's subscriptions. */
  subscriptions?: ShardSubscriptions;
  /** `slo`: the ended streams that met it. */
  goodput?: ShardGoodput;
}

/** A thread's (or a saved result's) goodput: the streams that met every objective of `slo`. */
export interface ShardGoodput {
  requests: number;
  slo: SloOptions;
}

/** What one thread's SSE subscriptions did (`result.stream.subscriptions`, before merging). */
export interface ShardSubscriptions {
  subscribed: number;
  open: number;
  reconnects: number;
  closes: Record<string, number>;
  /** With connection `stages`: requests sent (`sent`) and events received (`received`) per stage. */
  stages: ShardStage[] | undefined;
}

/** The histograms (µs, compressed base64) behind `result.stream`, to merge results again. */
export interface StreamHistograms {
  firstEvent: string;
  gap: string;
  duration: string;
  delivery?: string;
  ttft?: string;
  itl?: string;
  tpot?: string;
  answerTtft?: string;
}

/** `result.merge.stream`: what `mergeResults` needs to merge `result.stream` again. */
export interface StreamMergeInfo {
  histograms: StreamHistograms;
  /** Events and output tokens of the ended streams (`eventsPerStream` x `streams`, exactly); absent from results saved before. */
  streamEvents?: number;
  streamOutputTokens?: number;
  /** Each timeline second's first-event histogram (µs, encoded), `''` for none. */
  seconds: string[];
  /** `tokens`: each timeline second's TTFT histogram (µs, encoded), `''` for none. */
  ttftSeconds?: string[];
  /** Subscriptions with stages: each stage's delivery histogram (µs, encoded), in order. */
  stages?: string[];
  /** `slo`: the streams that met it, to merge `result.goodput` again. */
  goodput?: ShardGoodput;
}
