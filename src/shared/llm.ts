// LLM serving workloads (`llm`) and goodput (`slo`): the options, their plan and what a run reports.

/** Which API the requests speak: OpenAI-compatible chat or completions, or Ollama's chat or generate. */
export type LlmApi = 'openai-chat' | 'openai-completions' | 'ollama-chat' | 'ollama-generate';

/**
 * A token count: a fixed number, uniform between `min` and `max` (inclusive), or normal around
 * `mean` with `stddev` (rounded, kept within `min` and `max` when given, and at least 1).
 */
export type TokenCount =
  number | { min: number; max: number } | { mean: number; stddev: number; min?: number; max?: number };

/** Synthetic prompts: lengths from a distribution, text made up, the same for the same seed. */
export interface SyntheticPrompts {
  /** Input tokens per prompt (words of about one token each; the server's `usage.prompt_tokens` is exact). */
  inputTokens: TokenCount;
  /** Output tokens per request: its `max_tokens` (with `ignoreEos`, exactly what the server generates). */
  outputTokens?: TokenCount;
  /** Tokens of text every prompt starts with (prefix caching), counted in `inputTokens`. */
  sharedPrefix?: number;
  /** How many distinct prompts (default 1000); prompt i of the run is prompt i mod count. */
  count?: number;
  /** Seed of the lengths and the text (default 1). */
  seed?: number;
}

/** The `llm` option: a serving workload whose request bodies salvo builds. See docs/llm.md. */
export interface LlmOptions {
  /** The API of the endpoint at `url` (a url whose path is `/` gets the API's own path). */
  api: LlmApi;
  /** The `model` field of every request. */
  model: string;
  /**
   * The prompts: a file (ShareGPT JSON or JSONL conversations, or JSONL of `{ prompt }`) read once,
   * or an array of strings. Prompt i of the run is prompt i mod their count, over workers and segments.
   */
  prompts?: string | string[];
  /** Made-up prompts of given lengths, in place of `prompts`. */
  synthetic?: SyntheticPrompts;
  /** Each request's `max_tokens` (Ollama: `options.num_predict`); synthetic prompts' `outputTokens` win. */
  maxTokens?: number;
  /** `ignore_eos: true` (vLLM, SGLang): the server generates `max_tokens` tokens whatever the model says. */
  ignoreEos?: boolean;
  /** User turns per session (default 1): each turn's request carries the conversation so far, the streamed answers included. */
  turns?: number;
}

/** `slo`: per-request objectives, ms; a request that met all of those given counts in `result.goodput`. */
export interface SloOptions {
  /** Time to first token. */
  ttft?: number;
  /** Time per output token after the first: (e2e - ttft) / (output tokens - 1). */
  tpot?: number;
  /** Every inter-token latency of the request (an event of k tokens g ms after the last gives g / k). */
  itl?: number;
  /** End to end: from the request (its intended send time) to the stream's end. */
  e2e?: number;
}

/** One prompt of a plan: a conversation's user turns, and its own output length when the dataset has one. */
export interface PlannedPrompt {
  turns: string[];
  outputTokens?: number;
}

/** `llm` validated, as a plan carries it (plain data, sent to worker threads). */
export interface PlannedLlm {
  api: LlmApi;
  model: string;
  /** Dataset prompts (empty with `synthetic`). */
  prompts: PlannedPrompt[];
  synthetic:
    | { inputTokens: TokenCount; outputTokens?: TokenCount; sharedPrefix: number; count: number; seed: number }
    | undefined;
  maxTokens: number | undefined;
  ignoreEos: boolean;
  turns: number;
  /** Ask for the server's token counts (`stream_options.include_usage`). */
  usage: boolean;
  /**
   * This share's place in the run's order of sessions: its k-th session is the run's
   * `offset + k * stride`-th (as its k-th rate slot is), so prompts are dealt exactly over shares.
   */
  offset: number;
  stride: number;
}

/** `result.goodput`: the requests that met every objective of `slo`. */
export interface GoodputStats {
  /** Ended streams that met every objective given. */
  requests: number;
  /** Of them, per second of the measured run. */
  perSecond: number;
  /** Their share of the ended streams (0 with none). */
  rate: number;
  /** The objectives, as given. */
  slo: SloOptions;
}
