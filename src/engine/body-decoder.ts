import zlib from 'node:zlib';
import type { ResponseDetails } from '../shared/exchange.js';

/** The `errors.byCode` code of a response whose `content-encoding` salvo cannot decode (not gzip, deflate or br). */
export const UNSUPPORTED_ENCODING = 'UNSUPPORTED_ENCODING';
/** The `errors.byCode` code of a body that is not what its `content-encoding` says (corrupt or truncated data). */
export const BAD_ENCODING = 'BAD_ENCODING';

type Coding = 'gzip' | 'deflate' | 'br';

/** A `content-encoding` value: the one coding salvo decodes, `identity` for none, undefined for one it cannot. */
export function codingOf(header: string): Coding | 'identity' | undefined {
  let coding: Coding | 'identity' = 'identity';
  for (const part of header.split(',')) {
    const token = part.trim().toLowerCase();
    if (token === '' || token === 'identity') continue;
    if (coding !== 'identity') return undefined;
    if (token === 'gzip' || token === 'x-gzip') coding = 'gzip';
    else if (token === 'deflate' || token === 'br') coding = token;
    else return undefined;
  }
  return coding;
}

/** The private side of node:zlib's streams that its own `*Sync` functions use: a handle written synchronously. */
interface ZlibHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inOffset: number,
    inLength: number,
    output: Uint8Array,
    outOffset: number,
    outLength: number,
  ): void;
}
interface ZlibInternals {
  _handle: ZlibHandle | null;
  /** [output bytes left, input bytes left] after a write. */
  _writeState: Uint32Array;
}
type ZlibStream = zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress;

const OUT_BYTES = 16 * 1024;
const ignore = (): void => {};

/**
 * One response body's content-coding undone as its bytes arrive, synchronously: each piece is
 * decoded at once (a sync flush, so whatever the server flushed comes out), and what it decodes to
 * is handed on before `push` returns, so events are timed when their compressed bytes arrive, as a
 * browser sees them. node:zlib's streams decode only asynchronously; this drives the zlib handle
 * under one the way node:zlib's own `gunzipSync` does, without closing it after each piece.
 */
export class BodyDecoder {
  #coding: Coding = 'gzip';
  #stream: ZlibStream | undefined;
  /** deflate: whether the zlib wrapper is there is told by the first bytes (some servers send raw deflate, as browsers accept). */
  #sniff = false;
  #failed = false;
  readonly #out = Buffer.allocUnsafe(OUT_BYTES);

  /** For a new body in `coding`. */
  start(coding: Coding): void {
    this.#failed = false;
    if (this.#stream !== undefined && coding === this.#coding && coding !== 'deflate' && !this.#stream.destroyed) {
      (this.#stream as unknown as { reset(): void }).reset();
      return;
    }
    this.#close();
    this.#coding = coding;
    this.#sniff = coding === 'deflate';
    if (!this.#sniff) this.#open(coding === 'gzip' ? zlib.createGunzip() : zlib.createBrotliDecompress());
  }

  /** The body was not what its coding says: nothing more is decoded until the next `start`. */
  get failed(): boolean {
    return this.#failed;
  }

  /**
   * Decodes `data[start, end)` and hands each decoded piece to `output` (its buffer is reused after
   * the call). Returns false when `output` did, or the data was not valid (`failed`).
   */
  push(
    data: Uint8Array,
    start: number,
    end: number,
    output: (data: Uint8Array, start: number, end: number) => boolean,
  ): boolean {
    if (this.#failed) return false;
    if (this.#sniff) {
      this.#sniff = false;
      // RFC 1950: CM 8 in the low nibble, and the first two bytes a multiple of 31.
      const wrapped =
        end - start < 2
          ? (data[start]! & 0x0f) === 8
          : (data[start]! & 0x0f) === 8 && ((data[start]! << 8) | data[start + 1]!) % 31 === 0;
      this.#open(wrapped ? zlib.createInflate() : zlib.createInflateRaw());
    }
    const stream = this.#stream;
    if (stream === undefined) return this.#fail();
    const internals = stream as unknown as ZlibInternals;
    const handle = internals._handle;
    if (handle === null) return this.#fail();
    const state = internals._writeState;
    const flush = this.#coding === 'br' ? zlib.constants.BROTLI_OPERATION_PROCESS : zlib.constants.Z_SYNC_FLUSH;
    const out = this.#out;
    let offset = start;
    let left = end - start;
    for (;;) {
      handle.writeSync(flush, data, offset, left, out, 0, OUT_BYTES);
      // An error is told synchronously: node:zlib destroys the stream.
      if (stream.destroyed) return this.#fail();
      const produced = OUT_BYTES - state[0]!;
      const inLeft = state[1]!;
      if (produced > 0 && !output(out, 0, produced)) return false;
      // A full output buffer may leave decoded bytes behind, even with all input taken.
      if (produced < OUT_BYTES) return true;
      offset += left - inLeft;
      left = inLeft;
    }
  }

  /** Frees the zlib state. */
  close(): void {
    this.#close();
  }

  #open(stream: ZlibStream): void {
    stream.on('error', ignore);
    this.#stream = stream;
  }

  #fail(): false {
    this.#failed = true;
    this.#close();
    return false;
  }

  #close(): void {
    this.#stream?.close();
    this.#stream = undefined;
  }
}

/**
 * A captured response (`expect` checks, `onResponse` hooks) with its body decoded in place after
 * its `content-encoding`; an error code when it cannot be.
 */
export function decodeDetails(details: ResponseDetails): string | undefined {
  const decoded = decodeWholeBody(details.body, details.headers['content-encoding']);
  if (typeof decoded === 'string') return decoded;
  details.body = decoded;
  return undefined;
}

/**
 * A whole captured body (`expect` checks, `onResponse` hooks) decoded after its `content-encoding`:
 * the decoded bytes, the body itself when it has no coding, or an error code.
 */
export function decodeWholeBody(
  body: Buffer,
  contentEncoding: string | undefined,
): Buffer | typeof UNSUPPORTED_ENCODING | typeof BAD_ENCODING {
  // A HEAD, 204 or 304 answer says the coding of a body it does not carry.
  if (contentEncoding === undefined || body.length === 0) return body;
  const coding = codingOf(contentEncoding);
  if (coding === 'identity') return body;
  if (coding === undefined) return UNSUPPORTED_ENCODING;
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  try {
    if (coding === 'gzip') return zlib.gunzipSync(body, flush);
    if (coding === 'br') return zlib.brotliDecompressSync(body);
    return (body[0]! & 0x0f) === 8 && ((body[0]! << 8) | body[1]!) % 31 === 0
      ? zlib.inflateSync(body, flush)
      : zlib.inflateRawSync(body, flush);
  } catch {
    return BAD_ENCODING;
  }
}
