// outputs/stream-series.ts: a stream run's Prometheus series: counters summed over the seconds and
// set exact at the end, and each second's quantiles in seconds.
import t from 'tap';
import { StreamSeries } from '../../src/outputs/stream-series.js';
import type { ShardStreamSecond } from '../../src/shared/stream.js';
import { createHistogram, encodeHistogram } from '../../src/stats/histogram.js';

const encoded = (us: number[]) => {
  const histogram = createHistogram();
  for (const value of us) histogram.recordValue(value);
  const text = encodeHistogram(histogram);
  histogram.destroy();
  return text;
};
const second = (events: number, streams: number, outputTokens: number, over: Partial<ShardStreamSecond> = {}) =>
  ({ events, streams, outputTokens, firstEvent: '', gap: '', ttft: '', itl: '', delivery: '', ...over }) as ShardStreamSecond;
const value = (points: ReturnType<StreamSeries['secondPoints']>, name: string, quantile?: string) =>
  points.find((point) => point.name === name && (quantile === undefined || point.label?.[1] === quantile))?.value;

t.test('counters add up over the seconds, then take the merged result’s exact totals', async (t) => {
  const series = new StreamSeries({ tokens: true, delivery: false });
  series.secondPoints(second(10, 2, 30));
  const points = series.secondPoints(second(5, 1, 12));
  t.same([value(points, 'salvo_stream_events_total'), value(points, 'salvo_streams_total'), value(points, 'salvo_stream_output_tokens_total')], [15, 3, 42]);
  t.same(series.secondPoints(undefined).map((point) => point.value), [15, 3, 42], 'a second without stream figures repeats the counters');
  const end = series.resultPoints({ events: 16, streams: 4, outputTokens: 44 } as never);
  t.same(end.map((point) => [point.name, point.value]), [['salvo_stream_events_total', 16], ['salvo_streams_total', 4], ['salvo_stream_output_tokens_total', 44]]);
});

t.test('quantiles in seconds from µs histograms; token and delivery series only when the run has them', async (t) => {
  const gaps = encoded([...Array.from({ length: 50 }, () => 10_000), ...Array.from({ length: 49 }, () => 20_000), 500_000]);
  const plain = new StreamSeries({ tokens: false, delivery: false }).secondPoints(second(100, 1, 0, { gap: gaps, ttft: gaps, delivery: gaps }));
  t.ok(Math.abs(value(plain, 'salvo_stream_gap_seconds', '0.5')! - 0.01) < 0.0001, 'p50 10 ms as 0.01 s');
  t.ok(Math.abs(value(plain, 'salvo_stream_gap_seconds', '0.9')! - 0.02) < 0.0001);
  t.ok(Math.abs(value(plain, 'salvo_stream_gap_seconds', '0.99')! - 0.02) < 0.0001);
  t.equal(value(plain, 'salvo_stream_first_event_seconds'), undefined, 'a second that timed nothing has no quantile');
  t.same(plain.filter((point) => /ttft|itl|delivery|tokens/.test(point.name)), [], 'no token or delivery series');
  const full = new StreamSeries({ tokens: true, delivery: true }).secondPoints(second(100, 1, 0, { ttft: gaps, delivery: gaps }));
  t.ok(value(full, 'salvo_stream_ttft_seconds', '0.5') !== undefined);
  t.ok(value(full, 'salvo_stream_delivery_seconds', '0.99') !== undefined);
  t.equal(full.filter((point) => point.name === 'salvo_stream_ttft_seconds').length, 3);
});
