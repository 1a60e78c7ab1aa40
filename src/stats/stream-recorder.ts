import type { ShardStream, ShardStreamSecond, StreamFormat, StreamHistograms } from '../shared/stream.js';
import { createHistogram, encodeHistogram, latencyUs } from './histogram.js';
import { PendingLatencies } from './pending-latencies.js';

/** An event's ITL values at most: a count far past any event's tokens is no reason to loop for long. */
const MAX_ITL_VALUES = 4096;
const toUs = (ms: number): number => latencyUs(ms <= 0 ? 0 : ms);

/**
 * One thread's streamed responses (`result.stream`): integer bucket counts per event, as the
 * latency recorder does, nothing allocated per event; histograms are built once, at the end. Its
 * seconds line up with the Recorder's (the same start).
 */
export class StreamRecorder {
  streams = 0;
  ended = 0;
  events = 0;
  outputTokens = 0;
  /** Events and output tokens of the streams counted in `streams`: the per-stream means count these. */
  streamEvents = 0;
  streamOutputTokens = 0;
  readonly #firstEvent = new PendingLatencies();
  readonly #gap = new PendingLatencies();
  readonly #duration = new PendingLatencies();
  readonly #delivery: PendingLatencies | undefined;
  readonly #ttft: PendingLatencies | undefined;
  readonly #itl: PendingLatencies | undefined;
  readonly #tpot: PendingLatencies | undefined;
  readonly #seconds: ShardStreamSecond[] = [];
  readonly #secondFirstEvent = new PendingLatencies();
  /** Kept only for a live second (`live`): a gap, ITL and delivery per event is recorded twice then. */
  readonly #secondGap: PendingLatencies | undefined;
  readonly #secondTtft: PendingLatencies | undefined;
  readonly #secondItl: PendingLatencies | undefined;
  readonly #secondDelivery: PendingLatencies | undefined;
  #secondFirstEvents = 0;
  #secondGaps = 0;
  #secondTtfts = 0;
  #secondItls = 0;
  #secondDeliveries = 0;
  #secondEvents = 0;
  #secondTokens = 0;
  #secondStreams = 0;
  readonly #startAt: number;
  /** `slo`: streams of this second that met it. */
  #secondGood = 0;
  #nextSecondAt: number;

  constructor(
    readonly format: StreamFormat,
    /** Start of the measured run, performance.now() ms. */
    startAt: number,
    /** `live`: each second is read as it closes (`second`), with its gaps, ITLs and deliveries. */
    { delivery = false, tokens = false, live = false } = {},
  ) {
    this.#startAt = startAt;
    this.#nextSecondAt = startAt + 1000;
    if (live) this.#secondGap = new PendingLatencies();
    if (delivery) {
      this.#delivery = new PendingLatencies();
      if (live) this.#secondDelivery = new PendingLatencies();
    }
    if (tokens) {
      this.#ttft = new PendingLatencies();
      this.#itl = new PendingLatencies();
      this.#tpot = new PendingLatencies();
      this.#secondTtft = new PendingLatencies();
      if (live) this.#secondItl = new PendingLatencies();
    }
  }

  /** An event at `now`: the stream's first (`firstMs` from the request) or one `gapMs` after the one before. */
  recordEvent(now: number, first: boolean, ms: number): void {
    if (now >= this.#nextSecondAt) this.#rollTo(now);
    this.events++;
    this.#secondEvents++;
    if (first) {
      const us = toUs(ms);
      this.#firstEvent.record(us);
      this.#secondFirstEvent.record(us);
      this.#secondFirstEvents++;
    } else {
      const us = toUs(ms);
      this.#gap.record(us);
      if (this.#secondGap !== undefined) {
        this.#secondGap.record(us);
        this.#secondGaps++;
      }
    }
  }

  /** An event's arrival minus the send time it carried (just after `recordEvent` rolled the second to its arrival). */
  recordDelivery(ms: number): void {
    if (this.#delivery === undefined) return;
    const us = toUs(ms);
    this.#delivery.record(us);
    if (this.#secondDelivery !== undefined) {
      this.#secondDelivery.record(us);
      this.#secondDeliveries++;
    }
  }

  /** `count` output tokens at `now`: the stream's first (`ms` from the request: TTFT) or `ms` after the last (ITL). */
  recordTokens(now: number, count: number, first: boolean, ms: number): void {
    if (now >= this.#nextSecondAt) this.#rollTo(now);
    this.outputTokens += count;
    this.#secondTokens += count;
    if (this.#ttft === undefined) return;
    const us = toUs(ms);
    if (first) {
      this.#ttft.record(us);
      this.#secondTtft!.record(us);
      this.#secondTtfts++;
    } else {
      // An event carrying k tokens after a gap g stands for k tokens g / k apart (vLLM's ITL).
      const each = count > 1 ? toUs(ms / count) : us;
      const values = Math.min(Math.round(count), MAX_ITL_VALUES);
      for (let i = 0; i < values; i++) {
        this.#itl!.record(each);
        if (this.#secondItl !== undefined) {
          this.#secondItl.record(each);
          this.#secondItls++;
        }
      }
    }
  }

  /** A stream ended at `now` whose server counted `delta` output tokens more (or fewer) than its events carried. */
  correctTokens(now: number, delta: number): void {
    if (now >= this.#nextSecondAt) this.#rollTo(now);
    this.outputTokens += delta;
    this.#secondTokens += delta;
  }

  /** A stream that ended at `now` met every objective of `slo`. */
  recordGood(now: number): void {
    if (now >= this.#nextSecondAt) this.#rollTo(now);
    this.#secondGood++;
  }

  /** A stream ended at `now` with `events` and `tokens`: `durationMs` from its first event (-1: it had none), `tpotMs` (-1: fewer than two tokens). */
  recordStream(now: number, events: number, tokens: number, durationMs: number, tpotMs: number, ended: boolean): void {
    if (now >= this.#nextSecondAt) this.#rollTo(now);
    this.streams++;
    this.#secondStreams++;
    this.streamEvents += events;
    this.streamOutputTokens += tokens;
    if (ended) this.ended++;
    if (durationMs >= 0) this.#duration.record(toUs(durationMs));
    if (tpotMs >= 0) this.#tpot?.record(toUs(tpotMs));
  }

  #rollTo(now: number): void {
    while (now >= this.#nextSecondAt) this.#closeSecond();
  }

  /**
   * Second `index` of the run, closed (the Recorder's live second, for `onProgress` and `outputs`;
   * events roll this one on too, so it may have closed it already).
   */
  second(index: number): ShardStreamSecond {
    while (this.#seconds.length <= index) this.#closeSecond();
    return this.#seconds[index]!;
  }

  #closeSecond(): void {
    const taken = (pending: PendingLatencies | undefined, count: number): string =>
      pending !== undefined && count > 0 ? pending.takeEncoded() : '';
    this.#seconds.push({
      events: this.#secondEvents,
      outputTokens: this.#secondTokens,
      streams: this.#secondStreams,
      firstEvent: taken(this.#secondFirstEvent, this.#secondFirstEvents),
      gap: taken(this.#secondGap, this.#secondGaps),
      ttft: taken(this.#secondTtft, this.#secondTtfts),
      itl: taken(this.#secondItl, this.#secondItls),
      delivery: taken(this.#secondDelivery, this.#secondDeliveries),
      ...(this.#secondGood > 0 ? { good: this.#secondGood } : {}),
    });
    this.#secondGood = 0;
    this.#nextSecondAt = this.#startAt + (this.#seconds.length + 1) * 1000;
    this.#secondEvents = this.#secondTokens = this.#secondStreams = 0;
    this.#secondFirstEvents = this.#secondGaps = this.#secondTtfts = this.#secondItls = this.#secondDeliveries = 0;
  }

  /** Everything recorded, encoded; a last partial second is kept when anything happened in it. */
  finish(endAt: number): ShardStream {
    this.#rollTo(endAt);
    if (this.#secondEvents + this.#secondTokens + this.#secondStreams > 0) this.#closeSecond();
    const histograms: StreamHistograms = {
      firstEvent: encodePending(this.#firstEvent),
      gap: encodePending(this.#gap),
      duration: encodePending(this.#duration),
      ...(this.#delivery !== undefined ? { delivery: encodePending(this.#delivery) } : {}),
      ...(this.#ttft !== undefined
        ? { ttft: encodePending(this.#ttft), itl: encodePending(this.#itl!), tpot: encodePending(this.#tpot!) }
        : {}),
    };
    return {
      format: this.format,
      streams: this.streams,
      ended: this.ended,
      events: this.events,
      outputTokens: this.outputTokens,
      streamEvents: this.streamEvents,
      streamOutputTokens: this.streamOutputTokens,
      histograms,
      seconds: this.#seconds,
    };
  }
}

function encodePending(pending: PendingLatencies): string {
  const histogram = createHistogram();
  pending.flushInto(histogram);
  const encoded = encodeHistogram(histogram);
  histogram.destroy();
  return encoded;
}
