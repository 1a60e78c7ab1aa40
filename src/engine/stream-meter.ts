import { performance } from 'node:perf_hooks';
import { EventStream } from '../http1/event-stream.js';
import type { PlannedStream, ShardStream, ShardStreamSecond, StreamEvent, StreamHooks } from '../shared/stream.js';
import { StreamRecorder } from '../stats/stream-recorder.js';
import type { Lane } from '../transports/transport.js';
import type { StageMeter } from '../runner/stage-meter.js';
import { StreamDecoding } from './stream-decoding.js';
import { countTokens, type EventTokens } from './token-count.js';
import { StreamTokens } from './stream-tokens.js';
import { TokenRecorder } from '../stats/token-recorder.js';
import { GoodputMeter } from './goodput-meter.js';

/** The `result.warnings` code of a `stream.until` or `stream.tokens` function that threw. */
export const STREAM_FUNCTION_FAILED = 'STREAM_FUNCTION_FAILED';

/**
 * How long an HTTP/1.1 body may go on after `until` before its connection is closed: a server ends
 * its body right after the marker, and reading to that end keeps the connection for the next request.
 */
export const UNTIL_DRAIN_MS = 100;

/** The warning of deliveries that came out negative, as WebSocket timestamps have it: the clocks disagree. */
const CLOCK_SKEW = 'CLOCK_SKEW';
/** A delivery below this (ms) is more than the timestamps' own rounding: the server's clock is ahead. */
const SKEW_MS = -1;

/** Closes a connection whose body went on past `UNTIL_DRAIN_MS` after `until`; a request pipelined behind it fails with it. */
export const STREAM_UNTIL_CLOSED = 'STREAM_UNTIL_CLOSED';

/**
 * The `stream` option on the HTTP engine: each lane's response body goes through an event framer
 * as the transport receives it, and every event is timed against its lane's request. The clock is
 * read once per piece of body that completes an event (events framed from one read arrived
 * together); state is kept in typed arrays by lane, so nothing is allocated per event unless an
 * event's text is needed (`until`, `timestamp`, `tokens`).
 */
export class StreamMeter {
  readonly #planned: PlannedStream;
  readonly #hooks: StreamHooks;
  readonly #warn: (code: string, message: string) => void;
  readonly #streams: EventStream[];
  readonly #firstAt: Float64Array;
  readonly #lastAt: Float64Array;
  readonly #firstTokenAt: Float64Array;
  readonly #lastTokenAt: Float64Array;
  readonly #tokens: Float64Array;
  /** When `until` ended the lane's stream (performance.now() ms); 0 while it has not. */
  readonly #untilAt: Float64Array;
  /** After `until`, HTTP/1.1 reads the body to its end (within `UNTIL_DRAIN_MS`) to keep the connection; HTTP/2 cancels the stream. */
  readonly #drain: boolean;
  /** The lane's response status and body bytes: a body that does not end after `until` completes with them when its connection closes. */
  readonly #status: Uint16Array;
  readonly #bodyBytes: Float64Array;
  readonly #readText: boolean;
  #recorder: StreamRecorder | undefined;
  /** With several request names, each name's own recorder (`byName[name].stream`), by name index. */
  #named: StreamRecorder[] | undefined;
  readonly #nameOf: Uint16Array;
  readonly #names: number;
  #startAt = Infinity;
  #endAt = Infinity;
  /** Subscriptions: events count by when they came, whenever their request went out (warm-up included). */
  readonly #byArrival: boolean;
  /** Subscriptions with `stages`: each stage's events and delivery times. */
  #stages: StageMeter | undefined;
  /** The clock for the piece of body being framed; 0 until an event needs it. */
  #now = 0;
  readonly #live: boolean;
  /** Measured events that arrived over `SKEW_MS` before their own timestamp, and the most negative delivery. */
  #skewed = 0;
  #mostNegativeMs = 0;
  /** Content-coded bodies, decoded before framing; each lane's framer as the decoder's output. */
  readonly #decoding: StreamDecoding;
  readonly #framers: Array<(data: Uint8Array, start: number, end: number) => boolean>;
  /** With `tokens`: reasoning, usage and first-answer state by lane, what the event being read carries, and the run's figures of them. */
  readonly #laneTokens: StreamTokens;
  readonly #eventTokens: EventTokens = { answer: 0, reasoning: 0, usageOutput: -1, usageInput: -1, usageReasoning: -1 };
  #tokenRecorder: TokenRecorder | undefined;
  /** `slo`: each measured stream judged at its end. */
  readonly #goodput: GoodputMeter | undefined;

  constructor(
    planned: PlannedStream,
    hooks: StreamHooks | undefined,
    lanes: readonly Lane[],
    /** Each request's name index, by its index in the sequence, and how many names there are. */
    names: { nameOf: Uint16Array; count: number },
    warn: (code: string, message: string) => void,
    /** Each second is read as it closes (`onProgress`, `outputs`): the run's recorder keeps its gaps, ITLs and deliveries. */
    live: boolean,
    /** HTTP/1.1: read a body on after `until` rather than close its connection. */
    drain = false,
  ) {
    this.#drain = drain;
    this.#planned = planned;
    this.#live = live;
    this.#byArrival = planned.subscribe;
    this.#nameOf = names.nameOf;
    this.#names = names.count;
    this.#hooks = hooks ?? {};
    this.#warn = warn;
    this.#readText =
      planned.until !== undefined ||
      planned.untilFunction ||
      planned.timestampField !== undefined ||
      planned.tokensPath !== undefined ||
      planned.tokensFunction;
    this.#streams = lanes.map(
      (lane) => new EventStream(planned.format, { onEvent: (stream) => this.#event(lane, stream) }, this.#readText),
    );
    const n = lanes.length;
    this.#firstAt = new Float64Array(n);
    this.#lastAt = new Float64Array(n);
    this.#firstTokenAt = new Float64Array(n);
    this.#lastTokenAt = new Float64Array(n);
    this.#tokens = new Float64Array(n);
    this.#untilAt = new Float64Array(n);
    this.#status = new Uint16Array(drain ? n : 0);
    this.#bodyBytes = new Float64Array(drain ? n : 0);
    this.#decoding = new StreamDecoding(n);
    this.#framers = this.#streams.map((stream) => (data, start, end) => stream.push(data, start, end));
    this.#laneTokens = new StreamTokens(n);
    if (planned.slo !== undefined) this.#goodput = new GoodputMeter(planned.slo, n);
  }

  /** The measured run began at `startAt` and ends at `endAt` (performance.now() ms); `stages` counts its events by stage. */
  begin(startAt: number, endAt: number, stages?: StageMeter): void {
    this.#startAt = startAt;
    this.#stages = stages;
    const planned = this.#planned;
    const recorder = (live: boolean): StreamRecorder =>
      new StreamRecorder(planned.format, startAt, {
        delivery: planned.timestampField !== undefined,
        tokens: planned.tokensPath !== undefined || planned.tokensFunction,
        live,
      });
    this.#recorder = recorder(this.#live);
    if (planned.tokensPath !== undefined || planned.tokensFunction) this.#tokenRecorder = new TokenRecorder();
    // A name's seconds are never read live.
    if (this.#names > 1) this.#named = Array.from({ length: this.#names }, () => recorder(false));
    this.#endAt = endAt;
  }

  /** A request went out on `lane`: its response starts a new stream. */
  sent(lane: Lane): void {
    const id = lane.id;
    this.#streams[id]!.reset();
    this.#firstAt[id] = this.#lastAt[id] = this.#firstTokenAt[id] = this.#lastTokenAt[id] = this.#tokens[id] = 0;
    this.#untilAt[id] = 0;
    if (this.#drain) this.#bodyBytes[id] = 0;
    this.#decoding.reset(id);
    this.#laneTokens.reset(id);
    this.#goodput?.reset(id);
  }

  /** `lane`'s response is content-coded: its body is decoded before framing. False: salvo cannot decode it (see `undecodable`). */
  encoding(lane: Lane, contentEncoding: string): boolean {
    return this.#decoding.start(lane.id, contentEncoding);
  }

  /** The error code of `lane`'s response when its coding was unknown or its body not valid for it, else undefined. */
  undecodable(lane: Lane): string | undefined {
    return this.#decoding.failure(lane.id);
  }

  /** A new subscription on `lane` (not a reconnection): no last event id or `retry` carried over. */
  forget(lane: Lane): void {
    this.#streams[lane.id]!.forget();
  }

  /** The last event id `lane`'s subscription saw, `''` for none: its reconnection's `Last-Event-ID`. */
  lastEventId(lane: Lane): string {
    return this.#streams[lane.id]!.lastEventId;
  }

  /** The server's `retry:` on `lane`'s subscription, ms; -1 until it sent one. */
  retryMs(lane: Lane): number {
    return this.#streams[lane.id]!.retryMs;
  }

  /** The head of `lane`'s response (asked for only to drain after `until`). */
  head(lane: Lane, status: number): void {
    if (this.#drain) this.#status[lane.id] = status;
  }

  /** Body bytes of `lane`'s response; false to end it now (`until` on HTTP/2, or a body that went on too long after it). */
  body(lane: Lane, data: Uint8Array, start: number, end: number): boolean {
    const id = lane.id;
    if (this.#drain) this.#bodyBytes[id] = this.#bodyBytes[id]! + end - start;
    const untilAt = this.#untilAt[id]!;
    // What follows the marker is not framed: read on only while the server is ending its body.
    if (untilAt !== 0) return performance.now() - untilAt < UNTIL_DRAIN_MS;
    this.#now = 0;
    if (this.#decoding.active(id)) {
      if (this.#decoding.push(id, data, start, end, this.#framers[id]!)) return true;
      // Stopped by `until` (read on as below), or by bytes that were not valid for the coding (ended now).
      return this.#drain && this.#decoding.failure(id) === undefined;
    }
    return this.#streams[id]!.push(data, start, end) || this.#drain;
  }

  /** `until` ended `lane`'s stream more than `UNTIL_DRAIN_MS` before `now` and its body has not ended: close it. */
  overdue(lane: Lane, now: number): boolean {
    const untilAt = this.#untilAt[lane.id]!;
    return untilAt !== 0 && now - untilAt >= UNTIL_DRAIN_MS;
  }

  /** When `lane`'s stream last moved: its last event, or its request before any (`timeout` bounds the wait from it). */
  lastActivityAt(lane: Lane): number {
    return Math.max(lane.sentAt, this.#lastAt[lane.id]!);
  }

  /** What an overdue response had when its connection was closed: its status and body bytes. */
  drained(lane: Lane): { status: number; bytes: number } {
    return { status: this.#status[lane.id]!, bytes: this.#bodyBytes[lane.id]! };
  }

  /** `lane`'s response ended at `now` (its body's end); `measured`: it counts as completed. Ended by `until`, the stream ended at the marker. */
  end(lane: Lane, now: number, measured: boolean): void {
    const id = lane.id;
    const untilAt = this.#untilAt[id]!;
    if (untilAt === 0) {
      this.#now = now;
      this.#streams[id]!.end();
    }
    const recorder = this.#recorder;
    const endedAt = untilAt === 0 ? now : untilAt;
    if (!measured || recorder === undefined || endedAt >= this.#endAt) return;
    const events = this.#streams[id]!.events;
    // A body with no event that `until` did not end either (a JSON step of a sequence) is no stream: it would dilute the per-stream means.
    if (events === 0 && untilAt === 0) return;
    // The server's own count, when it sent one, stands for the events'.
    const counted = this.#tokens[id]!;
    const tokens = this.#laneTokens.end(id, counted, this.#tokenRecorder);
    const named = this.#named?.[this.#nameOf[lane.requestIndex]!];
    if (tokens !== counted) {
      recorder.correctTokens(endedAt, tokens - counted);
      named?.correctTokens(endedAt, tokens - counted);
    }
    const tpot = tokens > 1 ? (endedAt - this.#firstTokenAt[id]!) / (tokens - 1) : -1;
    const duration = events > 0 ? endedAt - this.#firstAt[id]! : -1;
    recorder.recordStream(endedAt, events, tokens, duration, tpot, untilAt !== 0);
    const ttft = this.#firstTokenAt[id]! > 0 ? this.#firstTokenAt[id]! - lane.intendedAt : -1;
    if (this.#goodput?.judge(id, ttft, tpot, endedAt - lane.intendedAt) === true) recorder.recordGood(endedAt);
    named?.recordStream(endedAt, events, tokens, duration, tpot, untilAt !== 0);
  }

  /** Second `index` of the measured run, closed: the live second (`onProgress`, `outputs`). */
  second(index: number): ShardStreamSecond | undefined {
    return this.#recorder?.second(index);
  }

  /** The run is over: what was recorded, encoded, and each name's when there are several. */
  finish(endAt: number): { stream: ShardStream; byName: ShardStream[] | undefined } | undefined {
    const recorder = this.#recorder;
    this.#recorder = undefined;
    this.#decoding.close();
    if (recorder === undefined) return undefined;
    const stream = recorder.finish(endAt);
    const tokens = this.#tokenRecorder?.finish();
    if (tokens !== undefined) {
      const { answerTtft, ...counts } = tokens;
      Object.assign(stream, counts);
      stream.histograms.answerTtft = answerTtft;
    }
    if (this.#goodput !== undefined) stream.goodput = { requests: this.#goodput.requests, slo: this.#goodput.slo };
    return { stream, byName: this.#named?.map((named) => named.finish(endAt)) };
  }

  #event(lane: Lane, stream: EventStream): boolean {
    const now = this.#now === 0 ? (this.#now = performance.now()) : this.#now;
    if (this.#readText) return this.#textEvent(lane, stream, now);
    if (this.#timed(lane, stream, now) !== undefined) this.#stages?.recordReceived(now, -1);
    return true;
  }

  /** Records the event's time (from the request, or from the event before); returns the recorder that counted it, if any. */
  #timed(lane: Lane, stream: EventStream, now: number): StreamRecorder | undefined {
    const id = lane.id;
    const first = stream.events === 1;
    const counted = this.#byArrival ? now >= this.#startAt : lane.measured;
    const recorder = counted && now < this.#endAt ? this.#recorder : undefined;
    const sinceMs = now - (first ? lane.intendedAt : this.#lastAt[id]!);
    if (recorder !== undefined) {
      recorder.recordEvent(now, first, sinceMs);
      this.#named?.[this.#nameOf[lane.requestIndex]!]!.recordEvent(now, first, sinceMs);
    }
    if (first) this.#firstAt[id] = now;
    this.#lastAt[id] = now;
    return recorder;
  }

  /** An event whose text `until`, `timestamp` or `tokens` reads. */
  #textEvent(lane: Lane, stream: EventStream, now: number): boolean {
    const id = lane.id;
    const planned = this.#planned;
    const data = stream.data();
    let event: StreamEvent | undefined;
    const eventOf = (): StreamEvent =>
      (event ??= {
        data,
        event: planned.format === 'sse' ? stream.eventType() : '',
        id: planned.format === 'sse' ? stream.lastEventId : '',
      });
    // The marker ends the stream and is no event of it.
    if (
      planned.until !== undefined
        ? data.trim() === planned.until
        : this.#hooks.until !== undefined && this.#call('until', () => this.#hooks.until!(eventOf()) === true, false)
    ) {
      this.#untilAt[id] = now;
      stream.events--;
      return false;
    }
    const recorder = this.#timed(lane, stream, now);
    const named = recorder === undefined ? undefined : this.#named?.[this.#nameOf[lane.requestIndex]!];

    let json: unknown;
    let parsed = false;
    const jsonOf = (): unknown => {
      if (!parsed) {
        parsed = true;
        try {
          json = JSON.parse(data);
        } catch {
          json = undefined;
        }
      }
      return json;
    };

    let deliveryMs = -1;
    if (planned.timestampField !== undefined) {
      const sentAt = (jsonOf() as Record<string, unknown> | undefined)?.[planned.timestampField];
      if (typeof sentAt === 'number') {
        deliveryMs = performance.timeOrigin + now - sentAt;
        if (deliveryMs < SKEW_MS && recorder !== undefined) {
          this.#skewed++;
          this.#mostNegativeMs = Math.min(this.#mostNegativeMs, deliveryMs);
        }
        deliveryMs = Math.max(0, deliveryMs);
        recorder?.recordDelivery(deliveryMs);
        named?.recordDelivery(deliveryMs);
      }
    }
    if (recorder !== undefined) this.#stages?.recordReceived(now, deliveryMs < 0 ? -1 : Math.round(deliveryMs * 1000));
    const tokens = this.#eventTokens;
    tokens.answer = tokens.reasoning = 0;
    tokens.usageOutput = -1;
    if (planned.tokensPath !== undefined || planned.usage)
      this.#call('tokenizer', () => countTokens(jsonOf(), planned, this.#hooks.tokenizer, tokens), undefined);
    if (this.#hooks.tokens !== undefined) tokens.answer = this.#call('tokens', () => this.#hooks.tokens!(eventOf()), 0);
    else if (this.#hooks.tokenizer === undefined) this.#laneTokens.fromRunningCount(id, tokens);
    const count = tokens.answer + tokens.reasoning;
    if (count > 0 || tokens.usageOutput >= 0)
      this.#laneTokens.event(
        id,
        tokens,
        now - lane.intendedAt,
        recorder === undefined ? undefined : this.#tokenRecorder,
      );
    if (count > 0) {
      const firstToken = this.#tokens[id] === 0;
      const tokenMs = now - (firstToken ? lane.intendedAt : this.#lastTokenAt[id]!);
      recorder?.recordTokens(now, count, firstToken, tokenMs);
      named?.recordTokens(now, count, firstToken, tokenMs);
      if (firstToken) this.#firstTokenAt[id] = now;
      else this.#goodput?.gap(id, tokenMs / count);
      this.#lastTokenAt[id] = now;
      this.#tokens[id] = this.#tokens[id]! + count;
    }
    return true;
  }

  /** Warns `CLOCK_SKEW` when a measured event arrived clearly before the send time it carries (its delivery counted as 0). */
  warnClock(): void {
    if (this.#skewed === 0) return;
    this.#warn(
      CLOCK_SKEW,
      `${this.#skewed} events arrived up to ${(-this.#mostNegativeMs).toFixed(1)} ms before the time they carry (stream.timestamp): ` +
        "the server's clock is ahead of this machine's, so stream.delivery is off by about as much (those were counted as 0). " +
        'Synchronise the clocks (NTP, chrony), or run salvo on the same machine as the server.',
    );
  }

  /** The user's function, its failure counted as `fallback` and told once as a warning. */
  #call<T>(name: string, run: () => T, fallback: T): T {
    try {
      return run();
    } catch (error) {
      this.#warn(
        STREAM_FUNCTION_FAILED,
        `stream.${name} threw for an event (${String(error)}); such events counted as ${String(fallback)}`,
      );
      return fallback;
    }
  }
}
