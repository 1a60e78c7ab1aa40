import type { ResolvedRequest } from '../shared/exchange.js';
import { DEFAULT_MAX_FRAME_BYTES, encodeFrame, Flag, FRAME_HEADER_BYTES, FrameType } from './frames.js';
import { encodeHeaderBlock } from './hpack-encoder.js';

/** Headers that are HTTP/1.1 connection-specific and forbidden in HTTP/2 (RFC 9113 8.2.2). */
const CONNECTION_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** A request pre-encoded once per run: HEADERS (and CONTINUATION) frames whose stream id is patched per stream. */
export interface H2Request {
  headerFrames: Buffer;
  /** Offsets of the frame headers in `headerFrames`. */
  frameStarts: number[];
  /** Sent in DATA frames as the windows allow; undefined or empty: HEADERS ends the stream. */
  body: Buffer | undefined;
  /** A HEAD request: its response's content-length says what a GET would get, with no DATA. */
  head: boolean;
}

/** Encodes a request's header block into HEADERS + CONTINUATION frames (stream id 0, patched when sent). */
function encodeRequestFrames(block: Buffer, body: Buffer | undefined, head: boolean): H2Request {
  const frames: Buffer[] = [];
  const frameStarts: number[] = [];
  let offset = 0;
  let at = 0;
  do {
    const length = Math.min(DEFAULT_MAX_FRAME_BYTES, block.length - at);
    const first = at === 0;
    const last = at + length === block.length;
    const flags = (last ? Flag.END_HEADERS : 0) | (first && body === undefined ? Flag.END_STREAM : 0);
    frames.push(
      encodeFrame(first ? FrameType.HEADERS : FrameType.CONTINUATION, flags, 0, block.subarray(at, at + length)),
    );
    frameStarts.push(offset);
    offset += FRAME_HEADER_BYTES + length;
    at += length;
  } while (at < block.length);
  return { headerFrames: Buffer.concat(frames), frameStarts, body, head };
}

/**
 * Encodes a request once as HTTP/2 frames: the pseudo-headers from `url` (`:authority` from a `host`
 * header when the request sets one), its headers less the connection-specific ones, `content-length`
 * when there is a body.
 */
export function encodeRequest(url: URL, request: ResolvedRequest): H2Request {
  const fields: Array<[string, string]> = [
    [':method', request.method],
    [':scheme', url.protocol.slice(0, -1)],
    [':authority', request.headers.host ?? url.host],
    [':path', request.path],
  ];
  for (const [name, value] of Object.entries(request.headers)) {
    if (!CONNECTION_HEADERS.has(name) && !(name === 'te' && value !== 'trailers')) fields.push([name, value]);
  }
  const body = request.body !== undefined && request.body.length > 0 ? request.body : undefined;
  if (body !== undefined) fields.push(['content-length', String(body.length)]);
  return encodeRequestFrames(encodeHeaderBlock(fields), body, request.method === 'HEAD');
}
