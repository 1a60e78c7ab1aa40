// The llm option (plan, datasets, synthetic prompts, request bodies, the deal over shares), goodput's
// judge and series, and the vLLM JSON export.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { planLoad } from '../../src/options.js';
import { splitPlan, segmentPlan } from '../../src/workers/shard.js';
import { readDataset } from '../../src/engine/llm-dataset.js';
import { drawCount, syntheticPrompt } from '../../src/engine/llm-synthetic.js';
import { answerText, LlmRequests } from '../../src/engine/llm-requests.js';
import { GoodputMeter } from '../../src/engine/goodput-meter.js';
import { StreamSeries } from '../../src/outputs/stream-series.js';
import { toVllmJson } from '../../src/stats/vllm-json.js';
import { streamCards } from '../../src/report/stream-section.js';
import type { LoadResult } from '../../src/index.js';
import type { PlannedLlm } from '../../src/shared/llm.js';

const SAMPLE = fileURLToPath(new URL('../../examples/llm/sample-sharegpt.jsonl', import.meta.url));
const url = 'http://127.0.0.1:9/';

t.test('planLoad: llm builds a POST of JSON read as a token stream, to the API path when the url has none', async (t) => {
  const { plan } = planLoad({ url, llm: { api: 'openai-chat', model: 'm', prompts: SAMPLE, maxTokens: 32, ignoreEos: true } });
  t.equal(plan.url, 'http://127.0.0.1:9/v1/chat/completions');
  t.equal(plan.requests[0]!.method, 'POST');
  t.equal(plan.requests[0]!.headers['content-type'], 'application/json');
  t.same(plan.stream!.tokensPath, ['choices', '0', 'delta', 'content']);
  t.equal(plan.stream!.until, '[DONE]');
  t.equal(plan.llm!.prompts.length, 32, 'the sample dataset has 32 conversations');
  t.same([plan.llm!.offset, plan.llm!.stride, plan.llm!.usage, plan.llm!.ignoreEos], [0, 1, true, true]);
  t.equal(planLoad({ url: 'http://127.0.0.1:9/x', llm: { api: 'ollama-chat', model: 'm', prompts: ['a'] } }).plan.url, 'http://127.0.0.1:9/x', 'a path of the user\'s own is kept');
  const ollama = planLoad({ url, llm: { api: 'ollama-generate', model: 'm', prompts: ['a'] } }).plan;
  t.same([ollama.url, ollama.stream!.format, ollama.stream!.tokensPath, ollama.llm!.usage], ['http://127.0.0.1:9/api/generate', 'ndjson', ['response'], false]);
  const own = planLoad({ url, llm: { api: 'openai-chat', model: 'm', prompts: ['a'] }, stream: { format: 'sse', tokens: 'choices.0.delta.content', usage: false } }).plan;
  t.same([own.stream!.until, own.llm!.usage], ['[DONE]', false], "a stream of the user's own overrides the fields it gives, the others stay");
  t.same(planLoad({ url, llm: { api: 'openai-chat', model: 'm', prompts: ['a'] }, slo: { ttft: 100, e2e: 2000 } }).plan.stream!.slo, { ttft: 100, e2e: 2000 });
});

t.test('planLoad: a bad llm or slo names the option', async (t) => {
  const bad = (options: object, option: string): void => void t.throws(() => planLoad({ url, ...options }), { option } as object as Error, option);
  bad({ llm: { api: 'anthropic', model: 'm', prompts: ['a'] } }, 'llm.api');
  bad({ llm: { api: 'openai-chat', prompts: ['a'] } }, 'llm.model');
  bad({ llm: { api: 'openai-chat', model: 'm' } }, 'llm');
  bad({ llm: { api: 'openai-chat', model: 'm', prompts: ['a'], synthetic: { inputTokens: 5 } } }, 'llm');
  bad({ llm: { api: 'openai-chat', model: 'm', prompts: ['a'], tokens: 5 } }, 'llm.tokens');
  bad({ llm: { api: 'openai-chat', model: 'm', prompts: '/no/such/file.jsonl' } }, 'llm.prompts');
  bad({ llm: { api: 'openai-chat', model: 'm', prompts: [] } }, 'llm.prompts');
  bad({ llm: { api: 'ollama-chat', model: 'm', prompts: ['a'], ignoreEos: true } }, 'llm.ignoreEos');
  bad({ llm: { api: 'openai-chat', model: 'm', prompts: ['a'], turns: 0 } }, 'llm.turns');
  bad({ llm: { api: 'openai-chat', model: 'm', synthetic: { inputTokens: { min: 9, max: 3 } } } }, 'llm.synthetic.inputTokens.max');
  bad({ llm: { api: 'openai-chat', model: 'm', synthetic: { inputTokens: 5, outputTokens: 5 }, maxTokens: 9 } }, 'llm.maxTokens');
  bad({ llm: { api: 'openai-chat', model: 'm', prompts: ['a'] }, body: 'x' }, 'body');
  bad({ llm: { api: 'openai-chat', model: 'm', prompts: ['a'] }, method: 'GET' }, 'method');
  bad({ slo: { ttft: 100 } }, 'slo');
  bad({ llm: { api: 'openai-chat', model: 'm', prompts: ['a'] }, slo: { ttft: -1 } }, 'slo.ttft');
  bad({ llm: { api: 'openai-chat', model: 'm', prompts: ['a'] }, slo: { p99: 1 } }, 'slo.p99');
  bad({ llm: { api: 'openai-chat', model: 'm', prompts: ['a'] }, slo: {} }, 'slo');
});

t.test('datasets: ShareGPT conversations (their user turns), chat messages and { prompt } entries', async (t) => {
  const prompts = readDataset(SAMPLE);
  t.same(prompts[1]!.turns, ['What is the difference between TCP and UDP?', 'When would I pick UDP?']);
  t.equal(prompts.filter((p) => p.turns.length > 1).length, 5, 'five multi-turn conversations');
});

t.test('prompts are dealt over workers and segments as rate slots are', async (t) => {
  const { plan } = planLoad({ url, connections: 12, amount: 120, workers: 3, llm: { api: 'openai-chat', model: 'm', prompts: ['a'] } });
  t.same(splitPlan(plan, 3).map((share) => [share.llm!.offset, share.llm!.stride]), [[0, 3], [1, 3], [2, 3]]);
  // Segment 1 of 2, then its 3 workers: offsets 1, 3, 5 of stride 6, as its rate slots 1 + 2j + 6k.
  const segment = segmentPlan(plan, { index: 1, count: 2 });
  t.same(splitPlan(segment, 3).map((share) => [share.llm!.offset, share.llm!.stride]), [[1, 6], [3, 6], [5, 6]]);
});

const planned = (overrides: Partial<PlannedLlm>): PlannedLlm => ({
  api: 'openai-chat', model: 'm', prompts: [{ turns: ['p0'] }, { turns: ['p1', 'p1b'] }, { turns: ['p2'] }], synthetic: undefined,
  maxTokens: 8, ignoreEos: true, turns: 1, usage: true, offset: 0, stride: 1, ...overrides,
});
const base = { method: 'POST', path: '/v1/chat/completions', headers: {}, body: undefined };
const bodyOf = (requests: LlmRequests, lane: number): Record<string, unknown> => JSON.parse(requests.next(lane).body!.toString()) as Record<string, unknown>;

t.test('request bodies: each API, prompts in the share\'s order, the conversation carried forward', async (t) => {
  const chat = new LlmRequests(planned({ offset: 1, stride: 2 }), base, 2);
  t.same(bodyOf(chat, 0), { model: 'm', messages: [{ role: 'user', content: 'p1' }], stream: true, stream_options: { include_usage: true }, max_tokens: 8, ignore_eos: true });
  t.same([0, 1, 0].map((lane) => (bodyOf(chat, lane).messages as Array<{ content: string }>)[0]!.content), ['p0', 'p2', 'p1'], 'the share\'s sessions 1, 3, 5, 7 of the run: prompts 1, 0, 2, 1');
  const completions = new LlmRequests(planned({ api: 'openai-completions', ignoreEos: false, usage: false, maxTokens: undefined }), base, 1);
  t.same(bodyOf(completions, 0), { model: 'm', prompt: 'p0', stream: true });
  const ollama = new LlmRequests(planned({ api: 'ollama-chat', ignoreEos: false }), base, 1);
  t.same(bodyOf(ollama, 0), { model: 'm', messages: [{ role: 'user', content: 'p0' }], stream: true, options: { num_predict: 8 } });

  const turns = new LlmRequests(planned({ turns: 3, offset: 1 }), base, 1);
  t.ok(turns.needsAnswers);
  bodyOf(turns, 0);
  turns.answered(0, 200, Buffer.from('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\ndata: {"choices":[{"delta":{"content":"lo"}}]}\n\ndata: [DONE]\n\n'));
  t.same(bodyOf(turns, 0).messages, [{ role: 'user', content: 'p1' }, { role: 'assistant', content: 'Hello' }, { role: 'user', content: 'p1b' }], 'turn 2 carries turn 1 and its answer');
  t.same(bodyOf(turns, 0).messages, [{ role: 'user', content: 'p2' }], 'no answer to turn 2 (it failed): a new session');
  t.equal(answerText('ollama-generate', Buffer.from('{"response":"a"}\n{"response":"b","done":false}\n{"done":true}\n')), 'ab');
});

t.test('synthetic prompts: lengths from the distribution, a shared prefix, the same for the same seed', async (t) => {
  const synthetic = { inputTokens: { min: 10, max: 20 }, outputTokens: { mean: 50, stddev: 10, min: 40, max: 60 }, sharedPrefix: 5, count: 100, seed: 7 };
  const prompts = Array.from({ length: 100 }, (_, i) => syntheticPrompt(synthetic, i));
  t.ok(prompts.every(({ text }) => { const n = text.split(' ').length; return n >= 10 && n <= 20; }), 'input 10 to 20 words');
  t.ok(prompts.every(({ outputTokens }) => outputTokens! >= 40 && outputTokens! <= 60), 'output within min and max');
  t.equal(new Set(prompts.map(({ text }) => text.split(' ').slice(0, 5).join(' '))).size, 1, 'one shared prefix');
  t.same(syntheticPrompt(synthetic, 3), prompts[3], 'the same again');
  t.not(syntheticPrompt({ ...synthetic, seed: 8 }, 3).text, prompts[3]!.text, 'another seed, another text');
  let draws = 0;
  const random = (): number => [0.5, 0.25][draws++ % 2]!;
  t.equal(drawCount(7, random), 7);
  t.equal(drawCount({ min: 1, max: 4 }, random), 3);
});

t.test('goodput: a stream counts when it met every objective given', async (t) => {
  const meter = new GoodputMeter({ ttft: 100, tpot: 10, itl: 30 }, 2);
  meter.reset(0);
  meter.gap(0, 20);
  t.equal(meter.judge(0, 50, 9, 900), true, 'met every objective (e2e not asked)');
  t.equal(meter.judge(0, 150, 9, 900), false, 'TTFT missed');
  t.equal(meter.judge(0, 50, 11, 900), false, 'TPOT missed');
  t.equal(meter.judge(0, 50, -1, 900), true, 'a single token has no TPOT to miss');
  t.equal(meter.judge(0, -1, -1, 900), false, 'no token: never good');
  meter.gap(1, 31);
  t.equal(meter.judge(1, 50, 9, 900), false, 'one inter-token gap over itl');
  t.equal(meter.requests, 2);

  const series = new StreamSeries({ tokens: true, delivery: false, goodput: true });
  const second = { events: 5, outputTokens: 5, streams: 2, firstEvent: '', gap: '', ttft: '', itl: '', delivery: '', good: 2 };
  const live = series.secondPoints(second);
  t.equal(live.find((p) => p.name === 'salvo_goodput_requests_total')?.value, 2, 'salvo_goodput_requests_total while the run goes');
  const end = series.resultPoints(undefined, { requests: 3, perSecond: 1, rate: 0.5, slo: { ttft: 1 } });
  t.equal(end.find((p) => p.name === 'salvo_goodput_requests_total')?.value, 3, 'exact from the result at its end');
});

t.test("toVllmJson: vLLM's field names, from the result's figures", async (t) => {
  const stats = (mean: number) => ({ min: 1, mean, stddev: 2, max: 9, p50: mean - 1, p75: mean, p90: mean + 1, p95: mean + 2, p99: mean + 3, p999: mean + 4 });
  const result = {
    durationMs: 2000, startedAt: Date.UTC(2026, 0, 1), connections: 8, rate: 4,
    requests: { sent: 12, completed: 11 }, errors: { total: 1 }, failed: { total: 2 }, latency: stats(500),
    timeline: [{ stream: { outputTokens: 300 } }, { stream: { outputTokens: 340 } }],
    stream: { inputTokens: 1000, outputTokens: 640, ttft: stats(50), tpot: stats(10), itl: stats(9) },
    goodput: { requests: 8, perSecond: 4, rate: 0.8, slo: { ttft: 100 } },
  } as unknown as LoadResult;
  const vllm = toVllmJson(result, { percentiles: [90, 99], modelId: 'llama' });
  t.match(vllm, {
    date: '2026-01-01T00:00:00.000Z', model_id: 'llama', duration: 2, completed: 10, failed: 2, num_prompts: 12, request_rate: 4, max_concurrency: 8,
    total_input_tokens: 1000, total_output_tokens: 640, request_throughput: 5, request_goodput: 4, output_throughput: 320, total_token_throughput: 820,
    max_output_tokens_per_s: 340, mean_ttft_ms: 50, median_ttft_ms: 49, std_ttft_ms: 2, p90_ttft_ms: 51, p99_ttft_ms: 53,
    mean_tpot_ms: 10, mean_itl_ms: 9, mean_e2el_ms: 500, p99_e2el_ms: 503,
  });
  t.equal(toVllmJson({ ...result, goodput: undefined, stream: undefined }).request_goodput, null, 'no slo: request_goodput null, as vLLM writes it');
});

t.test('the report leads with a goodput card', async (t) => {
  const stats = (p50: number) => ({ min: 1, p50, p75: p50, p90: p50, p99: p50, p999: p50, max: p50, mean: p50, stddev: 0 });
  const stream = { format: 'sse', events: 120, perSecond: 24, streams: 10, ended: 10, eventsPerStream: 12, firstEvent: stats(30), gap: stats(10), duration: stats(150), ttft: stats(31), itl: stats(9), tpot: stats(10), outputTokens: 110, outputTokensPerSecond: 22, outputTokensPerStream: 11 };
  const goodput = { requests: 7, perSecond: 1.4, rate: 0.7, slo: { ttft: 100, e2e: 2000 } };
  const html = streamCards({ stream, goodput } as unknown as LoadResult);
  t.match(html, /<div class="label">goodput\/s<\/div><div class="value">1\.4<\/div><div class="note">7 of 10 met the SLO<\/div>/);
  t.notMatch(streamCards({ stream } as unknown as LoadResult), 'goodput', 'no card without slo');
});
