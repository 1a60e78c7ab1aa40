// Tokens as the server counts them: batched events (1-4 tokens each), the server's `usage`, a
// tokenizer, ITL spread over an event's tokens, reasoning apart from the answer, input tokens;
// against an OpenAI-style SSE server and an Ollama-style NDJSON one of known token timing.
import t from 'tap';
import { mergeResults, runLoad } from '../../src/index.js';
import { startLlmServer } from '../fixtures/llm-server.js';
import { inSomeRun } from '../fixtures/timing.js';

const TOKENS = 30;
const PROMPT = 17;
const AMOUNT = 6;
const words = (text: string): number => text.split(' ').filter((word) => word !== '').length;
const chatBody = { model: 'm', stream: true, messages: [{ role: 'user', content: 'Hi' }] };

t.test('OpenAI-style: output tokens exact from usage, ITL the per-token interval the server applied', async (t) => {
  const INTERVAL_MS = 4;
  const server = await startLlmServer({ style: 'openai', tokens: TOKENS, intervalMs: INTERVAL_MS, delayMs: 10, promptTokens: PROMPT });
  t.teardown(() => server.close());
  const stream = { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' } as const;

  const events = await runLoad({ url: server.url, method: 'POST', body: chatBody, connections: 2, amount: AMOUNT, stream: { ...stream, usage: false } });
  t.equal(server.applied().askedUsage, 0, 'usage: false sends the body as given');
  t.equal(events.stream!.outputTokensPerStream, 12, 'one token per event undercounts a batching server: 12 events for 30 tokens');

  await inSomeRun(t, 6, async (timing) => {
    const result = await runLoad({ url: server.url, method: 'POST', body: chatBody, connections: 2, amount: AMOUNT, stream: { ...stream, tokenizer: words } });
    const applied = server.applied();
    t.equal(applied.askedUsage, AMOUNT, 'salvo asked for usage: stream_options.include_usage added to the OpenAI-style body');
    const s = result.stream!;
    t.equal(s.outputTokens, AMOUNT * TOKENS, 'output tokens: exactly the server\'s');
    t.equal(s.outputTokensPerStream, TOKENS);
    t.equal(s.inputTokens, AMOUNT * PROMPT, 'input tokens from usage');
    t.equal(s.inputTokensPerStream, PROMPT);
    t.equal(s.usageStreams, AMOUNT);
    t.equal(s.reasoningTokens, 0);
    timing.ok(Math.abs(s.itl!.mean - applied.perTokenMs) < 0.2, `ITL mean ${s.itl!.mean.toFixed(3)} ms within 0.2 ms of the ${applied.perTokenMs.toFixed(3)} ms per token the server applied`);
    timing.ok(Math.abs(s.itl!.p50 - INTERVAL_MS) < 1, `ITL p50 ${s.itl!.p50} ms: the server's ${INTERVAL_MS} ms per token, not the gap between events`);
    timing.ok(Math.abs(s.answerTtft!.mean - s.ttft!.mean) < 0.01, 'without reasoning, the first answer token is the first token');
  });

  const usageOnly = await runLoad({ url: server.url, method: 'POST', body: chatBody, connections: 2, amount: AMOUNT, stream });
  t.equal(usageOnly.stream!.outputTokens, AMOUNT * TOKENS, 'without a tokenizer, usage alone makes the output tokens exact');
  t.equal(usageOnly.stream!.outputTokensPerStream, TOKENS);
});

t.test('a reasoning stream: reasoning tokens apart, TTFT and time to the first answer token apart', async (t) => {
  const REASONING = 10;
  const server = await startLlmServer({ style: 'openai', tokens: TOKENS, reasoning: REASONING, intervalMs: 4, delayMs: 10, promptTokens: PROMPT });
  t.teardown(() => server.close());
  await inSomeRun(t, 6, async (timing) => {
    const result = await runLoad({
      url: server.url, method: 'POST', body: chatBody, connections: 2, amount: AMOUNT,
      stream: { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content', tokenizer: words },
    });
    const applied = server.applied();
    const s = result.stream!;
    t.equal(s.reasoningTokens, AMOUNT * REASONING, 'reasoning tokens counted apart');
    t.equal(s.outputTokens, AMOUNT * TOKENS, 'output tokens count the reasoning ones, as usage.completion_tokens does');
    t.ok(s.answerTtft!.min > s.ttft!.min, 'the first answer token comes after the first (reasoning) token');
    timing.ok(Math.abs(s.answerTtft!.mean - s.ttft!.mean - applied.reasoningMs) < 2, `answer TTFT ${s.answerTtft!.mean.toFixed(3)} − TTFT ${s.ttft!.mean.toFixed(3)} ms within 2 ms of the ${applied.reasoningMs.toFixed(3)} ms the server reasoned`);
  });
});

t.test('Ollama-style NDJSON: eval_count and prompt_eval_count, thinking apart; exact over workers and mergeResults', async (t) => {
  const REASONING = 6;
  const server = await startLlmServer({ style: 'ollama', tokens: TOKENS, reasoning: REASONING, intervalMs: 2, delayMs: 5, promptTokens: PROMPT });
  t.teardown(() => server.close());
  const options = { url: server.url, method: 'POST', body: { model: 'm', messages: [] }, connections: 2, amount: AMOUNT, stream: { format: 'ndjson', tokens: 'message.content' } } as const;
  const one = await runLoad(options);
  const s = one.stream!;
  t.equal(s.outputTokens, AMOUNT * TOKENS, "output tokens: Ollama's eval_count");
  t.equal(s.inputTokens, AMOUNT * PROMPT, "input tokens: Ollama's prompt_eval_count");
  t.equal(s.reasoningTokens, AMOUNT * 3, 'thinking counted apart (one per event without a tokenizer: 1 + 2 + 3 tokens in 3 events)');
  t.ok(s.answerTtft!.min > s.ttft!.min, 'the first answer token after the first thinking one');

  const split = await runLoad({ ...options, workers: 2 });
  t.equal(split.stream!.outputTokens, AMOUNT * TOKENS, 'over two workers: the same counts');
  t.equal(split.stream!.inputTokens, AMOUNT * PROMPT);
  t.equal(split.stream!.usageStreams, AMOUNT);
  const merged = mergeResults([one, split]);
  t.equal(merged.stream!.outputTokens, 2 * AMOUNT * TOKENS, 'mergeResults adds output tokens');
  t.equal(merged.stream!.inputTokens, 2 * AMOUNT * PROMPT, 'and input tokens');
  t.equal(merged.stream!.inputTokensPerStream, PROMPT);
  t.equal(merged.stream!.reasoningTokens, 2 * AMOUNT * 3, 'and reasoning tokens');
  t.equal(merged.stream!.usageStreams, 2 * AMOUNT);
  t.ok(merged.stream!.answerTtft!.max >= Math.max(one.stream!.answerTtft!.max, split.stream!.answerTtft!.max) - 0.01, 'the answer TTFT histograms merged');
});

t.test('bad token and compression options are refused by name', async (t) => {
  const url = 'http://127.0.0.1:9/';
  await t.rejects(runLoad({ url, stream: { format: 'sse', tokens: (): number => 1, tokenizer: words } }), { code: 'SALVO_INVALID_OPTION', message: /stream\.tokenizer counts the text at the stream\.tokens path/ });
  await t.rejects(runLoad({ url, stream: { format: 'sse', tokens: 'a', tokenizer: 'words' as never } }), { code: 'SALVO_INVALID_OPTION', message: /stream\.tokenizer must be a function/ });
  await t.rejects(runLoad({ url, workers: 2, connections: 2, stream: { format: 'sse', tokens: 'a', tokenizer: words } }), { code: 'SALVO_INVALID_OPTION', message: /stream\.tokenizer is a function/ });
  await t.rejects(runLoad({ url, stream: { format: 'sse', tokens: 'a', usage: 'yes' as never } }), { code: 'SALVO_INVALID_OPTION', message: /stream\.usage must be true or false; got "yes"/ });
  await t.rejects(runLoad({ url, compressed: 1 as never }), { code: 'SALVO_INVALID_OPTION', message: /compressed must be true or false; got 1/ });
});

t.test("vLLM's continuous usage stats: each event's tokens from the running count, ITL exact without a tokenizer", async (t) => {
  const INTERVAL_MS = 4;
  const server = await startLlmServer({ style: 'openai', tokens: TOKENS, intervalMs: INTERVAL_MS, delayMs: 10, promptTokens: PROMPT, continuous: true });
  t.teardown(() => server.close());
  await inSomeRun(t, 6, async (timing) => {
    const result = await runLoad({
      url: server.url, method: 'POST', connections: 2, amount: AMOUNT,
      body: { ...chatBody, stream_options: { include_usage: true, continuous_usage_stats: true } },
      stream: { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' },
    });
    const applied = server.applied();
    const s = result.stream!;
    t.equal(s.outputTokens, AMOUNT * TOKENS, 'output tokens exact');
    t.equal(s.inputTokens, AMOUNT * PROMPT);
    timing.ok(Math.abs(s.itl!.mean - applied.perTokenMs) < 0.2, `ITL mean ${s.itl!.mean.toFixed(3)} ms within 0.2 ms of the ${applied.perTokenMs.toFixed(3)} ms per token the server applied`);
    timing.ok(Math.abs(s.itl!.p50 - INTERVAL_MS) < 1, `ITL p50 ${s.itl!.p50} ms: per token, not per event`);
  });
});

t.test("each request name's streams count the server's tokens too", async (t) => {
  const server = await startLlmServer({ style: 'ollama', tokens: TOKENS, intervalMs: 1, delayMs: 1, promptTokens: PROMPT });
  t.teardown(() => server.close());
  const request = (name: string) => ({ name, method: 'POST', body: { model: 'm', messages: [] } });
  const result = await runLoad({ url: server.url, connections: 2, amount: AMOUNT, requests: [request('a'), request('b')], stream: { format: 'ndjson', tokens: 'message.content' } });
  const a = result.byName!.a!.stream!, b = result.byName!.b!.stream!;
  t.equal(a.outputTokens! + b.outputTokens!, AMOUNT * TOKENS, 'the names add up to the run');
  t.equal(a.outputTokensPerStream, TOKENS, "name a: the server's count per stream");
  t.equal(b.outputTokensPerStream, TOKENS);
  t.equal(a.outputTokens, a.streams * TOKENS, "name a's total: the server's, not one per event");
});
