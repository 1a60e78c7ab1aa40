import type { StreamStats } from '../shared/load-result.js';
import type { GoodputStats } from '../shared/llm.js';
import type { ShardStreamSecond } from '../shared/stream.js';
import { decodeHistogram } from '../stats/histogram.js';
import type { Point } from './series.js';

const QUANTILES = [
  ['0.5', 50],
  ['0.9', 90],
  ['0.99', 99],
] as const;

/**
 * A `stream` run's series: events, ended streams and (with `tokens`) output tokens as counters,
 * summed from the seconds while the run goes and exact from the merged result at its end; each
 * second's first-event, gap, TTFT, ITL and delivery quantiles, as `salvo_latency_seconds` has latency's.
 */
export class StreamSeries {
  readonly #tokens: boolean;
  #events = 0;
  #streams = 0;
  #outputTokens = 0;
  /** `slo`: `salvo_goodput_requests_total`, the streams that met it; undefined without. */
  #good: number | undefined;

  readonly #delivery: boolean;

  constructor({ tokens, delivery, goodput }: { tokens: boolean; delivery: boolean; goodput?: boolean }) {
    this.#tokens = tokens;
    this.#delivery = delivery;
    if (goodput === true) this.#good = 0;
  }

  /** One closed second's samples: the counters so far, and the quantiles of each figure it timed. */
  secondPoints(second: ShardStreamSecond | undefined): Point[] {
    if (second === undefined) return this.#counters();
    this.#events += second.events;
    this.#streams += second.streams;
    this.#outputTokens += second.outputTokens;
    if (this.#good !== undefined) this.#good += second.good ?? 0;
    const points = this.#counters();
    quantiles(points, 'salvo_stream_first_event_seconds', second.firstEvent);
    quantiles(points, 'salvo_stream_gap_seconds', second.gap);
    if (this.#tokens) {
      quantiles(points, 'salvo_stream_ttft_seconds', second.ttft);
      quantiles(points, 'salvo_stream_itl_seconds', second.itl);
    }
    if (this.#delivery) quantiles(points, 'salvo_stream_delivery_seconds', second.delivery);
    return points;
  }

  /** The exact totals, from the merged result. */
  resultPoints(stream: StreamStats | undefined, goodput?: GoodputStats): Point[] {
    if (stream !== undefined) {
      this.#events = stream.events;
      this.#streams = stream.streams;
      this.#outputTokens = stream.outputTokens ?? 0;
    }
    if (goodput !== undefined && this.#good !== undefined) this.#good = goodput.requests;
    return this.#counters();
  }

  #counters(): Point[] {
    const points: Point[] = [
      { name: 'salvo_stream_events_total', value: this.#events },
      { name: 'salvo_streams_total', value: this.#streams },
    ];
    if (this.#tokens) points.push({ name: 'salvo_stream_output_tokens_total', value: this.#outputTokens });
    if (this.#good !== undefined) points.push({ name: 'salvo_goodput_requests_total', value: this.#good });
    return points;
  }
}

/** `name`'s quantiles from a second's encoded histogram (µs); none for a second that timed nothing. */
function quantiles(points: Point[], name: string, encoded: string): void {
  if (encoded === '') return;
  const histogram = decodeHistogram(encoded);
  for (const [label, percentile] of QUANTILES)
    points.push({ name, label: ['quantile', label], value: histogram.getValueAtPercentile(percentile) / 1e6 });
  histogram.destroy();
}
