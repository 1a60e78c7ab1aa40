import type { ResolvedRequest } from '../shared/exchange.js';
import type { LlmApi, PlannedLlm } from '../shared/llm.js';
import { syntheticPrompt } from './llm-synthetic.js';

interface Message {
  role: 'user' | 'assistant';
  content: string;
}

/** A lane's session: its conversation so far and the user turns still to send. */
interface Session {
  turns: string[];
  next: number;
  messages: Message[];
  outputTokens: number | undefined;
  /** A request of it is out and its answer has not come: if the lane sends again first, the answer failed. */
  awaiting: boolean;
}

/** Where each API puts the streamed answer's text, as a path into an event's JSON. */
export const ANSWER_PATHS: Readonly<Record<LlmApi, string>> = {
  'openai-chat': 'choices.0.delta.content',
  'openai-completions': 'choices.0.text',
  'ollama-chat': 'message.content',
  'ollama-generate': 'response',
};

const chat = (api: LlmApi): boolean => api === 'openai-chat' || api === 'ollama-chat';

/** The answer's text in a streamed body: SSE `data:` lines or NDJSON lines, the text at the API's answer path of each. */
export function answerText(api: LlmApi, body: Buffer): string {
  const path = ANSWER_PATHS[api].split('.');
  const sse = api.startsWith('openai');
  let text = '';
  for (const line of body.toString('utf8').split('\n')) {
    const data = sse ? (line.startsWith('data:') ? line.slice(5).trim() : '') : line.trim();
    if (data === '' || data[0] !== '{') continue;
    try {
      let at: unknown = JSON.parse(data);
      for (const key of path)
        at = at === null || typeof at !== 'object' ? undefined : (at as Record<string, unknown>)[key];
      if (typeof at === 'string') text += at;
    } catch {
      // A line that is no JSON adds no text.
    }
  }
  return text;
}

/**
 * One thread's LLM request bodies: each lane runs sessions of `turns` turns; its k-th new session
 * takes prompt `(offset + k * stride) mod prompts` of the plan, so that prompts are dealt over worker
 * threads and segments as rate slots are. A turn's request carries the session's conversation so
 * far, the streamed answers included (`answered`).
 */
export class LlmRequests {
  /** The response bodies are needed to carry the conversation forward. */
  readonly needsAnswers: boolean;
  readonly #planned: PlannedLlm;
  readonly #base: ResolvedRequest;
  readonly #sessions: Array<Session | undefined>;
  #started = 0;

  constructor(planned: PlannedLlm, base: ResolvedRequest, lanes: number) {
    this.#planned = planned;
    this.#base = base;
    this.#sessions = new Array<Session | undefined>(lanes);
    this.needsAnswers = planned.turns > 1;
  }

  /** The run's index of the session a lane starts now (tests read the order this way). */
  #nextSessionIndex(): number {
    return this.#planned.offset + this.#started++ * this.#planned.stride;
  }

  #newSession(): Session {
    const planned = this.#planned;
    const index = this.#nextSessionIndex();
    let turns: string[];
    let outputTokens: number | undefined;
    if (planned.synthetic !== undefined) {
      const { count } = planned.synthetic;
      const first = syntheticPrompt(planned.synthetic, index % count);
      turns = [first.text];
      // Later turns draw prompts past `count`: their own text, the same for the same session.
      for (let turn = 1; turn < planned.turns; turn++)
        turns.push(syntheticPrompt(planned.synthetic, (index % count) + turn * count).text);
      outputTokens = first.outputTokens;
    } else {
      const prompt = planned.prompts[index % planned.prompts.length]!;
      turns = prompt.turns.slice(0, planned.turns);
      outputTokens = prompt.outputTokens;
    }
    return { turns, next: 0, messages: [], outputTokens: planned.maxTokens ?? outputTokens, awaiting: false };
  }

  /** The request `lane` sends now: the next turn of its session, or the first of a new one. */
  next(lane: number): ResolvedRequest {
    let session = this.#sessions[lane];
    // A session ends after its last turn, or when a turn got no answer to carry forward.
    if (session === undefined || session.awaiting || session.next >= session.turns.length)
      session = this.#sessions[lane] = this.#newSession();
    session.messages.push({ role: 'user', content: session.turns[session.next++]! });
    session.awaiting = this.needsAnswers;
    return { ...this.#base, body: Buffer.from(JSON.stringify(this.#body(session))) };
  }

  /** `lane`'s answer came: with several turns, its text joins the conversation (a failed status ends the session). */
  answered(lane: number, status: number, body: Buffer | undefined): void {
    const session = this.#sessions[lane];
    if (session === undefined || !this.needsAnswers) return;
    if (status < 200 || status > 299 || body === undefined) return;
    session.awaiting = false;
    session.messages.push({ role: 'assistant', content: answerText(this.#planned.api, body) });
  }

  #body(session: Session): Record<string, unknown> {
    const { api, model, usage, ignoreEos } = this.#planned;
    const max = session.outputTokens;
    const input = chat(api)
      ? { messages: session.messages }
      : { prompt: session.messages.map((message) => message.content).join('\n\n') };
    if (api.startsWith('ollama'))
      return { model, ...input, stream: true, ...(max !== undefined ? { options: { num_predict: max } } : {}) };
    return {
      model,
      ...input,
      stream: true,
      ...(usage ? { stream_options: { include_usage: true } } : {}),
      ...(max !== undefined ? { max_tokens: max } : {}),
      ...(ignoreEos ? { ignore_eos: true } : {}),
    };
  }
}
