// Goodput by second: each `result.timeline` second's `stream.good` counts the streams that ended in
// it having met every objective, added up exactly over worker threads and mergeResults, and the
// seconds add up to `result.goodput.requests`. And salvo capacity passes --llm-slo to each step
// (findCapacity's requestSlo), so its --slo can read goodput.
import t from 'tap';
import { mergeResults, runLoad } from '../../src/index.js';
import type { LoadResult } from '../../src/index.js';
import { startBatchServer } from '../fixtures/llm-batch-server.js';
import { runSalvo } from '../fixtures/cli.js';
import { streamCharts } from '../../src/report/stream-section.js';

const goodBySecond = (result: LoadResult): Array<number | undefined> => result.timeline.map((entry) => entry.stream?.good);
const total = (values: Array<number | undefined>): number => values.reduce<number>((sum, v) => sum + (v ?? 0), 0);

t.test('timeline seconds carry goodput, merged exactly over workers and results', async (t) => {
  // 20-word prompts (2 ms prefill) with 2 output tokens meet TTFT 10 ms; 300-word ones (30 ms) never do.
  const server = await startBatchServer({ slots: 64, prefillMsPerToken: 0.1, decodeMs: 1, defaultOutputTokens: 2 });
  t.teardown(() => server.close());
  const prompt = (n: number, words: number): string => `q${n}` + ' word'.repeat(words - 1);
  const llm = { api: 'openai-completions' as const, model: 'm', prompts: [prompt(0, 20), prompt(1, 300)], maxTokens: 2 };
  const result = await runLoad({ url: server.url, workers: 2, connections: 8, rate: 40, duration: 2500, llm, slo: { ttft: 10 } });
  const applied = server.applied();
  const good = goodBySecond(result);
  t.ok(result.timeline.length >= 2, `${result.timeline.length} seconds`);
  t.ok(good.every((count) => typeof count === 'number'), 'every second has its goodput count, 0 included');
  t.equal(total(good), result.goodput!.requests, `the seconds add up to goodput.requests (${result.goodput!.requests})`);
  t.ok(result.goodput!.requests > 0 && result.goodput!.requests < result.stream!.ended, 'some met the SLO, some did not');
  t.ok(result.goodput!.requests <= applied.filter((r) => r.prompt.startsWith('q0')).length, 'only short prompts count');

  const chart = streamCharts(result).find((spec) => spec.id === 'chart-stream');
  const drawn = chart?.series.find((series) => series.label === 'goodput')?.values;
  t.same(drawn?.slice(0, -1), good.slice(0, -1), "the report's stream chart draws each second's goodput");
  const merged = mergeResults([result, result]);
  t.same(goodBySecond(merged), good.map((count) => 2 * count!), 'mergeResults adds each second\'s goodput');
  const saved = JSON.parse(JSON.stringify(result)) as LoadResult;
  t.same(goodBySecond(mergeResults([saved, saved])), good.map((count) => 2 * count!), 'and from saved JSON');

  const plain = await runLoad({ url: server.url, connections: 2, amount: 4, llm });
  t.ok(plain.timeline.every((entry) => entry.stream !== undefined && entry.stream.good === undefined), 'no slo: no goodput in the timeline');
});

t.test("salvo capacity --llm-slo: each step judges goodput, and --slo 'goodput.rate>=0.9' reads it", async (t) => {
  const server = await startBatchServer({ slots: 64, prefillMsPerToken: 0, decodeMs: 0, defaultOutputTokens: 2 });
  t.teardown(() => server.close());
  const llm = ['--llm', 'openai-completions', '--llm-model', 'm', '--llm-input', '5', '--llm-output', '2'];
  const search = ['--start', '10', '--max', '20', '--step-duration', '500ms', '--warmup', '0', '--pause', '0', '--confirm-duration', '0', '--json'];
  const run = await runSalvo(['capacity', server.url, ...llm, '--llm-slo', 'e2e=5000', '--slo', 'goodput.rate>=0.9', ...search]);
  t.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout) as { capacity: number; steps: Array<{ result: LoadResult; passed: boolean }> };
  t.ok(result.steps.length >= 2 && result.steps.every((step) => step.passed && step.result.goodput?.slo.e2e === 5000), 'every step judged its answers against --llm-slo and passed on goodput');
  t.equal(result.capacity, 20);
  const refused = await runSalvo(['capacity', server.url, ...llm, '--slo', 'goodput.rate>=0.9', ...search]);
  t.equal(refused.code, 2, 'a goodput objective without --llm-slo is refused');
  t.match(refused.stderr, /--slo on goodput needs each request's objectives: give --llm-slo/);
});
