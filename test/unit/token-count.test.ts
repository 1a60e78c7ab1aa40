// engine/token-count.ts: tokens in an event's JSON at the tokens path and the reasoning paths, and
// the server's own counts (OpenAI usage, Ollama's last line).
import t from 'tap';
import { countTokens, readUsage, reasoningPaths, tokensIn, type EventTokens } from '../../src/engine/token-count.js';
import type { PlannedStream } from '../../src/shared/stream.js';

const fresh = (): EventTokens => ({ answer: 9, reasoning: 9, usageOutput: 9, usageInput: 9, usageReasoning: 9 });

t.test('tokensIn: text is one token or what the tokenizer counts; a number that many; an array its length', async (t) => {
  t.equal(tokensIn(' hello', undefined), 1);
  t.equal(tokensIn('', undefined), 0, 'an empty delta is no token');
  t.equal(tokensIn('a b c', (text) => text.split(' ').length), 3);
  t.equal(tokensIn('abc', () => Number.NaN), 0, "a tokenizer's NaN counts none");
  t.equal(tokensIn('abc', () => -2), 0);
  t.equal(tokensIn(4, undefined), 4);
  t.equal(tokensIn(Number.POSITIVE_INFINITY, undefined), 0);
  t.equal(tokensIn(['a', 'b', 'c', 'd', 'e'], undefined), 5);
  t.equal(tokensIn(null, undefined), 0);
  t.equal(tokensIn({ text: 'x' }, undefined), 0);
});

t.test('reasoningPaths: the last key of the tokens path replaced by each reasoning key', async (t) => {
  t.same(reasoningPaths(['choices', '0', 'delta', 'content']), [
    ['choices', '0', 'delta', 'reasoning_content'],
    ['choices', '0', 'delta', 'reasoning'],
    ['choices', '0', 'delta', 'thinking'],
  ]);
});

t.test('readUsage: OpenAI usage, Ollama done line, -1 for what is not given', async (t) => {
  const into = fresh();
  readUsage({ usage: { completion_tokens: 42, prompt_tokens: 17, completion_tokens_details: { reasoning_tokens: 5 } } }, into);
  t.same([into.usageOutput, into.usageInput, into.usageReasoning], [42, 17, 5]);
  readUsage({ usage: { completion_tokens: 7 } }, into);
  t.same([into.usageOutput, into.usageInput, into.usageReasoning], [7, -1, -1], 'a count not given is -1, not the last one');
  readUsage({ done: true, eval_count: 30, prompt_eval_count: 11 }, into);
  t.same([into.usageOutput, into.usageInput, into.usageReasoning], [30, 11, -1]);
  readUsage({ done: false, eval_count: 30 }, into);
  t.same([into.usageOutput, into.usageInput], [-1, -1], "Ollama's counts only on its last line");
  readUsage({ usage: { completion_tokens: -3, prompt_tokens: 'x' } }, into);
  t.same([into.usageOutput, into.usageInput], [-1, -1], 'a negative or non-number count is not a count');
  readUsage('text', into);
  t.equal(into.usageOutput, -1);
});

t.test('countTokens: answer and reasoning from the paths, usage only when asked', async (t) => {
  const tokensPath = ['choices', '0', 'delta', 'content'];
  const planned = { tokensPath, reasoningPaths: reasoningPaths(tokensPath), usage: false } as PlannedStream;
  const into = fresh();
  countTokens({ choices: [{ delta: { content: 'hi', reasoning_content: 'hmm', thinking: 'so' } }], usage: { completion_tokens: 50 } }, planned, undefined, into);
  t.same(into, { answer: 1, reasoning: 2, usageOutput: -1, usageInput: -1, usageReasoning: -1 }, 'usage not read when not asked');
  countTokens({ choices: [{ delta: { content: 'a b c' } }], usage: { completion_tokens: 50, prompt_tokens: 8 } }, { ...planned, usage: true }, (text) => text.split(' ').length, into);
  t.same(into, { answer: 3, reasoning: 0, usageOutput: 50, usageInput: 8, usageReasoning: -1 });
  countTokens({ choices: [{ delta: { content: 'x' } }] }, { ...planned, tokensPath: undefined, reasoningPaths: undefined }, undefined, into);
  t.same([into.answer, into.reasoning], [0, 0], 'no tokens path: no tokens');
});
