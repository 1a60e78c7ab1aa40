// report/stream-section.ts: a stream run's cards (first event and gaps, or TTFT and ITL with tokens,
// or subscriptions) and its table of figures with the counts.
import t from 'tap';
import { streamCards, streamSection } from '../../src/report/stream-section.js';
import type { LoadResult } from '../../src/shared/load-result.js';

const stats = (p50: number, p99: number) => ({ min: 1, p50, p75: p50, p90: p99, p99, p999: p99, max: p99, mean: p50 });
const cardsOf = (html: string) => [...html.matchAll(/<div class="label">(.*?)<\/div><div class="value">(.*?)<\/div>(?:<div class="note">(.*?)<\/div>)?/g)].map((m) => [m[1], m[2], m[3]]);
const base = { format: 'sse', events: 1200, perSecond: 240, streams: 100, ended: 100, eventsPerStream: 12, firstEvent: stats(30, 45), gap: stats(10, 14), duration: stats(150, 170) };

t.test('no stream: nothing', async (t) => {
  t.equal(streamCards({} as LoadResult), '');
  t.equal(streamSection({ stream: { events: 'x' } } as unknown as LoadResult), '', 'a stream read back without its counts is none');
});

t.test('events without tokens: first event, gaps, events/s, streams', async (t) => {
  const result = { stream: base } as unknown as LoadResult;
  t.same(cardsOf(streamCards(result)), [
    ['first event p99', '45 ms', 'p50 30 ms'],
    ['gap p50', '10 ms', 'p99 14 ms'],
    ['events/s', '240', '12 per ended stream'],
    ['streams', '100', '1,200 events'],
  ]);
  const section = streamSection(result);
  t.match(section, '<h2 id="stream-title">Streams (sse)</h2>');
  t.match(section, '1,200 events (240/s); 100 streams ended (12 events each), 100 by until');
  t.notMatch(section, 'TTFT', 'no token rows');
  t.match(section, /<th[^>]*>p99\.9<\/th>/);
});

t.test('with tokens: TTFT and ITL first, output tokens in the counts', async (t) => {
  const result = { stream: { ...base, ttft: stats(31, 47), itl: stats(9.5, 13), tpot: stats(10, 12), outputTokens: 1100, outputTokensPerSecond: 220, outputTokensPerStream: 11 } } as unknown as LoadResult;
  t.same(cardsOf(streamCards(result)).map((card) => card[0]), ['TTFT p99', 'ITL p50', 'output tokens/s', 'first event p99', 'streams']);
  t.same(cardsOf(streamCards(result))[1], ['ITL p50', '9.5 ms', 'p99 13 ms']);
  t.match(streamSection(result), '1,100 output tokens (220/s, 11 per ended stream)');
});

t.test('subscriptions: events/s, delivery, subscriptions open, closes by cause', async (t) => {
  const result = { stream: { ...base, delivery: stats(2, 5), subscriptions: { subscribed: 50, open: 48, reconnects: 7, closes: { ended: 5, error: 2 } } } } as unknown as LoadResult;
  t.same(cardsOf(streamCards(result)).map((card) => card[0]), ['events/s', 'delivery p99', 'subscriptions open', 'first event p99', 'gap p50']);
  t.same(cardsOf(streamCards(result))[2], ['subscriptions open', '48', '50 accepted, 7 reconnections']);
  t.match(streamSection(result), '50 subscriptions accepted, 48 open at the end, 7 reconnections, closes: 5 ended, 2 error');
});
