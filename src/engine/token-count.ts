import type { PlannedStream } from '../shared/stream.js';

/** Where reasoning text sits beside the answer's: `choices.0.delta.reasoning_content` (vLLM, DeepSeek), `reasoning` (OpenRouter, newer vLLM), `thinking` (Ollama). */
const REASONING_KEYS = ['reasoning_content', 'reasoning', 'thinking'];

/** The reasoning paths beside a `tokens` path: its last key replaced by each of `REASONING_KEYS`. */
export function reasoningPaths(tokensPath: readonly string[]): string[][] {
  return REASONING_KEYS.map((key) => [...tokensPath.slice(0, -1), key]);
}

/** What one event carries, filled in place (one object per meter). */
export interface EventTokens {
  /** Answer tokens at the `tokens` path (or the `tokens` function's count). */
  answer: number;
  /** Reasoning tokens at the reasoning paths. */
  reasoning: number;
  /** The server's own counts when the event carries them (`usage`), else -1. */
  usageOutput: number;
  usageInput: number;
  usageReasoning: number;
}

function valueAt(json: unknown, path: readonly string[]): unknown {
  let at = json;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/**
 * Tokens in a value at a token path: text is one token, or what `tokenizer` counts in it; a number
 * that many; an array its length; anything else none.
 */
export function tokensIn(at: unknown, tokenizer: ((text: string) => number) | undefined): number {
  if (typeof at === 'string') {
    if (at === '') return 0;
    if (tokenizer === undefined) return 1;
    const count = tokenizer(at);
    return Number.isFinite(count) && count > 0 ? count : 0;
  }
  if (typeof at === 'number') return Number.isFinite(at) && at > 0 ? at : 0;
  return Array.isArray(at) ? at.length : 0;
}

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : -1;

/**
 * The server's counts in an event: OpenAI's `usage` (`completion_tokens`, `prompt_tokens`,
 * `completion_tokens_details.reasoning_tokens`), sent in the last chunk when asked with
 * `stream_options.include_usage`; Ollama's last line (`eval_count`, `prompt_eval_count`).
 */
export function readUsage(json: unknown, into: EventTokens): void {
  into.usageOutput = into.usageInput = into.usageReasoning = -1;
  if (json === null || typeof json !== 'object') return;
  const event = json as Record<string, unknown>;
  const usage = event.usage;
  if (usage !== null && typeof usage === 'object') {
    const fields = usage as Record<string, unknown>;
    into.usageOutput = count(fields.completion_tokens);
    into.usageInput = count(fields.prompt_tokens);
    const details = fields.completion_tokens_details;
    if (details !== null && typeof details === 'object')
      into.usageReasoning = count((details as Record<string, unknown>).reasoning_tokens);
    return;
  }
  if (event.done === true) {
    into.usageOutput = count(event.eval_count);
    into.usageInput = count(event.prompt_eval_count);
  }
}

/** Counts an event's tokens into `into`: answer and reasoning from its JSON (`planned.tokensPath`), and the server's usage. */
export function countTokens(
  json: unknown,
  planned: PlannedStream,
  tokenizer: ((text: string) => number) | undefined,
  into: EventTokens,
): void {
  into.answer = planned.tokensPath === undefined ? 0 : tokensIn(valueAt(json, planned.tokensPath), tokenizer);
  let reasoning = 0;
  if (planned.reasoningPaths !== undefined)
    for (const path of planned.reasoningPaths) reasoning += tokensIn(valueAt(json, path), tokenizer);
  into.reasoning = reasoning;
  if (planned.usage) readUsage(json, into);
  else into.usageOutput = into.usageInput = into.usageReasoning = -1;
}
