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
  /** Lower-case names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
}
