// stats/token-recorder.ts: a thread's reasoning and input tokens, streams with usage, and the time
// to the first answer token as a histogram.
import t from 'tap';
import { decodeHistogram } from '../../src/stats/histogram.js';
import { TokenRecorder } from '../../src/stats/token-recorder.js';

t.test('usage counts add, a missing input (-1) adds nothing, a reasoning correction may be negative', async (t) => {
  const recorder = new TokenRecorder();
  recorder.recordUsage(120, 4);
  recorder.recordUsage(-1, -2);
  recorder.recordUsage(30, 0);
  const figures = recorder.finish();
  t.same({ reasoningTokens: figures.reasoningTokens, inputTokens: figures.inputTokens, usageStreams: figures.usageStreams }, { reasoningTokens: 2, inputTokens: 150, usageStreams: 3 });
});

t.test('answer TTFT: each stream once, in µs, a negative time as 0', async (t) => {
  const recorder = new TokenRecorder();
  for (const ms of [10, 20, 30, 40]) recorder.recordAnswer(ms);
  recorder.recordAnswer(-5);
  const histogram = decodeHistogram(recorder.finish().answerTtft);
  t.equal(histogram.totalCount, 5);
  t.equal(histogram.getValueAtPercentile(10), 0, 'the negative one is recorded as 0');
  const max = histogram.maxValue / 1000;
  t.ok(max >= 39.9 && max <= 40.1, `max ${max} ms is the 40 ms stream`);
  const p50 = histogram.getValueAtPercentile(50) / 1000;
  t.ok(p50 >= 19.9 && p50 <= 20.1, `p50 ${p50} ms`);
});
