// stats/stream-recorder.ts: one thread's streams: events, first events and gaps, tokens with TTFT and
// ITL spread over an event's tokens, ended streams, and the seconds the events fell in.
import t from 'tap';
import { decodeHistogram } from '../../src/stats/histogram.js';
import { StreamRecorder } from '../../src/stats/stream-recorder.js';

const count = (encoded: string | undefined) => (encoded === undefined || encoded === '' ? 0 : decodeHistogram(encoded).totalCount);
const p50Ms = (encoded: string) => decodeHistogram(encoded).getValueAtPercentile(50) / 1000;

t.test('two streams of three events: first events, gaps, durations, counts', async (t) => {
  const recorder = new StreamRecorder('sse', 0);
  for (const at of [100, 200]) {
    recorder.recordEvent(at, true, 30);
    recorder.recordEvent(at + 10, false, 10);
    recorder.recordEvent(at + 20, false, 10);
    recorder.recordStream(at + 20, 3, 0, 20, -1, true);
  }
  const shard = recorder.finish(500);
  t.same({ streams: shard.streams, ended: shard.ended, events: shard.events, streamEvents: shard.streamEvents }, { streams: 2, ended: 2, events: 6, streamEvents: 6 });
  t.equal(count(shard.histograms.firstEvent), 2);
  t.equal(count(shard.histograms.gap), 4);
  t.equal(count(shard.histograms.duration), 2);
  t.ok(Math.abs(p50Ms(shard.histograms.firstEvent) - 30) < 0.05);
  t.ok(Math.abs(p50Ms(shard.histograms.gap) - 10) < 0.05);
  t.equal(shard.histograms.ttft, undefined, 'no token figures without tokens');
  t.equal(shard.histograms.delivery, undefined);
  t.equal(shard.seconds.length, 1, 'a partial last second with events is kept');
  t.same({ events: shard.seconds[0]!.events, streams: shard.seconds[0]!.streams }, { events: 6, streams: 2 });
});

t.test('tokens: TTFT per stream, an event of k tokens after a gap g is k ITLs of g / k, corrections add', async (t) => {
  const recorder = new StreamRecorder('sse', 0, { tokens: true });
  recorder.recordTokens(50, 1, true, 40);
  recorder.recordTokens(70, 4, false, 20);
  recorder.correctTokens(80, 2);
  recorder.recordStream(80, 2, 5, 30, 6, true);
  const shard = recorder.finish(100);
  t.equal(shard.outputTokens, 7, '1 + 4 + 2 from the server’s count');
  t.equal(count(shard.histograms.ttft), 1);
  t.equal(count(shard.histograms.itl), 4, 'four ITL values for the event of four tokens');
  t.ok(Math.abs(p50Ms(shard.histograms.itl!) - 5) < 0.05, 'each 20 / 4 = 5 ms');
  t.equal(count(shard.histograms.tpot), 1);
  t.equal(shard.streamOutputTokens, 5);
});

t.test('seconds: events roll the seconds on; a live recorder keeps each second’s gaps and deliveries', async (t) => {
  const recorder = new StreamRecorder('ndjson', 1000, { live: true, delivery: true });
  recorder.recordEvent(1100, true, 5);
  recorder.recordEvent(1200, false, 100);
  recorder.recordDelivery(2);
  recorder.recordEvent(3500, false, 2300);
  t.same([recorder.second(0).events, recorder.second(1).events], [2, 0], 'second 1 had no event');
  t.equal(count(recorder.second(0).gap), 1);
  t.equal(count(recorder.second(0).delivery), 1);
  t.equal(recorder.second(1).firstEvent, '', 'a second that timed nothing has no histogram');
  const shard = recorder.finish(3600);
  t.equal(shard.seconds.length, 3);
  t.equal(shard.seconds[2]!.events, 1);
  t.equal(count(shard.seconds[2]!.gap), 1);
  const quiet = new StreamRecorder('sse', 0);
  quiet.recordEvent(100, true, 1);
  quiet.recordEvent(200, false, 100);
  t.equal(quiet.second(0).gap, '', "without live, a second's gaps are not kept twice");
  t.equal(count(quiet.finish(300).histograms.gap), 1, 'the run’s gaps are');
});
