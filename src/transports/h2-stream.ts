import type tls from 'node:tls';
import type net from 'node:net';
import { ERROR_NAMES } from '../http2/frames.js';
import { NO_CONTENT_LENGTH } from '../http2/hpack.js';
import type { H2Request } from '../http2/request.js';
import type { PhaseRecorder } from '../stats/phases.js';
import type { SessionStore } from './tls-setup.js';
import type { Lane } from './transport.js';

/**
 * A request on a stream above the last stream id of the server's GOAWAY: never processed, and not sent
 * again (`retry` is off, or it was already sent again once).
 */
export const H2_GOAWAY = 'H2_GOAWAY';
/** The server does not speak HTTP/2: it answered h2c's preface with something other than SETTINGS, or TLS did not pick h2. */
export const H2_NOT_SUPPORTED = 'H2_NOT_SUPPORTED';

const RESET_CODES = ERROR_NAMES.map((name) => `H2_RST_${name}`);
const ERROR_CODES = ERROR_NAMES.map((name) => `H2_${name}`);

/** The code of a request whose stream the server reset with RST_STREAM: `H2_RST_REFUSED_STREAM`, ... */
export function resetCode(code: number): string {
  return RESET_CODES[code] ?? `H2_RST_${code}`;
}

/** The code of requests lost to a connection error: ours (`H2_PROTOCOL_ERROR`, ...) or the server's GOAWAY code. */
export function connectionErrorCode(code: number): string {
  return ERROR_CODES[code] ?? `H2_ERROR_${code}`;
}

/** What a lane asks of the connection its stream is on. */
export interface H2StreamConnection {
  /** Ends the stream; true when its request never reached the wire. */
  cancel(stream: H2Stream): boolean;
  /** Closes an h2c connection still silent on our preface as not HTTP/2; false if it is not that. */
  notH2IfSilent(): boolean;
  /** The session's preface and SETTINGS went out: streams opened before are written then. */
  readonly connected: boolean;
}

/** Per lane, made once and reused by each of its requests: the stream it has open now, if any. */
export class H2Stream {
  /** Stream id while a request is in flight, 0 otherwise. */
  id = 0;
  connection: H2StreamConnection | undefined;
  status = 0;
  /** Frames of this stream received (headers included). */
  bytes = 0;
  /** DATA payload received since this stream's window was last topped up. */
  unacknowledged = 0;
  /** The response's data so far (padding not counted), and what its content-length declared. */
  dataBytes = 0;
  declaredLength = NO_CONTENT_LENGTH;
  head = false;
  /** First byte of the final response head: FIRST_BYTE_IN_LAST_READ until its read ends. */
  firstByteAt = 0;
  headers: Record<string, string> | undefined;
  chunks: Buffer[] = [];
  /** The request body still to send, from `bodyOffset`, within `sendWindow`. */
  body: Buffer | undefined;
  bodyOffset = 0;
  sendWindow = 0;
  /** Waiting for the server's concurrent-stream limit to let it open: its request, not yet written. */
  queued: H2Request | undefined;
  /** The request in flight, kept to send it again when the server did not process it. */
  request: H2Request | undefined;

  constructor(readonly lane: Lane) {}
}

/** Where and how to connect, worked out once per transport. */
export interface H2Endpoint {
  host: string;
  port: number;
  /** tls.connect options with the shared secure context and ALPN h2, or undefined for h2c. */
  tls: tls.ConnectionOptions | undefined;
  phases: PhaseRecorder;
  lookup: net.LookupFunction;
  /** Plain-TCP reads share one buffer per transport (parsed before the read returns); TLS gets its own. */
  readBuffer: Buffer | undefined;
  sessions: SessionStore | undefined;
  /** How long an h2c connection may stay without the server's SETTINGS before it counts as not HTTP/2 (the request timeout). */
  settingsTimeoutMs: number;
}
