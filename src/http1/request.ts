import type { ResolvedRequest } from '../shared/exchange.js';

/** A CR or LF inside a request line or header would split the request and shift every response. */
const LINE_BREAK = /[\r\n]/;

function assertSingleLine(what: string, value: string): void {
  if (LINE_BREAK.test(value)) {
    throw new TypeError(`${what} must not contain CR or LF, got ${JSON.stringify(value)}`);
  }
}

/**
 * Encodes a request as the exact bytes an HTTP/1.1 client writes, once, so that each send is one
 * write of a ready Buffer. Adds `host` (from the URL, with the port when it is not the scheme's
 * default) unless the request sets one, `content-length` when there is a body, and
 * `connection: close` when connections are not kept alive.
 */
export function encodeRequest(url: URL, request: ResolvedRequest, keepAlive: boolean): Buffer {
  assertSingleLine('method', request.method);
  assertSingleLine('path', request.path);
  let head = `${request.method} ${request.path} HTTP/1.1\r\n`;
  if (request.headers.host === undefined) head += `host: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'content-length' || (name === 'connection' && !keepAlive)) continue;
    assertSingleLine(`header ${name}`, name);
    assertSingleLine(`header ${name}`, value);
    head += `${name}: ${value}\r\n`;
  }
  if (request.body !== undefined) head += `content-length: ${request.body.length}\r\n`;
  if (!keepAlive) head += 'connection: close\r\n';
  head += '\r\n';
  // latin1 keeps header octets as given; the body is already bytes.
  const headBytes = Buffer.from(head, 'latin1');
  return request.body === undefined ? headBytes : Buffer.concat([headBytes, request.body]);
}

/** The method of an encoded request (latin1, up to the first space). */
export function requestMethod(encoded: Buffer): string {
  const end = encoded.indexOf(0x20);
  return encoded.toString('latin1', 0, end < 0 ? 0 : end);
}

/** The encoded request is a HEAD request, whose response has no body. */
export function isHeadRequest(encoded: Buffer): boolean {
  return (
    encoded[0] === 0x48 && encoded[1] === 0x45 && encoded[2] === 0x41 && encoded[3] === 0x44 && encoded[4] === 0x20
  );
}
