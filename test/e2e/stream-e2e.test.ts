import t from 'tap';
import { compareResults, formatResult, mergeResults, runLoad } from '../../src/index.js';
import type { TransportName } from '../../src/shared/terms.js';
import { inSomeRun } from '../fixtures/timing.js';
import { separateStreamServer } from '../fixtures/separate-stream-server.js';

const DELAY_MS = 30;
const INTERVAL_MS = 10;
const EVENTS = 6;
const AMOUNT = 12;

for (const transport of ['net', 'undici', 'http', 'h2'] as TransportName[]) {
  t.test(`${transport}: time to first event, gaps, events and tokens of SSE streams against a server of known timing`, async (t) => {
    const server = await separateStreamServer(t, { format: 'sse', delayMs: DELAY_MS, intervalMs: INTERVAL_MS, events: EVENTS, h2: transport === 'h2' });
    await inSomeRun(t, 6, async (timing) => {
      const result = await runLoad({
        url: server.url,
        transport,
        connections: 2,
        amount: AMOUNT,
        stream: { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content', timestamp: { field: 't' } },
      });
      const applied = await server.applied();
      const stream = result.stream!;
      t.equal(result.requests.completed, AMOUNT, 'every stream completed');
      t.equal(result.errors.total, 0, 'no errors');
      t.equal(stream.streams, AMOUNT);
      t.equal(stream.ended, AMOUNT, 'every stream ended at [DONE]');
      t.equal(stream.events, AMOUNT * EVENTS, 'every event counted, the [DONE] marker not');
      t.equal(applied.events, AMOUNT * EVENTS);
      // The body ends right after [DONE]: read to its end, each connection carries the next stream.
      t.equal(applied.connections, 2, 'the server saw two connections for twelve streams');
      t.equal(stream.outputTokens, AMOUNT * EVENTS, 'one token per chunk, none for [DONE]');
      t.equal(stream.outputTokensPerStream, EVENTS);
      // The server's timer counts from libuv's loop time, read before the request was: it can fire a fraction of a ms early.
      t.ok(stream.firstEvent.min >= DELAY_MS - 1, `first event never before the server's delay (${stream.firstEvent.min} ms)`);
      timing.hostKept(applied.firstEventMs < DELAY_MS + 3, `the host let the server keep its delay (${applied.firstEventMs.toFixed(3)} ms)`);
      // A loaded host adds a few ms to any read; taking the head for the first event is 30 ms early
      // (the mean claim), the body's end 60 ms late. A new connection per stream is the count above.
      const tolerance = 5;
      timing.ok(stream.firstEvent.mean >= applied.firstEventMs - 0.1, `first event mean ${stream.firstEvent.mean.toFixed(3)} ms not below the server's ${applied.firstEventMs.toFixed(3)} ms`);
      timing.ok(stream.firstEvent.p50 - applied.firstEventMs < tolerance, `first event p50 ${stream.firstEvent.p50} ms within ${tolerance} ms of the server's ${applied.firstEventMs.toFixed(3)} ms`);
      timing.ok(Math.abs(stream.ttft!.mean - stream.firstEvent.mean) < 0.01, 'TTFT is the first event: it carries a token');
      timing.ok(Math.abs(stream.gap.mean - applied.gapMs) < 1, `gap mean ${stream.gap.mean.toFixed(3)} ms within 1 ms of the server's ${applied.gapMs.toFixed(3)} ms`);
      timing.ok(Math.abs(stream.itl!.mean - applied.gapMs) < 1, `ITL mean ${stream.itl!.mean.toFixed(3)} ms within 1 ms of it`);
      // From the server's wall clock (another process's performance.timeOrigin) to this one's.
      timing.ok(stream.delivery!.p50 < 3, `delivery p50 from the events' own timestamps ${stream.delivery!.p50} ms`);
      timing.ok(Math.abs(stream.tpot!.mean - applied.gapMs * EVENTS / (EVENTS - 1)) < 1, `TPOT ${stream.tpot!.mean.toFixed(3)} ms: to [DONE], over the tokens after the first`);
    });
  });
}

t.test('NDJSON to the body\'s end, thresholds on stream figures, and the summary', async (t) => {
  const server = await separateStreamServer(t, { format: 'ndjson', delayMs: 5, intervalMs: 2, events: 4 });
  const result = await runLoad({
    url: server.url,
    connections: 1,
    amount: 5,
    stream: { format: 'ndjson', tokens: 'choices.0.delta.content' },
    thresholds: { 'stream.firstEvent.p99': '< 5000', 'stream.events': '== 20', 'stream.ttft.max': '< 1' },
  });
  const stream = result.stream!;
  t.equal(stream.events, 20, 'the four lines of each of five responses');
  t.equal(stream.ended, 0, 'no until: each ran to its end');
  t.equal(stream.streams, 5);
  t.equal(stream.outputTokens, 20);
  t.same(result.thresholds!.map((r) => [r.metric, r.passed]), [['stream.firstEvent.p99', true], ['stream.events', true], ['stream.ttft.max', false]]);
  t.equal(result.ok, false);
  const summary = formatResult(result);
  t.match(summary, /Stream ndjson \(ms\)/);
  t.match(summary, /^TTFT\s/m);
  t.match(summary, /Events\s+20, [\d.]+\/s; 5 streams ended \(4\.00 events each\), 0 by until/);
  t.equal(result.timeline.reduce((sum, second) => sum + (second.stream?.events ?? 0), 0), 20, 'the timeline\'s seconds add up to the events');
});

t.test('chunks, a function until, and workers merged exactly (mergeResults too)', async (t) => {
  const server = await separateStreamServer(t, { format: 'sse', delayMs: 1, intervalMs: 1, events: 3 });
  let calls = 0;
  const chunks = await runLoad({
    url: server.url,
    connections: 1,
    amount: 3,
    stream: { format: 'sse', until: (event) => (calls++, event.data === '[DONE]') },
  });
  t.equal(chunks.stream!.ended, 3);
  t.equal(calls, 12, 'the function saw every event');
  const split = await runLoad({ url: server.url, connections: 4, workers: 2, amount: 8, stream: { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' } });
  t.equal(split.stream!.events, 8 * 3, 'three events a stream, the marker not counted');
  t.equal(split.stream!.outputTokens, 8 * 3);
  const merged = mergeResults([split, split]);
  t.equal(merged.stream!.events, 2 * 8 * 3, 'mergeResults adds the events');
  t.equal(merged.stream!.firstEvent.max, split.stream!.firstEvent.max, 'and the histograms: the max stays');
  t.equal(merged.stream!.outputTokens, 2 * 8 * 3);
});

t.test('a bad stream option is an error naming it', async (t) => {
  await t.rejects(runLoad({ url: 'http://127.0.0.1:1/', stream: { format: 'xml' as 'sse' } }), { code: 'SALVO_INVALID_OPTION', option: 'stream.format' });
  await t.rejects(runLoad({ url: 'http://127.0.0.1:1/', stream: { format: 'sse', tokens: '' } }), { code: 'SALVO_INVALID_OPTION', option: 'stream.tokens' });
  await t.rejects(runLoad({ url: 'http://127.0.0.1:1/', workers: 2, connections: 2, stream: { format: 'sse', until: () => true } }), { code: 'SALVO_INVALID_OPTION', option: 'stream.until' });
  await t.rejects(runLoad({ url: 'http://127.0.0.1:1/', stream: { format: 'sse', extra: 1 } as never }), /stream/);
});

t.test('per request name: each name\'s streams, adding up to the run, and merged again', async (t) => {
  const short = await separateStreamServer(t, { format: 'sse', delayMs: 1, intervalMs: 1, events: 2 });
  const result = await runLoad({
    url: short.url,
    connections: 2,
    amount: 10,
    requests: [{ name: 'chat', path: '/stream?a' }, { name: 'other', path: '/stream?b' }],
    stream: { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' },
  });
  const chat = result.byName!.chat!.stream!;
  const other = result.byName!.other!.stream!;
  t.equal(chat.streams + other.streams, 10);
  t.equal(chat.events + other.events, result.stream!.events, 'the names add up to the run');
  t.equal(chat.outputTokens! + other.outputTokens!, 10 * 2);
  t.equal(chat.events, chat.streams * 2);
  const merged = mergeResults([result, result]);
  t.equal(merged.byName!.chat!.stream!.events, 2 * chat.events, 'mergeResults merges each name\'s streams');
  const compared = compareResults([result, result], [result, result]).rows.map((row) => row.metric);
  t.ok(['stream.firstEvent.p99', 'stream.gap.p99', 'stream.ttft.p99', 'stream.itl.p50', 'stream.outputTokensPerSecond'].every((m) => compared.includes(m)), 'compareResults compares streamed runs by their stream figures');
});

t.test('the per-stream means count ended streams only: a duration run ends with streams still open', async (t) => {
  const server = await separateStreamServer(t, { format: 'sse', delayMs: 1, intervalMs: 15, events: 8 });
  // 8 tokens 15 ms apart: each stream lasts about 135 ms, so the end of the run finds each connection's stream open.
  const result = await runLoad({ url: server.url, connections: 3, workers: 2, duration: '1s', requests: [{ name: 'a' }, { name: 'b' }], stream: { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' } });
  const stream = result.stream!;
  t.ok(stream.streams > 10, `${stream.streams} streams ended`);
  t.equal(stream.eventsPerStream, 8, 'each ended stream had 8 tokens; [DONE] is no event');
  t.equal(stream.outputTokensPerStream, 8);
  t.ok(stream.outputTokens! >= stream.streams * 8, `the totals count every token received (${stream.outputTokens} for ${stream.streams} ended streams)`);
  t.ok(stream.events >= stream.streams * 8);
  for (const name of ['a', 'b']) {
    t.equal(result.byName![name]!.stream!.eventsPerStream, 8, `${name}: ended streams only`);
    t.equal(result.byName![name]!.stream!.outputTokensPerStream, 8);
  }
  const merged = mergeResults([result, result]);
  t.equal(merged.stream!.eventsPerStream, 8, 'mergeResults keeps it exact');
  t.equal(merged.stream!.outputTokensPerStream, 8);
  t.equal(merged.byName!.a!.stream!.outputTokensPerStream, 8);
  t.equal(merged.stream!.outputTokens, 2 * stream.outputTokens!);
  const ttftP99 = (r: typeof result) => r.timeline.map((second) => second.stream!.ttftP99);
  t.ok(ttftP99(result).every((ms) => ms! >= 1), `each second's TTFT p99, over both threads: ${ttftP99(result).join(', ')} ms`);
  t.same(ttftP99(merged), ttftP99(result), 'and merged again: the same histograms twice, the same p99s');
});
