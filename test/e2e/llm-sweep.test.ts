// A sweep against an engine-shaped LLM server in its own process (llm-batch-server.ts: 4 batch slots,
// a known prefill and decode time): with `llm` and `slo`, the knee by goodput falls where the batch
// slots run out, and the page draws goodput and the token figures by load. findCapacity with the
// run's objectives as requestSlo finds the rate whose goodput holds, under the slots' capacity.
import t from 'tap';
import { findCapacity, sweep } from '../../src/index.js';
import { renderSweepReport } from '../../src/report/index.js';
import { separateLlmServer } from '../fixtures/separate-llm-server.js';
import { inSomeRun } from '../fixtures/timing.js';

// 4 slots; a prompt of 2 words (0.2 ms prefill), then 6 tokens 8 ms apart: each request holds a slot
// about 40 ms, so the slots serve at most 4 / 0.04 = 100 requests a second (less by the timers' slack).
const SLOTS = 4;
const OUTPUT = 6;
const DECODE_MS = 8;
const PREFILL_MS_PER_TOKEN = 0.1;
const SERVICE_MS = 2 * PREFILL_MS_PER_TOKEN + (OUTPUT - 1) * DECODE_MS;
const CAPACITY = (SLOTS * 1000) / SERVICE_MS;
const STEP = 20;
const RATES = [40, 60, 80, 100, 120, 140];
// Where the slots run out: the last step under their capacity (80/s).
const EXPECTED = Math.max(...RATES.filter((rate) => rate < CAPACITY));
// A request that waited for a slot a whole service misses the TTFT objective: under capacity few
// wait that long; over it the queue grows without end and soon none meets it.
const slo = { ttft: SERVICE_MS };

t.test(`a Poisson rate sweep with llm and slo over 4 batch slots: the knee by goodput within one step of ${EXPECTED}/s, where they run out`, async (t) => {
  const server = await separateLlmServer(t, { slots: SLOTS, prefillMsPerToken: PREFILL_MS_PER_TOKEN, decodeMs: DECODE_MS, defaultOutputTokens: OUTPUT });
  const llm = { api: 'openai-chat' as const, model: 'engine', prompts: ['hello there'], maxTokens: OUTPUT, ignoreEos: true };
  await inSomeRun(t, 3, async (timing) => {
    const result = await sweep({
      url: server.url,
      llm,
      slo,
      arrivals: 'poisson',
      connections: 64,
      sweep: { rates: RATES },
      stepDuration: 1500,
      warmup: 300,
      pause: 200,
    });
    await server.applied();
    const summary = result.points
      .map((p) => `${p.load}: ${p.throughput.toFixed(0)}/s good ${p.goodput?.toFixed(0)}/s TTFT p99 ${p.result.stream?.ttft?.p99.toFixed(1)} ms`)
      .join(', ');
    t.equal(result.over, 'rate');
    t.ok(result.points.every((p) => p.goodput !== undefined && p.result.goodput?.slo.ttft === slo.ttft), 'every point carries its goodput');
    const knee = result.knee === undefined ? undefined : result.points[result.knee]!.load;
    timing.ok(result.kneeMethod === 'goodput' && knee !== undefined && Math.abs(knee - EXPECTED) <= STEP, `knee by ${result.kneeMethod} at ${knee} req/s, within one step (${STEP}/s) of ${EXPECTED}/s, the last step under the slots' ${CAPACITY.toFixed(1)}/s (${summary})`);
    timing.ok(result.saturatedAt !== undefined && result.saturatedAt > EXPECTED && result.saturatedAt <= EXPECTED + 3 * STEP, `saturated at ${result.saturatedAt} req/s: ${result.points.at(-1)?.why}`);
    const page = renderSweepReport(result);
    t.match(page, /id="chart-sweep-throughput"/);
    t.match(page, /goodput/, 'the throughput chart draws goodput');
    t.match(page, /id="chart-sweep-tokens"/, 'the token chart by load');
    t.match(page, /TTFT/);
    t.match(page, /TPOT/);
    t.match(page, /highest goodput/, 'the knee named by goodput');
  });
});

t.test(`findCapacity on goodput (requestSlo, 'goodput.rate >= 0.9') over 4 batch slots: a rate under their ${CAPACITY.toFixed(1)}/s, over a third of it`, async (t) => {
  const server = await separateLlmServer(t, { slots: SLOTS, prefillMsPerToken: PREFILL_MS_PER_TOKEN, decodeMs: DECODE_MS, defaultOutputTokens: OUTPUT });
  const llm = { api: 'openai-chat' as const, model: 'engine', prompts: ['hello there'], maxTokens: OUTPUT, ignoreEos: true };
  await inSomeRun(t, 3, async (timing) => {
    const result = await findCapacity({
      url: server.url,
      llm,
      // Two services' wait: a busy host's stalls stay under it, a queue that grows without end soon does not.
      requestSlo: { ttft: 2 * SERVICE_MS },
      slo: { 'goodput.rate': '>= 0.9' },
      arrivals: 'poisson',
      connections: 64,
      start: 25,
      max: 400,
      precision: 0.2,
      stepDuration: 1500,
      warmup: 300,
      pause: 200,
      confirmDuration: 0,
    });
    await server.applied();
    const steps = result.steps.map((step) => `${step.rate}: ${step.passed ? 'pass' : `fail (${step.limitedBy}: ${step.failures.join('; ')})`} goodput.rate ${step.result.goodput?.rate.toFixed(2)}`).join(', ');
    t.ok(result.steps.every((step) => step.result.goodput?.slo.ttft === 2 * SERVICE_MS), "every step's result judged its requests against requestSlo");
    t.ok(result.steps.some((step) => !step.passed), 'some step missed the goodput objective');
    timing.ok(result.capacity !== undefined && result.capacity >= CAPACITY / 3 && result.capacity < CAPACITY, `capacity ${result.capacity} req/s: over a third of the slots' ${CAPACITY.toFixed(1)}/s and under it (${steps})`);
  });
});
