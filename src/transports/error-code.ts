/**
 * The code for requests still in flight when the server closes the connection cleanly (FIN, no
 * reset) before answering them that are not sent again: the retry rules (`TransportConfig.retry`)
 * send again, once, those the server provably never processed.
 */
export const CONNECTION_CLOSED = 'ECONNCLOSED';

/**
 * The code for a non-idempotent request (POST, PATCH, ...) pipelined behind a response that announced
 * the close: RFC 9112 says the server reads no further, but some (Node's node:http) have already
 * processed it, so it is not sent again.
 */
export const CLOSED_NOT_IDEMPOTENT = 'ECONNCLOSED_NOT_IDEMPOTENT';

/**
 * The code for a request in flight on a connection whose server sent a response nobody asked for
 * (one more than the requests written when it arrived): the responses no longer line up with the
 * requests, so the connection is closed and nothing more on it is credited.
 */
export const UNSOLICITED_RESPONSE = 'UNSOLICITED_RESPONSE';

/**
 * The stable code an error is counted under: the errno-style `code` (ECONNREFUSED, ECONNRESET, a TLS
 * verification code such as DEPTH_ZERO_SELF_SIGNED_CERT), the code of its cause when the outer
 * error is a wrapper (undici's UND_ERR_SOCKET), else its name.
 */
export function errorCode(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'UNKNOWN';
  const { code, cause, name } = error as { code?: unknown; cause?: unknown; name?: unknown };
  if (cause && typeof cause === 'object' && typeof (cause as { code?: unknown }).code === 'string') {
    const causeCode = (cause as { code: string }).code;
    if (code === undefined || code === 'UND_ERR_SOCKET') return causeCode;
  }
  if (typeof code === 'string') return code;
  return typeof name === 'string' ? name : 'UNKNOWN';
}
