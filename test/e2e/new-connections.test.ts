import dns from 'node:dns';
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { X509Certificate } from 'node:crypto';
import tls, { type TLSSocket } from 'node:tls';
import t, { type Test } from 'tap';
import { runLoad, type TransportName } from '../../src/index.js';
import { withoutPeerCertificate } from '../../src/transports/tls-setup.js';
import { localhostCert, localhostKey } from '../fixtures/raw-http-server.js';

const TRANSPORTS: TransportName[] = ['net', 'undici', 'http'];

/** What the server saw: connections accepted (after the handshake for TLS), and how many resumed. */
interface Seen {
  url: string;
  /** TCP connections, whether or not a TLS handshake completed on them. */
  tcp: number;
  connections: number;
  resumed: number;
  requests: number;
  reset(): void;
}

async function server(t: Test, secure: boolean, tlsOptions: https.ServerOptions = {}): Promise<Seen> {
  const handler = (_request: http.IncomingMessage, response: http.ServerResponse): void => {
    seen.requests++;
    response.end('ok');
  };
  const instance = secure
    ? https.createServer({ key: localhostKey, cert: localhostCert, ...tlsOptions }, handler)
    : http.createServer(handler);
  const seen: Seen = {
    url: '',
    tcp: 0,
    connections: 0,
    resumed: 0,
    requests: 0,
    reset() {
      this.tcp = this.connections = this.resumed = this.requests = 0;
    },
  };
  instance.on('connection', () => seen.tcp++);
  instance.on(secure ? 'secureConnection' : 'connection', (socket: TLSSocket) => {
    seen.connections++;
    if (secure && socket.isSessionReused()) seen.resumed++;
  });
  instance.listen(0, '127.0.0.1');
  await once(instance, 'listening');
  seen.url = `${secure ? 'https' : 'http'}://localhost:${(instance.address() as AddressInfo).port}/`;
  t.teardown(() => {
    instance.closeAllConnections();
    instance.close();
  });
  return seen;
}

t.test('keepAlive: false opens exactly one connection per request, http and https, on every transport', async (t) => {
  for (const secure of [false, true]) {
    const seen = await server(t, secure);
    for (const transport of TRANSPORTS) {
      seen.reset();
      const result = await runLoad({ url: seen.url, transport, connections: 4, amount: 60, keepAlive: false, tls: { ca: localhostCert } });
      const label = `${transport} ${secure ? 'https' : 'http'}`;
      t.equal(result.requests.completed, 60, `${label}: responses`);
      t.equal(result.errors.total, 0, `${label}: errors ${JSON.stringify(result.errors.byCode)}`);
      t.equal(seen.requests, 60, `${label}: requests the server saw`);
      t.equal(seen.connections, 60, `${label}: connections the server saw`);
    }
  }
});

t.test('TLS sessions are resumed on new connections, as the server counts them', async (t) => {
  for (const maxVersion of ['TLSv1.3', 'TLSv1.2'] as const) {
    const seen = await server(t, true, { maxVersion });
    for (const transport of TRANSPORTS) {
      seen.reset();
      // One connection at a time: the first handshake is full, every later one resumes the
      // session the one before it got.
      const result = await runLoad({ url: seen.url, transport, connections: 1, amount: 30, keepAlive: false, tls: { ca: localhostCert } });
      t.equal(result.requests.completed, 30, `${transport} ${maxVersion}: responses`);
      t.equal(seen.connections, 30, `${transport} ${maxVersion}: connections`);
      t.equal(seen.resumed, 29, `${transport} ${maxVersion}: resumed handshakes`);
    }
  }
});

t.test('tlsSessionReuse: false makes every handshake a full one', async (t) => {
  const seen = await server(t, true);
  for (const transport of TRANSPORTS) {
    seen.reset();
    const result = await runLoad({
      url: seen.url,
      transport,
      connections: 2,
      amount: 20,
      keepAlive: false,
      tlsSessionReuse: false,
      tls: { ca: localhostCert },
    });
    t.equal(result.requests.completed, 20, `${transport}: responses`);
    t.equal(seen.connections, 20, `${transport}: connections`);
    t.equal(seen.resumed, 0, `${transport}: no handshake resumed`);
  }
});

t.test('a reused session still verifies the certificate: a failed verification is never resumed around', async (t) => {
  // TLS 1.2 servers issue their session during the handshake, before the client has checked the
  // certificate; salvo's net and h2 transports resume sessions without the certificate in them, so
  // a session from a connection that failed must never be kept. Each failure is counted under the
  // code Node itself fails such a connection with.
  const cases = [
    { name: 'an untrusted certificate', tls: {}, code: 'DEPTH_ZERO_SELF_SIGNED_CERT' },
    { name: 'a certificate for another name', tls: { ca: localhostCert, servername: 'elsewhere.test' }, code: 'ERR_TLS_CERT_ALTNAME_INVALID' },
  ];
  for (const maxVersion of ['TLSv1.3', 'TLSv1.2'] as const) {
    const seen = await server(t, true, { maxVersion });
    for (const { name, tls: tlsOptions, code } of cases) {
      for (const transport of TRANSPORTS) {
        seen.reset();
        const result = await runLoad({ url: seen.url, transport, connections: 1, amount: 5, keepAlive: false, tls: tlsOptions });
        const label = `${transport} ${maxVersion}, ${name}`;
        t.equal(result.requests.completed, 0, `${label}: rejected`);
        t.same(Object.keys(result.errors.byCode), [code], `${label}: counted as ${code}: ${JSON.stringify(result.errors.byCode)}`);
        t.ok(seen.tcp >= 2, `${label}: ${seen.tcp} connections tried`);
        t.equal(seen.resumed, 0, `${label}: nothing resumed`);
      }
    }
  }
});

t.test('with rejectUnauthorized: false an untrusted server is used, and its sessions resumed', async (t) => {
  for (const maxVersion of ['TLSv1.3', 'TLSv1.2'] as const) {
    const seen = await server(t, true, { maxVersion });
    for (const transport of ['net', 'undici', 'http'] as TransportName[]) {
      seen.reset();
      const result = await runLoad({ url: seen.url, transport, connections: 1, amount: 10, keepAlive: false, tls: { rejectUnauthorized: false } });
      t.equal(result.requests.completed, 10, `${transport} ${maxVersion}: responses`);
      t.equal(seen.resumed, 9, `${transport} ${maxVersion}: resumed handshakes`);
    }
  }
});

t.test('tlsSessionReuse must be a boolean', async (t) => {
  await t.rejects(runLoad({ url: 'https://127.0.0.1:1/', amount: 1, tlsSessionReuse: 'no' as unknown as boolean }), {
    code: 'SALVO_INVALID_OPTION',
    message: /tlsSessionReuse must be true or false; got "no"/,
  });
});

t.test('the host name is resolved once per run, not once per connection, on every transport', async (t) => {
  const seen = await server(t, false);
  const lookup = dns.lookup;
  let lookups = 0;
  dns.lookup = ((...args: Parameters<typeof lookup>) => {
    if (args[0] === 'localhost') lookups++;
    return (lookup as (...a: unknown[]) => void)(...args);
  }) as typeof lookup;
  t.teardown(() => {
    dns.lookup = lookup;
  });
  for (const transport of TRANSPORTS) {
    seen.reset();
    lookups = 0;
    const result = await runLoad({ url: seen.url, transport, connections: 4, amount: 40, keepAlive: false });
    t.equal(result.requests.completed, 40, `${transport}: responses`);
    t.equal(seen.connections, 40, `${transport}: connections the server saw`);
    t.equal(lookups, 1, `${transport}: lookups of localhost`);
  }
});

t.test('TLS 1.3 and 1.2 sessions are kept without the certificate', async (t) => {
  const certBytes = new X509Certificate(localhostCert).raw.length;
  for (const maxVersion of ['TLSv1.3', 'TLSv1.2'] as const) {
    const seen = await server(t, true, { maxVersion });
    const socket = tls.connect({ host: '127.0.0.1', port: Number(new URL(seen.url).port), ca: localhostCert, servername: 'localhost' });
    const [session] = (await once(socket, 'session')) as [Buffer];
    socket.destroy();
    const kept = withoutPeerCertificate(session);
    t.ok(kept.length <= session.length - certBytes, `${maxVersion}: ${session.length} -> ${kept.length} bytes`);
    t.equal(withoutPeerCertificate(kept), kept, `${maxVersion}: stripping again changes nothing`);
  }
  t.equal(withoutPeerCertificate(Buffer.from('not DER')).toString(), 'not DER', 'anything else unchanged');
});
