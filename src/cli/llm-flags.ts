import type { LlmApi, LlmOptions, SloOptions, TokenCount } from '../index.js';
import { UsageError } from './command.js';
import { integerFlag, numberFlag } from './flag-values.js';

/** The flags that make runLoad's `llm` and `slo` options, in help order (LOAD_FLAGS takes them in). */
export const LLM_FLAGS = {
  llm: {
    type: 'string',
    value: 'API',
    help: 'an LLM workload: openai-chat, openai-completions, ollama-chat or ollama-generate (docs/llm.md)',
  },
  'llm-model': { type: 'string', value: 'NAME', help: '--llm: the model field of every request' },
  'llm-prompts': { type: 'string', value: 'FILE', help: '--llm: ShareGPT JSON/JSONL or JSONL of {prompt}' },
  'llm-input': {
    type: 'string',
    value: 'TOKENS',
    help: '--llm: synthetic prompts of TOKENS input tokens (N or MIN-MAX) in place of --llm-prompts',
  },
  'llm-output': { type: 'string', value: 'TOKENS', help: '--llm-input: output tokens (N or MIN-MAX)' },
  'llm-prefix': { type: 'string', value: 'N', help: '--llm-input: tokens of a prefix every prompt shares' },
  'llm-max-tokens': { type: 'string', value: 'N', help: "--llm: each request's max_tokens" },
  'llm-ignore-eos': { type: 'boolean', help: '--llm: ignore_eos, so the server generates max_tokens (vLLM)' },
  'llm-turns': { type: 'string', value: 'N', help: '--llm: user turns per session (the answers carried forward)' },
  // Not --slo: that is salvo capacity's objective of its steps.
  'llm-slo': {
    type: 'string',
    multiple: true,
    value: 'NAME=MS',
    help: 'a per-request objective of result.goodput: ttft=, tpot=, itl= or e2e=; repeat for more',
  },
} as const;

type LlmFlagValues = {
  [Name in keyof typeof LLM_FLAGS]?: (typeof LLM_FLAGS)[Name]['type'] extends 'boolean'
    ? boolean
    : Name extends 'llm-slo'
      ? string[]
      : string;
};

function tokens(flag: string, text: string): TokenCount {
  const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(text);
  if (range !== null) return { min: Number(range[1]), max: Number(range[2]) };
  return integerFlag(flag, text, 1);
}

/** `--llm API` and the flags that go with it as runLoad's `llm`; runLoad checks the values, naming `llm.*`. */
export function llmFromFlags(flags: LlmFlagValues): LlmOptions | undefined {
  const given = Object.keys(LLM_FLAGS).filter(
    (name) => name !== 'llm' && name !== 'llm-slo' && flags[name as keyof LlmFlagValues] !== undefined,
  );
  if (flags.llm === undefined) {
    if (given.length > 0) throw new UsageError(`--${given[0]} needs --llm API (openai-chat, ...)`);
    return undefined;
  }
  const input = flags['llm-input'];
  return {
    api: flags.llm as LlmApi,
    model: flags['llm-model'] ?? '',
    ...(flags['llm-prompts'] !== undefined ? { prompts: flags['llm-prompts'] } : {}),
    ...(input !== undefined
      ? {
          synthetic: {
            inputTokens: tokens('--llm-input', input),
            ...(flags['llm-output'] !== undefined ? { outputTokens: tokens('--llm-output', flags['llm-output']) } : {}),
            ...(flags['llm-prefix'] !== undefined
              ? { sharedPrefix: integerFlag('--llm-prefix', flags['llm-prefix'], 1) }
              : {}),
          },
        }
      : {}),
    ...(flags['llm-max-tokens'] !== undefined
      ? { maxTokens: integerFlag('--llm-max-tokens', flags['llm-max-tokens'], 1) }
      : {}),
    ...(flags['llm-ignore-eos'] !== undefined ? { ignoreEos: flags['llm-ignore-eos'] } : {}),
    ...(flags['llm-turns'] !== undefined ? { turns: integerFlag('--llm-turns', flags['llm-turns'], 1) } : {}),
  };
}

/** `--llm-slo ttft=200` (repeated) as runLoad's `slo`. */
export function sloFromFlags(values: string[] | undefined): SloOptions | undefined {
  if (values === undefined) return undefined;
  const slo: Record<string, number> = {};
  for (const value of values) {
    const [name, ms] = value.split('=');
    if (name === undefined || ms === undefined || !['ttft', 'tpot', 'itl', 'e2e'].includes(name.trim()))
      throw new UsageError(
        `--llm-slo must look like ttft=200 (ttft, tpot, itl or e2e, in ms); got ${JSON.stringify(value)}`,
      );
    slo[name.trim()] = numberFlag('--llm-slo', ms);
  }
  return slo;
}
