import { SalvoOptionError } from '../shared/errors.js';
import type { Plan } from '../shared/plan.js';
import type { PlannedStream, StreamFormat, StreamHooks, StreamOptions } from '../shared/stream.js';
import { rejectUnknownKeys, show } from '../shared/validate.js';
import { reasoningPaths } from './token-count.js';

const FORMATS: readonly StreamFormat[] = ['sse', 'ndjson', 'chunks'];
const KEYS = [
  'format',
  'until',
  'timestamp',
  'tokens',
  'tokenizer',
  'usage',
  'subscribe',
] as const satisfies ReadonlyArray<keyof StreamOptions>;

/** `stream` validated into plain data and the functions that stay in this thread; undefined without it. */
export function planStream(
  value: unknown,
  { workers, webSocket }: { workers: number; webSocket: boolean },
): { planned: PlannedStream; hooks: StreamHooks } | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SalvoOptionError(
      `stream must be an object { format: 'sse' | 'ndjson' | 'chunks', until?, timestamp?, tokens? }; got ${show(value)}`,
      { option: 'stream', value },
    );
  }
  if (webSocket)
    throw new SalvoOptionError(
      'stream reads HTTP response bodies; a WebSocket run times messages with websocket.timestamp instead',
      { option: 'stream', value, mentions: ['url', 'websocket'] },
    );
  rejectUnknownKeys(value, KEYS, 'stream');
  const options = value as StreamOptions;
  if (!FORMATS.includes(options.format)) {
    throw new SalvoOptionError(
      `stream.format must be one of ${FORMATS.map((f) => `'${f}'`).join(', ')}; got ${show(options.format)}`,
      { option: 'stream.format', value: options.format },
    );
  }
  const { until, timestamp, tokens } = options;
  if (until !== undefined && typeof until !== 'function' && (typeof until !== 'string' || until.trim() === '')) {
    throw new SalvoOptionError(
      `stream.until must be a non-empty string (an event's data, such as '[DONE]') or a function (event) => boolean; got ${show(until)}`,
      { option: 'stream.until', value: until },
    );
  }
  if (
    timestamp !== undefined &&
    (typeof timestamp !== 'object' ||
      timestamp === null ||
      typeof timestamp.field !== 'string' ||
      timestamp.field === '')
  ) {
    throw new SalvoOptionError(
      `stream.timestamp must be { field: string }, the JSON field of each event that carries its send time (epoch ms); got ${show(timestamp)}`,
      { option: 'stream.timestamp', value: timestamp },
    );
  }
  if (timestamp !== undefined) rejectUnknownKeys(timestamp, ['field'], 'stream.timestamp');
  if (tokens !== undefined && typeof tokens !== 'function' && (typeof tokens !== 'string' || tokens === '')) {
    throw new SalvoOptionError(
      `stream.tokens must be a JSON path such as 'choices.0.delta.content' or a function (event) => number; got ${show(tokens)}`,
      { option: 'stream.tokens', value: tokens },
    );
  }
  const { tokenizer, usage } = options;
  if (tokenizer !== undefined && typeof tokenizer !== 'function') {
    throw new SalvoOptionError(
      `stream.tokenizer must be a function (text) => number, your model's token count of a piece of text; got ${show(tokenizer)}`,
      { option: 'stream.tokenizer', value: tokenizer },
    );
  }
  if (tokenizer !== undefined && typeof tokens !== 'string') {
    throw new SalvoOptionError(
      "stream.tokenizer counts the text at the stream.tokens path: give stream.tokens as a path such as 'choices.0.delta.content'",
      { option: 'stream.tokenizer', value: tokenizer, mentions: ['stream.tokens'] },
    );
  }
  if (usage !== undefined && typeof usage !== 'boolean') {
    throw new SalvoOptionError(`stream.usage must be true or false; got ${show(usage)}`, {
      option: 'stream.usage',
      value: usage,
    });
  }
  const { subscribe } = options;
  if (subscribe !== undefined && typeof subscribe !== 'boolean') {
    throw new SalvoOptionError(`stream.subscribe must be true or false; got ${show(subscribe)}`, {
      option: 'stream.subscribe',
      value: subscribe,
    });
  }
  if (subscribe === true) {
    if (options.format !== 'sse') {
      throw new SalvoOptionError(
        `stream.subscribe holds Server-Sent Events subscriptions and needs format 'sse'; got format ${show(options.format)}`,
        { option: 'stream.subscribe', value: subscribe, mentions: ['stream.format'] },
      );
    }
    for (const [name, given] of [
      ['until', until],
      ['tokens', tokens],
    ] as const) {
      if (given === undefined) continue;
      throw new SalvoOptionError(
        `stream.${name} ends or counts a response's stream; a subscription is held for the whole run, so drop stream.${name} or stream.subscribe`,
        { option: `stream.${name}`, value: given, mentions: ['stream.subscribe'] },
      );
    }
  }
  for (const [name, hook] of [
    ['until', until],
    ['tokens', tokens],
    ['tokenizer', tokenizer],
  ] as const) {
    if (typeof hook === 'function' && workers > 1) {
      throw new SalvoOptionError(
        `stream.${name} is a function, which cannot be sent to worker threads (workers: ${workers}); give a string, or use workers: 1`,
        { option: `stream.${name}`, value: hook, mentions: ['workers'] },
      );
    }
  }
  return {
    planned: {
      format: options.format,
      until: typeof until === 'string' ? until.trim() : undefined,
      timestampField: timestamp?.field,
      tokensPath: typeof tokens === 'string' ? tokens.split('.') : undefined,
      untilFunction: typeof until === 'function',
      tokensFunction: typeof tokens === 'function',
      tokenizerFunction: tokenizer !== undefined,
      usage: tokens !== undefined && usage !== false,
      reasoningPaths: typeof tokens === 'string' ? reasoningPaths(tokens.split('.')) : undefined,
      subscribe: subscribe === true,
    },
    hooks: {
      ...(typeof until === 'function' ? { until } : {}),
      ...(typeof tokens === 'function' ? { tokens } : {}),
      ...(tokenizer !== undefined ? { tokenizer } : {}),
    },
  };
}

/**
 * Options a subscription run has no use for: it holds one GET-like request per client for the run,
 * so no rate, amount, pipelining, sequence of requests or checks of its answers.
 */
export function rejectWithSubscribe(plan: Plan, options: { expect?: unknown; requests?: unknown }): void {
  if (plan.stream?.subscribe !== true) return;
  const reject = (option: string, value: unknown, why: string): never => {
    throw new SalvoOptionError(
      `${option} ${why} with stream.subscribe, where each client holds one subscription for the run; got ${option} ${show(value)}`,
      { option, value, mentions: ['stream.subscribe'] },
    );
  };
  if (plan.rate !== undefined || plan.ramps === 'rate')
    reject(
      plan.rate !== undefined ? 'rate' : 'stages',
      plan.rate ?? plan.stages,
      'has no meaning (stages ramp the subscribers: { duration, connections })',
    );
  if (plan.amount !== undefined) reject('amount', plan.amount, 'has no meaning (give a duration)');
  if (plan.pipelining > 1)
    reject('pipelining', plan.pipelining, 'has no meaning (a stream never ends to let the next request through)');
  if (options.expect !== undefined) reject('expect', options.expect, 'is not supported');
  if (plan.requests.length > 1 || plan.requests.some((request) => request.dynamic || request.capture))
    reject('requests', options.requests, 'must be one request without hooks');
}
