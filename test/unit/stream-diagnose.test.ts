// stats/stream-diagnose.ts: the warnings of a stream run that measured nothing of what it was asked
// (no events, no tokens, an until that never came) and why a stream threshold has no value.
import t from 'tap';
import type { LoadResult } from '../../src/shared/load-result.js';
import type { Plan } from '../../src/shared/plan.js';
import { missingStreamFigure, streamDiagnostics } from '../../src/stats/stream-diagnose.js';

const run = (stream: Partial<NonNullable<LoadResult['stream']>>, completed = 10) =>
  ({ warnings: [], requests: { completed }, stream: { streams: 10, events: 0, ended: 0, ...stream } }) as unknown as LoadResult;
const plan = (stream: Record<string, unknown>) => ({ stream: { format: 'sse', until: undefined, untilFunction: false, tokensPath: undefined, subscribe: false, ...stream } }) as unknown as Plan;
const codes = (result: LoadResult) => result.warnings.map((warning) => warning.code);

t.test('no events in any completed response: STREAM_NO_EVENTS naming the count and the format, and nothing else', async (t) => {
  const result = run({}, 12);
  streamDiagnostics(result, plan({ tokensPath: ['choices', '0', 'delta', 'content'], until: '[DONE]' }));
  t.same(codes(result), ['STREAM_NO_EVENTS']);
  t.match(result.warnings[0]?.message, /^12 responses had no event with format 'sse' \(no `data:` line/);
  const ndjson = run({}, 3);
  streamDiagnostics(ndjson, plan({ format: 'ndjson' }));
  t.match(ndjson.warnings[0]?.message, "3 responses had no event with format 'ndjson' (no non-blank line)");
  const none = run({}, 0);
  streamDiagnostics(none, plan({}));
  t.same(codes(none), [], 'no completed response: nothing to say');
});

t.test('events but no token, and an until that never matched', async (t) => {
  const result = run({ events: 40, outputTokens: 0, streams: 8, ended: 0 });
  streamDiagnostics(result, plan({ tokensPath: ['message', 'content'], until: '[DONE]' }));
  t.same(codes(result), ['STREAM_NO_TOKENS', 'STREAM_UNTIL_NEVER']);
  t.match(result.warnings[0]?.message, "stream.tokens 'message.content' found no token in 40 events");
  t.match(result.warnings[1]?.message, "stream.until '[DONE]' matched no event of 8 streams");
  const fn = run({ events: 40, streams: 8, ended: 0 });
  streamDiagnostics(fn, plan({ untilFunction: true }));
  t.match(fn.warnings[0]?.message, 'stream.until the function matched no event');
  const fine = run({ events: 40, outputTokens: 40, streams: 8, ended: 1 });
  streamDiagnostics(fine, plan({ tokensPath: ['t'], until: '[DONE]' }));
  t.same(codes(fine), [], 'one ended stream and one token are enough');
  const subscribed = run({}, 5);
  streamDiagnostics(subscribed, plan({ subscribe: true }));
  t.same(codes(subscribed), [], 'subscriptions are judged elsewhere');
});

t.test('missingStreamFigure: why a stream threshold has no value', async (t) => {
  t.same(missingStreamFigure('latency.p99', {}), {});
  t.match(missingStreamFigure('stream.gap.p99', {}).message, 'needs the stream option');
  const noTokens = { stream: { ttft: undefined, delivery: undefined } } as unknown as Pick<LoadResult, 'stream'>;
  t.match(missingStreamFigure('stream.ttft.p99', noTokens).message, /^stream\.ttft\.p99 needs stream\.tokens/);
  t.match(missingStreamFigure('stream.outputTokensPerSecond', noTokens).message, 'needs stream.tokens');
  t.match(missingStreamFigure('stream.delivery.p50', noTokens).message, 'needs stream.timestamp');
  t.same(missingStreamFigure('stream.gap.p99', noTokens), {}, 'a figure every stream run has');
  t.same(missingStreamFigure('stream.ttftish', noTokens), {}, 'a prefix of a figure is not the figure');
});
