import tls from 'node:tls';

/**
 * The secure context a run's connections share. Building one parses the CA store and the
 * certificates: on loopback that costs more than a resumed handshake, and `tls.connect` (and
 * undici's and node:http's connectors) build one per connection unless they are given one.
 */
export function sharedSecureContext(options: tls.ConnectionOptions): tls.SecureContext {
  return options.secureContext ?? tls.createSecureContext(options);
}

/**
 * The TLS session to resume, one per transport (that is per thread and origin), kept the way wrk
 * and browsers keep it: the latest one the server issued, without the server's certificate (see
 * `withoutPeerCertificate`). `remember` is the listener for the sockets' 'session' events.
 *
 * Node checks a certificate only when a handshake carries one, and fails a resumed TLS 1.2
 * handshake whose session has none. So where the user's options reject unverified servers (Node's
 * default), the store does the check itself: sockets connect with Node's check off
 * (`connectOptions`), and at 'secureConnect' `accept` fails, with Node's error code, every
 * connection that was neither verified (Node's `authorized`, which includes the host name check)
 * nor resumed. A session is kept only from a connection that passed, so resuming one never skips
 * a check that failed: TLS 1.2 servers issue theirs during the handshake, before it is verified,
 * and those wait for `accept`.
 */
export class SessionStore {
  session: Buffer | undefined;
  /** Whether this store checks certificates (the user's options reject unverified servers). */
  readonly #verifies: boolean;
  readonly #verified = new WeakSet<tls.TLSSocket>();
  /** Sessions issued before their connection was verified (TLS 1.2), until `accept`. */
  readonly #early = new WeakMap<tls.TLSSocket, Buffer>();
  readonly remember: (this: tls.TLSSocket, session: Buffer) => void;

  constructor(options: tls.ConnectionOptions | undefined) {
    const initial = options?.session;
    this.session = initial === undefined ? undefined : withoutPeerCertificate(initial);
    this.#verifies = options?.rejectUnauthorized !== false;
    // the listener's `this` is the socket
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the function below has its own `this` (the socket or handle calling it)
    const store = this;
    this.remember = function (this: tls.TLSSocket, session: Buffer): void {
      const stripped = withoutPeerCertificate(session);
      if (!store.#verifies || store.#verified.has(this)) store.session = stripped;
      else store.#early.set(this, stripped);
    };
  }

  /** The options to connect with: Node's own certificate check off where the store does it. */
  connectOptions<T extends tls.ConnectionOptions>(options: T): T {
    return this.#verifies ? { ...options, rejectUnauthorized: false } : options;
  }

  /**
   * At 'secureConnect', before the connection is used: false when it must not be (the socket is
   * then destroyed with the error Node would have failed it with, code included).
   */
  accept(socket: tls.TLSSocket): boolean {
    if (!this.#verifies) return true;
    const early = this.#early.get(socket);
    this.#early.delete(socket);
    if (!socket.authorized && !socket.isSessionReused()) {
      const code = String(socket.authorizationError ?? 'CERT_UNTRUSTED');
      socket.destroy(Object.assign(new Error(`the server's certificate was not verified: ${code}`), { code }));
      return false;
    }
    this.#verified.add(socket);
    if (early !== undefined) this.session = early;
    return true;
  }
}

/**
 * `TLSSocket#setSession`, which tls.connect itself uses (and @types/node does not declare). Given
 * as the `session` option, tls.connect decodes the session twice (in the TLSSocket and again
 * before connecting). Set on the socket before the TCP connect completes, so before the handshake
 * starts, it is decoded once. Where it is missing the session goes in as the option.
 */
const SET_SESSION = (tls.TLSSocket.prototype as Partial<{ setSession(this: tls.TLSSocket, session: Buffer): void }>)
  .setSession;

/**
 * Opens a TLS connection for a transport (`net`, `h2`): with TCP_NODELAY, offering the session
 * `sessions` keeps, and keeping the ones the server issues on it. The caller runs
 * `sessions.accept(socket)` at 'secureConnect' before using it.
 */
export function connectTls(options: tls.ConnectionOptions, sessions: SessionStore | undefined): tls.TLSSocket {
  const session = sessions?.session;
  const socket = tls.connect(session === undefined || SET_SESSION !== undefined ? options : { ...options, session });
  if (session !== undefined && SET_SESSION !== undefined) SET_SESSION.call(socket, session);
  socket.setNoDelay(true);
  if (sessions !== undefined) socket.on('session', sessions.remember);
  return socket;
}

/** DER tag of `peer [3] EXPLICIT Certificate` in OpenSSL's SSL_SESSION encoding (ssl/ssl_asn1.c). */
const PEER_CERTIFICATE_TAG = 0xa3;
const SEQUENCE_TAG = 0x30;
/** SEQUENCE { version INTEGER 1, ssl_version INTEGER 0x03xx: TLS 1.2 (0x0303) or 1.3 (0x0304) } */
const SESSION_START = Buffer.from([0x02, 0x01, 0x01, 0x02, 0x02, 0x03]);

/** How Node 22+ starts a serialized session: NUL, `nodejs:tls:session:1`, NUL. */
const NODE_SESSION_MAGIC = Buffer.from('\0nodejs:tls:session:1\0', 'latin1');

/** Reads a DER length at `offset`: [value, bytes it took], or undefined when malformed. */
function readLength(der: Buffer, offset: number): [number, number] | undefined {
  const first = der[offset];
  if (first === undefined) return undefined;
  if (first < 0x80) return [first, 1];
  const bytes = first & 0x7f;
  if (bytes === 0 || bytes > 3 || offset + bytes >= der.length) return undefined;
  let value = 0;
  for (let i = 1; i <= bytes; i++) value = value * 256 + der[offset + i]!;
  return [value, 1 + bytes];
}

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  if (length < 0x100) return Buffer.from([0x81, length]);
  if (length < 0x10000) return Buffer.from([0x82, length >> 8, length & 0xff]);
  return Buffer.from([0x83, length >> 16, (length >> 8) & 0xff, length & 0xff]);
}

/**
 * A TLS 1.2 or 1.3 session without the server's certificate in it. Node hands sessions over as DER,
 * and decoding one decodes the certificate inside it, which OpenSSL 3 makes the most expensive step
 * of a resumed handshake on the client (about 200 us of CPU, more than the handshake's own crypto).
 * Resuming does not need it: the certificate was verified when the session was first made (see
 * `SessionStore`, which keeps only sessions of verified connections), and a resumed handshake
 * proves the server holds the session's secret. (A resumed socket's `getPeerCertificate()` is then
 * empty, which nothing in a load run reads.) Anything that does not parse as expected, and any
 * other protocol version, is returned unchanged.
 */
export function withoutPeerCertificate(session: Buffer): Buffer {
  // Node 22 and later wrap the DER in a header of their own: a magic string, then the server name
  // the session belongs to (a 16-bit length and the name). The header is kept as it is.
  if (session.subarray(0, NODE_SESSION_MAGIC.length).equals(NODE_SESSION_MAGIC)) {
    const nameAt = NODE_SESSION_MAGIC.length + 2;
    if (session.length < nameAt) return session;
    const derAt = nameAt + session.readUInt16BE(NODE_SESSION_MAGIC.length);
    const der = session.subarray(derAt);
    const stripped = withoutPeerCertificateDer(der);
    return stripped === der ? session : Buffer.concat([session.subarray(0, derAt), stripped]);
  }
  return withoutPeerCertificateDer(session);
}

function withoutPeerCertificateDer(session: Buffer): Buffer {
  if (session[0] !== SEQUENCE_TAG) return session;
  const outer = readLength(session, 1);
  if (outer === undefined || 1 + outer[1] + outer[0] !== session.length) return session;
  const start = 1 + outer[1];
  const minor = session[start + SESSION_START.length];
  if (
    !session.subarray(start, start + SESSION_START.length).equals(SESSION_START) ||
    (minor !== 0x03 && minor !== 0x04)
  )
    return session;
  for (let offset = start; offset < session.length;) {
    const length = readLength(session, offset + 1);
    if (length === undefined) return session;
    const end = offset + 1 + length[1] + length[0];
    if (end > session.length) return session;
    if (session[offset] === PEER_CERTIFICATE_TAG) {
      const content = Buffer.concat([session.subarray(start, offset), session.subarray(end)]);
      return Buffer.concat([Buffer.from([SEQUENCE_TAG]), encodeLength(content.length), content]);
    }
    offset = end;
  }
  return session;
}
