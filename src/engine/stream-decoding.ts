import { BAD_ENCODING, BodyDecoder, codingOf, UNSUPPORTED_ENCODING } from './body-decoder.js';

type Output = (data: Uint8Array, start: number, end: number) => boolean;

/**
 * The `stream` option's content-coded bodies, by lane: a response with a `content-encoding` is
 * decoded as it arrives, before its events are framed (a browser's EventSource and fetch do the
 * same). Lanes whose response has no coding never get here: uncoded streams cost one check per read.
 */
export class StreamDecoding {
  /** Made on a lane's first coded response, kept for its next ones. */
  readonly #decoders: Array<BodyDecoder | undefined>;
  /** The lane's current response is decoded. */
  readonly #active: Uint8Array;
  /** Why the lane's current response could not be decoded (an `errors.byCode` code), or undefined. */
  readonly #failure: Array<string | undefined>;

  constructor(lanes: number) {
    this.#decoders = new Array<BodyDecoder | undefined>(lanes).fill(undefined);
    this.#active = new Uint8Array(lanes);
    this.#failure = new Array<string | undefined>(lanes).fill(undefined);
  }

  /** A new response on `lane`: no coding until its head says so. */
  reset(lane: number): void {
    this.#active[lane] = 0;
    this.#failure[lane] = undefined;
  }

  /** `lane`'s response has this `content-encoding`; false when salvo cannot decode it (the response ends as `UNSUPPORTED_ENCODING`). */
  start(lane: number, contentEncoding: string): boolean {
    const coding = codingOf(contentEncoding);
    if (coding === 'identity') return true;
    if (coding === undefined) {
      this.#failure[lane] = UNSUPPORTED_ENCODING;
      return false;
    }
    const decoder = (this.#decoders[lane] ??= new BodyDecoder());
    decoder.start(coding);
    this.#active[lane] = 1;
    return true;
  }

  /** Whether `lane`'s response is being decoded. */
  active(lane: number): boolean {
    return this.#active[lane] === 1;
  }

  /** Decodes body bytes of `lane`'s response into `output`; false when `output` stopped or the bytes were not valid (`BAD_ENCODING`). */
  push(lane: number, data: Uint8Array, start: number, end: number, output: Output): boolean {
    const decoder = this.#decoders[lane]!;
    if (decoder.push(data, start, end, output)) return true;
    if (decoder.failed) this.#failure[lane] = BAD_ENCODING;
    return false;
  }

  /** The error code of `lane`'s response when its body could not be decoded, else undefined. */
  failure(lane: number): string | undefined {
    return this.#failure[lane];
  }

  close(): void {
    for (const decoder of this.#decoders) decoder?.close();
  }
}
