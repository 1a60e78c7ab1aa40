// stats/stream-merge.ts: threads' streams merged exactly (counts added, histograms added, seconds
// onto the timeline), and a merged result read back as the shard it came from (merging again gives
// the same numbers).
import t from 'tap';
import type { TimelineEntry } from '../../src/shared/load-result.js';
import { StreamRecorder } from '../../src/stats/stream-recorder.js';
import { mergeStream, streamAsShard } from '../../src/stats/stream-merge.js';

/** A thread's streams: `streams` of `events` events, first events at `firstMs`, 10 ms gaps, one token an event. */
function shard(streams: number, events: number, firstMs: number) {
  const recorder = new StreamRecorder('sse', 0, { tokens: true });
  for (let s = 0; s < streams; s++) {
    const at = 100 + s * 300;
    recorder.recordEvent(at, true, firstMs);
    recorder.recordTokens(at, 1, true, firstMs);
    for (let e = 1; e < events; e++) {
      recorder.recordEvent(at + e * 10, false, 10);
      recorder.recordTokens(at + e * 10, 1, false, 10);
    }
    recorder.recordStream(at + events * 10, events, events, (events - 1) * 10, 10, s % 2 === 0);
  }
  return recorder.finish(2000);
}
const timeline = (seconds: number) => Array.from({ length: seconds }, (_, second) => ({ second }) as TimelineEntry);

t.test('counts added, per-stream means over both threads, latencies from the added histograms', async (t) => {
  const line = timeline(2);
  const merged = mergeStream([shard(4, 5, 20), undefined, shard(2, 8, 60)], 2000, line)!;
  const { stream } = merged;
  t.same({ streams: stream.streams, ended: stream.ended, events: stream.events, outputTokens: stream.outputTokens }, { streams: 6, ended: 3, events: 36, outputTokens: 36 });
  t.equal(stream.perSecond, 18, '36 events in 2 s');
  t.equal(stream.eventsPerStream, 6, '(4 x 5 + 2 x 8) / 6');
  t.equal(stream.outputTokensPerStream, 6);
  t.equal(stream.firstEvent.min, 20);
  t.ok(Math.abs(stream.firstEvent.max - 60) < 0.1, `the slower thread’s first events are in the merged histogram (max ${stream.firstEvent.max} ms)`);
  t.ok(Math.abs(stream.ttft!.p50 - 20) < 0.05, 'TTFT p50: 4 of 6 streams at 20 ms');
  t.ok(Math.abs(stream.gap.p50 - 10) < 0.05, `gap p50 ${stream.gap.p50} ms`);
  t.ok(line[0]!.stream !== undefined && line[1]!.stream !== undefined, 'each second of the timeline gets its streams');
  t.equal(line[0]!.stream!.events + line[1]!.stream!.events, 36, "the seconds' events add up to the run's");
  t.equal(mergeStream([undefined], 1000, timeline(1)), undefined, 'no shard streamed: undefined');
});

t.test('a merged result read back as a shard merges to the same numbers, its seconds shifted', async (t) => {
  const line = timeline(2);
  const first = mergeStream([shard(3, 4, 25)], 2000, line)!;
  const back = streamAsShard(first.stream, first.info, line, 1)!;
  t.equal(back.seconds.length, 3, 'one second of shift, then its two');
  t.same(back.seconds[0], { events: 0, outputTokens: 0, firstEvent: '', ttft: '', streams: 0, gap: '', itl: '', delivery: '' });
  t.same([back.streams, back.events, back.streamEvents, back.streamOutputTokens], [3, 12, 12, 12]);
  const again = mergeStream([back], 2000, timeline(3))!.stream;
  t.same([again.streams, again.events, again.eventsPerStream, again.firstEvent.p50, again.ttft?.p50], [3, 12, 4, first.stream.firstEvent.p50, first.stream.ttft?.p50]);
  t.equal(streamAsShard(undefined, first.info, line, 0), undefined);
});
