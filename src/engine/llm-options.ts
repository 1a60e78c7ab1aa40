import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import type { LoadOptions } from '../shared/load-options.js';
import type { LlmApi, LlmOptions, PlannedLlm, SloOptions, TokenCount } from '../shared/llm.js';
import type { PlannedStream, StreamOptions } from '../shared/stream.js';
import { positiveInteger, rejectUnknownKeys, show } from '../shared/validate.js';
import { promptsOf, readDataset } from './llm-dataset.js';
import { ANSWER_PATHS } from './llm-requests.js';

const APIS: readonly LlmApi[] = ['openai-chat', 'openai-completions', 'ollama-chat', 'ollama-generate'];
const KEYS = ['api', 'model', 'prompts', 'synthetic', 'maxTokens', 'ignoreEos', 'turns'] as const;
const SYNTHETIC_KEYS = ['inputTokens', 'outputTokens', 'sharedPrefix', 'count', 'seed'] as const;
const SLO_KEYS = ['ttft', 'tpot', 'itl', 'e2e'] as const;

/** The path an API answers on, for a url given without one. */
const API_PATHS: Readonly<Record<LlmApi, string>> = {
  'openai-chat': '/v1/chat/completions',
  'openai-completions': '/v1/completions',
  'ollama-chat': '/api/chat',
  'ollama-generate': '/api/generate',
};

function fail(option: string, message: string, value: unknown): never {
  throw new SalvoOptionError(`${option} ${message}; got ${show(value)}`, { option, value });
}

function tokenCount(option: string, value: unknown): TokenCount {
  if (typeof value === 'number') return positiveInteger(option, value);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    fail(option, 'must be a number of tokens, { min, max } or { mean, stddev, min?, max? }', value);
  const fields = value as Record<string, unknown>;
  if ('mean' in fields) {
    rejectUnknownKeys(fields, ['mean', 'stddev', 'min', 'max'], option);
    const { mean, stddev, min, max } = fields;
    if (typeof mean !== 'number' || !(mean > 0)) fail(`${option}.mean`, 'must be a positive number', mean);
    if (typeof stddev !== 'number' || !(stddev >= 0)) fail(`${option}.stddev`, 'must be a number >= 0', stddev);
    return {
      mean,
      stddev,
      ...(min !== undefined ? { min: positiveInteger(`${option}.min`, min) } : {}),
      ...(max !== undefined ? { max: positiveInteger(`${option}.max`, max) } : {}),
    };
  }
  rejectUnknownKeys(fields, ['min', 'max'], option);
  const min = positiveInteger(`${option}.min`, fields.min);
  const max = positiveInteger(`${option}.max`, fields.max);
  if (max < min)
    throw new SalvoRangeError(`${option}.max must be at least ${option}.min (${min}); got ${max}`, {
      option: `${option}.max`,
      value: max,
    });
  return { min, max };
}

/** `slo` validated: per-request objectives in ms, at least one. */
export function planSlo(value: unknown): SloOptions | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    fail('slo', 'must be { ttft?, tpot?, itl?, e2e? } in ms', value);
  rejectUnknownKeys(value, SLO_KEYS, 'slo');
  const slo: SloOptions = {};
  for (const key of SLO_KEYS) {
    const ms = (value as Record<string, unknown>)[key];
    if (ms === undefined) continue;
    if (typeof ms !== 'number' || !(ms > 0) || !Number.isFinite(ms))
      fail(`slo.${key}`, 'must be a positive number of ms', ms);
    slo[key] = ms;
  }
  if (Object.keys(slo).length === 0) fail('slo', 'needs at least one of ttft, tpot, itl, e2e (ms)', value);
  return slo;
}

/**
 * `llm` validated into its plan (the dataset read once, here) and the run's options it implies: a
 * POST of JSON to the API's path, read as a token stream (SSE for OpenAI, NDJSON for Ollama) with
 * the API's answer path as `tokens`. A `stream` of the user's own overrides those fields.
 */
export function planLlm(options: LoadOptions): { options: LoadOptions; llm: PlannedLlm } | undefined {
  const value = options.llm;
  // Another kind of run refuses llm by name (`rejectForKind`).
  if (value === undefined || options.task !== undefined || options.socketio !== undefined) return undefined;
  if (options.stream?.subscribe === true || (typeof options.url === 'string' && /^wss?:/i.test(options.url)))
    return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    fail('llm', 'must be an object { api, model, prompts | synthetic, maxTokens?, ignoreEos?, turns? }', value);
  rejectUnknownKeys(value, KEYS, 'llm');
  const given = value as LlmOptions;
  if (!APIS.includes(given.api)) fail('llm.api', `must be one of ${APIS.map((a) => `'${a}'`).join(', ')}`, given.api);
  if (typeof given.model !== 'string' || given.model === '')
    fail('llm.model', 'must be the model name the server serves', given.model);
  for (const option of ['body', 'requests'] as const) {
    if (options[option] === undefined) continue;
    throw new SalvoOptionError(`${option} cannot be combined with llm, which builds each request's body`, {
      option,
      value: options[option],
      mentions: ['llm'],
    });
  }
  if (options.method !== undefined && String(options.method).toUpperCase() !== 'POST')
    fail('method', 'must be POST (or left out) with llm', options.method);
  if ((given.prompts === undefined) === (given.synthetic === undefined))
    fail('llm', 'needs exactly one of prompts (a dataset file or an array of strings) and synthetic', value);
  const ollama = given.api.startsWith('ollama');
  if (given.ignoreEos !== undefined && typeof given.ignoreEos !== 'boolean')
    fail('llm.ignoreEos', 'must be true or false', given.ignoreEos);
  if (given.ignoreEos === true && ollama)
    fail(
      'llm.ignoreEos',
      'is a vLLM/SGLang field Ollama does not have (its num_predict is llm.maxTokens)',
      given.ignoreEos,
    );
  const maxTokens = given.maxTokens === undefined ? undefined : positiveInteger('llm.maxTokens', given.maxTokens);
  const turns = given.turns === undefined ? 1 : positiveInteger('llm.turns', given.turns);
  let prompts: PlannedLlm['prompts'] = [];
  let synthetic: PlannedLlm['synthetic'];
  if (typeof given.prompts === 'string') prompts = readDataset(given.prompts);
  else if (given.prompts !== undefined) {
    if (!Array.isArray(given.prompts) || given.prompts.some((p) => typeof p !== 'string') || given.prompts.length === 0)
      fail('llm.prompts', 'must be a dataset file path or a non-empty array of strings', given.prompts);
    prompts = promptsOf(given.prompts);
    if (prompts.length === 0) fail('llm.prompts', 'has no non-empty prompt', given.prompts);
  } else {
    const s = given.synthetic as unknown;
    if (s === null || typeof s !== 'object' || Array.isArray(s))
      fail('llm.synthetic', 'must be { inputTokens, outputTokens?, sharedPrefix?, count?, seed? }', s);
    rejectUnknownKeys(s, SYNTHETIC_KEYS, 'llm.synthetic');
    const fields = s as Record<string, unknown>;
    if (fields.outputTokens !== undefined && maxTokens !== undefined)
      fail(
        'llm.maxTokens',
        "cannot be combined with llm.synthetic.outputTokens, which sets each request's max_tokens",
        maxTokens,
      );
    const seed = fields.seed ?? 1;
    if (typeof seed !== 'number' || !Number.isInteger(seed)) fail('llm.synthetic.seed', 'must be an integer', seed);
    synthetic = {
      inputTokens: tokenCount('llm.synthetic.inputTokens', fields.inputTokens),
      ...(fields.outputTokens !== undefined
        ? { outputTokens: tokenCount('llm.synthetic.outputTokens', fields.outputTokens) }
        : {}),
      sharedPrefix:
        fields.sharedPrefix === undefined ? 0 : positiveInteger('llm.synthetic.sharedPrefix', fields.sharedPrefix),
      count: fields.count === undefined ? 1000 : positiveInteger('llm.synthetic.count', fields.count),
      seed,
    };
  }
  const stream: StreamOptions = {
    ...(ollama ? { format: 'ndjson' as const } : { format: 'sse' as const, until: '[DONE]' }),
    tokens: ANSWER_PATHS[given.api],
    ...options.stream,
  };
  const url = typeof options.url === 'string' ? withApiPath(options.url, given.api) : options.url;
  const llm: PlannedLlm = {
    api: given.api,
    model: given.model,
    prompts,
    synthetic,
    maxTokens,
    ignoreEos: given.ignoreEos === true,
    turns,
    usage: stream.usage !== false && !ollama,
    offset: 0,
    stride: 1,
  };
  const headers = { 'content-type': 'application/json', ...options.headers };
  return { options: { ...options, url, method: 'POST', headers, body: '{}', stream }, llm };
}

/** A url whose path is `/` gets the API's own; any other is the user's. */
function withApiPath(url: string, api: LlmApi): string {
  try {
    const parsed = new URL(url);
    if (parsed.pathname !== '/') return url;
    parsed.pathname = API_PATHS[api];
    return parsed.href;
  } catch {
    return url; // parseUrl names the bad url
  }
}

/** Goodput judges each stream's tokens: `slo` needs a `stream` with `tokens` (which `llm` sets). */
export function rejectSloWithoutTokens(slo: SloOptions, stream: PlannedStream | undefined): void {
  if (stream?.tokensPath !== undefined || stream?.tokensFunction === true) return;
  throw new SalvoOptionError(
    'slo judges each streamed answer by its tokens: give llm, or stream with tokens (such as { format: "sse", tokens: "choices.0.delta.content" })',
    { option: 'slo', value: slo, mentions: ['stream.tokens', 'llm'] },
  );
}
