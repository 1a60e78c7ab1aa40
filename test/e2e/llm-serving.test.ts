// The llm workload against an OpenAI-compatible server with an inference engine's shape (batch
// slots, prefill per input token, a decode interval; llm-batch-server.ts, in its own process): output
// tokens exact, TTFT and TPOT as the server applied them, goodput as the server saw it, a dataset of
// 1,000 prompts dealt over 4 workers exactly as the plan says, and multi-turn sessions.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { formatResult, mergeResults, runLoad, toVllmJson } from '../../src/index.js';
import type { AppliedRequest } from '../fixtures/llm-batch-server.js';
import { separateLlmServer } from '../fixtures/separate-llm-server.js';
import { inSomeRun } from '../fixtures/timing.js';

const dir = mkdtempSync(join(tmpdir(), 'salvo-llm-'));
const jsonl = (name: string, entries: unknown[]): string => {
  const path = join(dir, name);
  writeFileSync(path, entries.map((entry) => JSON.stringify(entry)).join('\n'));
  return path;
};
const mean = (values: number[]): number => values.reduce((sum, v) => sum + v, 0) / values.length;
const sum = (values: number[]): number => values.reduce((total, v) => total + v, 0);

t.test('an engine-shaped server: output tokens exact, TTFT and TPOT within 0.5 ms of what it applied, goodput as it saw it', async (t) => {
  const server = await separateLlmServer(t, { slots: 4, prefillMsPerToken: 0.1, decodeMs: 3, defaultOutputTokens: 4 });
  // Short (20 words: 2 ms prefill) and long (300 words: 30 ms) prompts, with 6 or 40 output tokens:
  // only short-short ones meet TTFT 15 ms and e2e 70 ms, by a wide margin either way.
  const prompt = (n: number, words: number): string => `q${n}` + ' word'.repeat(words - 1);
  const prompts = jsonl('mixed.jsonl', [
    { prompt: prompt(0, 20), output_tokens: 6 }, { prompt: prompt(1, 20), output_tokens: 40 },
    { prompt: prompt(2, 300), output_tokens: 6 }, { prompt: prompt(3, 300), output_tokens: 40 },
    { prompt: prompt(4, 24), output_tokens: 6 }, { prompt: prompt(5, 24), output_tokens: 40 },
    { prompt: prompt(6, 320), output_tokens: 6 }, { prompt: prompt(7, 320), output_tokens: 40 },
  ]);
  const slo = { ttft: 15, e2e: 70, tpot: 10, itl: 25 };
  const met = (r: AppliedRequest): boolean => r.ttftMs <= slo.ttft && r.e2eMs <= slo.e2e && r.tpotMs <= slo.tpot && r.maxItlMs <= slo.itl;
  const llm = { api: 'openai-chat', model: 'engine', prompts, ignoreEos: true } as const;

  // A first run compiles salvo's paths (and the server's): its first requests would be late for that alone.
  await runLoad({ url: server.url, connections: 4, amount: 8, llm });
  await server.applied();
  await inSomeRun(t, 8, async (timing) => {
    // As many connections as slots: nothing queues, and the SLOs split the requests by their prompts.
    const thresholds = { 'goodput.requests': '>= 1', 'goodput.rate': '> 0.99' };
    const result = await runLoad({ url: server.url, connections: 4, amount: 16, llm, slo, thresholds });
    const applied = await server.applied();
    t.equal(applied.length, 16, 'the server answered 16 requests');
    t.equal(result.errors.total, 0);
    t.ok(applied.every((r) => r.path === '/v1/chat/completions' && r.model === 'engine' && r.askedUsage && r.ignoreEos), 'chat completions with model, stream_options.include_usage and ignore_eos');
    const s = result.stream!;
    t.equal(s.outputTokens, sum(applied.map((r) => r.outputTokens)), 'output tokens: exactly what the server generated');
    t.equal(s.inputTokens, sum(applied.map((r) => r.inputTokens)), 'input tokens: the server\'s usage.prompt_tokens');
    t.equal(s.streams, 16);
    t.equal(result.goodput!.slo.ttft, 15);
    t.same(result.thresholds!.map((r) => [r.metric, r.actual, r.passed]), [['goodput.requests', result.goodput!.requests, result.goodput!.requests >= 1], ['goodput.rate', result.goodput!.requests / 16, false]], 'thresholds read goodput');
    const serverGood = applied.filter(met).length;
    timing.hostKept(serverGood === 4, `the server kept its costs: ${serverGood} of 16 requests met the SLOs (4 planned)`);
    timing.ok(result.goodput!.requests === serverGood, `goodput ${result.goodput!.requests} requests: the ${serverGood} the server saw meet every SLO`);
    timing.ok(Math.abs(s.ttft!.mean - mean(applied.map((r) => r.ttftMs))) < 0.5, `TTFT mean ${s.ttft!.mean.toFixed(3)} ms within 0.5 ms of the ${mean(applied.map((r) => r.ttftMs)).toFixed(3)} ms the server applied`);
    timing.ok(Math.abs(s.tpot!.mean - mean(applied.map((r) => r.tpotMs))) < 0.5, `TPOT mean ${s.tpot!.mean.toFixed(3)} ms within 0.5 ms of the server's ${mean(applied.map((r) => r.tpotMs)).toFixed(3)} ms`);
    t.match(formatResult(result), `Goodput       ${result.goodput!.requests} (`, 'formatResult prints a Goodput line');
    const merged = mergeResults([result, result]);
    t.same([merged.goodput!.requests, merged.goodput!.slo], [2 * result.goodput!.requests, slo], 'mergeResults adds the goodput of its results');
    const vllm = toVllmJson(result);
    t.equal(vllm.total_output_tokens, s.outputTokens, 'vLLM JSON: total_output_tokens');
    t.equal(vllm.completed, 16, 'vLLM JSON: completed');
    t.equal(vllm.request_goodput, result.goodput!.perSecond, 'vLLM JSON: request_goodput');
    t.equal(vllm.mean_ttft_ms, s.ttft!.mean, 'vLLM JSON: mean_ttft_ms');
  });

  await inSomeRun(t, 8, async (timing) => {
    // Twice the connections of the slots: half the requests wait in the server's queue, in their TTFT.
    const result = await runLoad({ url: server.url, connections: 8, amount: 24, llm });
    const applied = await server.applied();
    const s = result.stream!;
    t.equal(s.outputTokens, sum(applied.map((r) => r.outputTokens)), 'queued: output tokens exact');
    timing.hostKept(applied.filter((r) => r.queuedMs > 5).length >= 4, `requests waited for a batch slot (${applied.filter((r) => r.queuedMs > 5).length})`);
    const ttft = mean(applied.map((r) => r.ttftMs));
    timing.ok(Math.abs(s.ttft!.mean - ttft) < 0.5, `queued: TTFT mean ${s.ttft!.mean.toFixed(3)} ms within 0.5 ms of the server's ${ttft.toFixed(3)} ms (its queue included)`);
    const tpot = mean(applied.map((r) => r.tpotMs));
    timing.ok(Math.abs(s.tpot!.mean - tpot) < 0.5, `queued: TPOT mean ${s.tpot!.mean.toFixed(3)} ms within 0.5 ms of the server's ${tpot.toFixed(3)} ms`);
  });
});

t.test('1,000 prompts over 4 workers: each sent exactly as many times as the plan says', async (t) => {
  const server = await separateLlmServer(t, { slots: 64, prefillMsPerToken: 0, decodeMs: 0, defaultOutputTokens: 1 });
  const N = 1000;
  const prompts = jsonl('thousand.jsonl', Array.from({ length: N }, (_, i) => ({ prompt: `prompt ${i}` })));
  const llm = { api: 'openai-completions', model: 'm', prompts, maxTokens: 1 } as const;
  const counts = (applied: AppliedRequest[]): number[] => {
    const seen = new Array<number>(N).fill(0);
    for (const r of applied) seen[Number(r.prompt.split(' ')[1])]!++;
    return seen;
  };

  // Closed loop: 1,000 requests over 8 connections in 4 workers, 250 each (prompts j, j + 4, ...).
  const t0 = performance.now();
  const closed = await runLoad({ url: server.url, connections: 8, workers: 4, amount: N, llm, slo: { e2e: 60_000 } });
  const first = await server.applied();
  t.equal(closed.requests.completed, N);
  t.equal(first.length, N, 'the server answered 1,000');
  t.ok(first.every((r) => r.path === '/v1/completions'), 'to /v1/completions');
  t.same(new Set(counts(first)), new Set([1]), 'each of the 1,000 prompts sent exactly once');
  t.equal(closed.goodput!.requests, N, "goodput over 4 workers: every thread's good answers added up");
  t.comment(`closed ${(performance.now() - t0).toFixed(0)} ms`);

  // Open loop: 1,500 slots at 1,000/s over 2 segments of 2 workers (slots i + 2j + 4k): prompts 0-499 twice, the rest once.
  const t1 = performance.now();
  const segments = await Promise.all([0, 1].map((index) => runLoad({ url: server.url, connections: 4, workers: 2, rate: 1000, amount: 1500, llm, segment: { index, count: 2 } })));
  const second = await server.applied();
  t.equal(segments[0]!.requests.missed + segments[1]!.requests.missed, 0, 'no slot missed');
  t.equal(second.length, 1500);
  const twice = counts(second);
  t.ok(twice.every((count, i) => count === (i < 500 ? 2 : 1)), 'over 2 segments x 2 workers at a rate: prompts 0-499 twice, 500-999 once');
  t.comment(`open ${(performance.now() - t1).toFixed(0)} ms`);
});

t.test('multi-turn sessions carry the streamed answers forward', async (t) => {
  const server = await separateLlmServer(t, { slots: 8, prefillMsPerToken: 0, decodeMs: 1, defaultOutputTokens: 3 });
  const prompts = jsonl('turns.jsonl', [
    { conversations: [{ from: 'human', value: 'a1' }, { from: 'gpt', value: 'x' }, { from: 'human', value: 'a2' }, { from: 'gpt', value: 'y' }, { from: 'human', value: 'a3' }] },
    { conversations: [{ from: 'human', value: 'b1' }, { from: 'gpt', value: 'x' }, { from: 'human', value: 'b2' }] },
  ]);
  // One connection: sessions a (3 turns), b (2 turns), a again: 3 + 2 + 3 requests.
  const result = await runLoad({ url: server.url, connections: 1, amount: 8, llm: { api: 'openai-chat', model: 'm', prompts, turns: 3, maxTokens: 5 } });
  const applied = await server.applied();
  t.equal(result.errors.total, 0);
  t.same(applied.map((r) => [r.prompt, r.messages]), [['a1', 1], ['a2', 3], ['a3', 5], ['b1', 1], ['b2', 3], ['a1', 1], ['a2', 3], ['a3', 5]], 'each turn carries the conversation so far');
  t.ok(applied.every((r) => r.assistantsWhole), "each assistant message is the server's whole streamed answer");
});
