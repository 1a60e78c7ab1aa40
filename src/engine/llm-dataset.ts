import { readFileSync } from 'node:fs';
import { SalvoOptionError } from '../shared/errors.js';
import type { PlannedPrompt } from '../shared/llm.js';
import { show } from '../shared/validate.js';

const USER_ROLES = new Set(['human', 'user']);

/** A dataset entry's user turns: ShareGPT's `conversations` (`from`/`value`), `messages` (`role`/`content`), or `prompt`. */
function promptOf(entry: unknown): PlannedPrompt | undefined {
  if (entry === null || typeof entry !== 'object')
    return typeof entry === 'string' && entry !== '' ? { turns: [entry] } : undefined;
  const fields = entry as Record<string, unknown>;
  let turns: string[] = [];
  if (typeof fields.prompt === 'string') turns = [fields.prompt];
  else {
    const messages = Array.isArray(fields.conversations) ? fields.conversations : fields.messages;
    if (Array.isArray(messages)) {
      for (const message of messages as Array<Record<string, unknown> | null>) {
        const role = message?.from ?? message?.role;
        const text = message?.value ?? message?.content;
        if (typeof role === 'string' && USER_ROLES.has(role) && typeof text === 'string') turns.push(text);
      }
    }
  }
  turns = turns.filter((turn) => turn !== '');
  if (turns.length === 0) return undefined;
  const output = fields.output_tokens ?? fields.max_tokens;
  return typeof output === 'number' && Number.isInteger(output) && output > 0
    ? { turns, outputTokens: output }
    : { turns };
}

/**
 * The prompts of a dataset file: a JSON array or JSON Lines of ShareGPT conversations
 * (`{ conversations: [{ from: 'human', value }, { from: 'gpt', value }, ...] }`), of chat
 * `messages`, or of `{ prompt }`; entries with no user text are left out, as vLLM's loader does.
 */
export function readDataset(path: string): PlannedPrompt[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SalvoOptionError(`llm.prompts: cannot read the dataset ${show(path)} (${(error as Error).message})`, {
      option: 'llm.prompts',
      value: path,
    });
  }
  let entries: unknown[];
  const trimmed = text.trimStart();
  try {
    entries = trimmed.startsWith('[')
      ? (JSON.parse(trimmed) as unknown[])
      : trimmed
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as unknown);
  } catch (error) {
    throw new SalvoOptionError(
      `llm.prompts: ${show(path)} is neither a JSON array nor JSON Lines (${(error as Error).message})`,
      { option: 'llm.prompts', value: path },
    );
  }
  const prompts = promptsOf(entries);
  if (prompts.length === 0) {
    throw new SalvoOptionError(
      `llm.prompts: ${show(path)} has no prompt: give ShareGPT conversations, chat messages or { prompt } entries`,
      { option: 'llm.prompts', value: path },
    );
  }
  return prompts;
}

/** Entries (strings or objects) as prompts, those with no user text left out. */
export function promptsOf(entries: readonly unknown[]): PlannedPrompt[] {
  const prompts: PlannedPrompt[] = [];
  for (const entry of entries) {
    const prompt = promptOf(entry);
    if (prompt !== undefined) prompts.push(prompt);
  }
  return prompts;
}
