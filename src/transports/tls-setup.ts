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
 * and browsers keep it: the latest one the server issued. TLS 1.3 servers send their tickets after
 * the handshake, in 'session' events; `remember` is the listener for them.
 */
export class SessionStore {
  session: Buffer | undefined;

  constructor(initial: Buffer | undefined) {
    this.session = initial === undefined ? undefined : withoutPeerCertificate(initial);
  }

  readonly remember = (session: Buffer): void => {
    this.session = withoutPeerCertificate(session);
  };
}

/** DER tag of `peer [3] EXPLICIT Certificate` in OpenSSL's SSL_SESSION encoding (ssl/ssl_asn1.c). */
const PEER_CERTIFICATE_TAG = 0xa3;
const SEQUENCE_TAG = 0x30;
const TLS13_SESSION_START = Buffer.from([0x02, 0x01, 0x01, 0x02, 0x02, 0x03, 0x04]);

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
 * A TLS 1.3 session without the server's certificate in it. Node hands sessions over as DER, and
 * decoding one decodes the certificate inside it, which OpenSSL 3 makes the most expensive step of
 * a resumed handshake on the client (about 200 us of CPU, more than the handshake's own crypto).
 * Resuming does not need it: the certificate was verified when the session was first made, and a
 * resumed handshake proves the server holds the session's secret; Node accepts a resumed TLS 1.3
 * connection without a certificate (as it does PSK), a TLS 1.2 one it does not, so TLS 1.2
 * sessions are kept whole. (A resumed socket's `getPeerCertificate()` is then empty, which nothing
 * in a load run reads.) Anything that does not parse as expected is returned unchanged.
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
  // SEQUENCE { version INTEGER (1), ssl_version INTEGER (0x0304 for TLS 1.3), ... }
  if (!session.subarray(start, start + 7).equals(TLS13_SESSION_START)) return session;
  for (let offset = start; offset < session.length; ) {
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
