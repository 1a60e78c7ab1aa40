// What one exchange carries, in the form every codec and transport shares.

/**
 * A request after options are resolved: what every transport gets, before its own encoding.
 * Header names are lower-case; `host`, `content-length` and `connection` are added by the transport.
 */
export interface ResolvedRequest {
  method: string;
  /** Path and query, starting with '/'. */
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** Headers and body of a response, given only when the engine asked for them (`captureResponses`). */
export interface ResponseDetails {
  /** Lower-case names; repeated headers joined with ', ', but `set-cookie` lines with '\n' (`joinFieldValue`). */
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * A repeated response field's value joined onto the earlier ones: with ', ' (RFC 9110 5.3), but
 * `set-cookie` lines with '\n', since a cookie's Expires holds a comma (RFC 6265 3) and no field
 * value holds a line feed.
 */
export function joinFieldValue(name: string, previous: string | undefined, value: string): string {
  if (previous === undefined) return value;
  return name === 'set-cookie' ? `${previous}\n${value}` : `${previous}, ${value}`;
}
