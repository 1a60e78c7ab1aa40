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

/** The `result.warnings` code of a `stream.until` or `stream.tokens` function that threw. */
export const STREAM_FUNCTION_FAILED = 'STREAM_FUNCTION_FAILED';

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
  /** `until` ended the lane's stream. */
  readonly #ended: Uint8Array;
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
  /** Content-coded bodies, decoded before framing; each lane's framer as the decoder's output. */
  readonly #decoding: StreamDecoding;
  readonly #framers: Array<(data: Uint8Array, start: number, end: number) => boolean>;
  /** With `tokens`: reasoning, usage and first-answer state by lane, what the event being read carries, and the run's figures of them. */
  readonly #laneTokens: StreamTokens;
  readonly #eventTokens: EventTokens = { answer: 0, reasoning: 0, usageOutput: -1, usageInput: -1, usageReasoning: -1 };
  #tokenRecorder: TokenRecorder | undefined;

  constructor(
    planned: PlannedStream,
    hooks: StreamHooks | undefined,
    lanes: readonly Lane[],
    /** Each request's name index, by its index in the sequence, and how many names there are. */
    names: { nameOf: Uint16Array; count: number },
    warn: (code: string, message: string) => void,
    /** Each second is read as it closes (`onProgress`, `outputs`): the run's recorder keeps its gaps, ITLs and deliveries. */
    live: boolean,
  ) {
    this.#planned = planned;
    this.#live = live;
    this.#byArrival = planned.subscribe;
    this.#nameOf = names.nameOf;
    this.#names = names.count;
    this.#hooks = hooks ?? {};
    this.#warn = warn;
    this.#readText = planned.until !== undefined || planned.untilFunction || planned.timestampField !== undefined || planned.tokensPath !== undefined || planned.tokensFunction;
    this.#streams = lanes.map((lane) => new EventStream(planned.format, { onEvent: (stream) => this.#event(lane, stream) }, this.#readText));
    const n = lanes.length;
    this.#firstAt = new Float64Array(n);
    this.#lastAt = new Float64Array(n);
    this.#firstTokenAt = new Float64Array(n);
    this.#lastTokenAt = new Float64Array(n);
    this.#tokens = new Float64Array(n);
    this.#ended = new Uint8Array(n);
    this.#decoding = new StreamDecoding(n);
    this.#framers = this.#streams.map((stream) => (data, start, end) => stream.push(data, start, end));
    this.#laneTokens = new StreamTokens(n);
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
    this.#ended[id] = 0;
    this.#decoding.reset(id);
    this.#laneTokens.reset(id);
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

  /** Body bytes of `lane`'s response; false when `until` ended the stream. */
  body(lane: Lane, data: Uint8Array, start: number, end: number): boolean {
    this.#now = 0;
    const id = lane.id;
    if (this.#decoding.active(id)) return this.#decoding.push(id, data, start, end, this.#framers[id]!);
    return this.#streams[id]!.push(data, start, end);
  }

  /** `lane`'s response ended at `now` (its body's end, or `until`); `measured`: it counts as completed. */
  end(lane: Lane, now: number, measured: boolean): void {
    const id = lane.id;
    if (this.#ended[id] === 0) {
      this.#now = now;
      this.#streams[id]!.end();
    }
    const recorder = this.#recorder;
    if (!measured || recorder === undefined || now >= this.#endAt) return;
    // The server's own count, when it sent one, stands for the events'.
    const counted = this.#tokens[id]!;
    const tokens = this.#laneTokens.end(id, counted, this.#tokenRecorder);
    const named = this.#named?.[this.#nameOf[lane.requestIndex]!];
    if (tokens !== counted) {
      recorder.correctTokens(now, tokens - counted);
      named?.correctTokens(now, tokens - counted);
    }
    const tpot = tokens > 1 ? (now - this.#firstTokenAt[id]!) / (tokens - 1) : -1;
    const events = this.#streams[id]!.events;
    const duration = events > 0 ? now - this.#firstAt[id]! : -1;
    recorder.recordStream(now, events, tokens, duration, tpot, this.#ended[id] === 1);
    named?.recordStream(now, events, tokens, duration, tpot, this.#ended[id] === 1);
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
    return { stream, byName: this.#named?.map((named) => named.finish(endAt)) };
  }

  #event(lane: Lane, stream: EventStream): boolean {
    const now = this.#now === 0 ? (this.#now = performance.now()) : this.#now;
    const id = lane.id;
    const first = stream.events === 1;
    const counted = this.#byArrival ? now >= this.#startAt : lane.measured;
    const recorder = counted && now < this.#endAt ? this.#recorder : undefined;
    const named = recorder === undefined ? undefined : this.#named?.[this.#nameOf[lane.requestIndex]!];
    const sinceMs = now - (first ? lane.intendedAt : this.#lastAt[id]!);
    recorder?.recordEvent(now, first, sinceMs);
    named?.recordEvent(now, first, sinceMs);
    if (first) this.#firstAt[id] = now;
    this.#lastAt[id] = now;
    if (!this.#readText) {
      if (recorder !== undefined) this.#stages?.recordReceived(now, -1);
      return true;
    }

    const planned = this.#planned;
    const data = stream.data();
    let event: StreamEvent | undefined;
    const eventOf = (): StreamEvent =>
      (event ??= { data, event: planned.format === 'sse' ? stream.eventType() : '', id: planned.format === 'sse' ? stream.lastEventId : '' });
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
        deliveryMs = Math.max(0, performance.timeOrigin + now - sentAt);
        recorder?.recordDelivery(deliveryMs);
        named?.recordDelivery(deliveryMs);
      }
    }
    if (recorder !== undefined) this.#stages?.recordReceived(now, deliveryMs < 0 ? -1 : Math.round(deliveryMs * 1000));
    const tokens = this.#eventTokens;
    tokens.answer = tokens.reasoning = 0;
    tokens.usageOutput = -1;
    if (planned.tokensPath !== undefined || planned.usage) this.#call('tokenizer', () => countTokens(jsonOf(), planned, this.#hooks.tokenizer, tokens), undefined);
    if (this.#hooks.tokens !== undefined) tokens.answer = this.#call('tokens', () => this.#hooks.tokens!(eventOf()), 0);
    else if (this.#hooks.tokenizer === undefined) this.#laneTokens.fromRunningCount(id, tokens);
    const count = tokens.answer + tokens.reasoning;
    if (count > 0 || tokens.usageOutput >= 0) this.#laneTokens.event(id, tokens, now - lane.intendedAt, recorder === undefined ? undefined : this.#tokenRecorder);
    if (count > 0) {
      const firstToken = this.#tokens[id] === 0;
      const tokenMs = now - (firstToken ? lane.intendedAt : this.#lastTokenAt[id]!);
      recorder?.recordTokens(now, count, firstToken, tokenMs);
      named?.recordTokens(now, count, firstToken, tokenMs);
      if (firstToken) this.#firstTokenAt[id] = now;
      this.#lastTokenAt[id] = now;
      this.#tokens[id] = this.#tokens[id]! + count;
    }
    const ends = planned.until !== undefined ? data.trim() === planned.until : this.#hooks.until !== undefined && this.#call('until', () => this.#hooks.until!(eventOf()) === true, false);
    if (ends) this.#ended[id] = 1;
    return !ends;
  }

  /** The user's function, its failure counted as `fallback` and told once as a warning. */
  #call<T>(name: string, run: () => T, fallback: T): T {
    try {
      return run();
    } catch (error) {
      this.#warn(STREAM_FUNCTION_FAILED, `stream.${name} threw for an event (${String(error)}); such events counted as ${String(fallback)}`);
      return fallback;
    }
  }
}

