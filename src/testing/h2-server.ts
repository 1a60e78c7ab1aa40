import http2, { type Http2Server, type Http2Session, type Http2SecureServer, type ServerHttp2Stream } from 'node:http2';
import { once } from 'node:events';
import { resetCounts, type H2Stats, type TestServerStats } from './stats.js';
import { listening } from './listening.js';

/** The test server's HTTP/2 mode (`createTestServer({ h2: { ... } })`, or `h2: true` for h2c defaults). */
export interface H2Mode {
  /** Serve h2 over TLS (ALPN `h2` only) with this key and certificate; without it, h2c (prior knowledge). */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** SETTINGS_MAX_CONCURRENT_STREAMS announced to clients. Default: none (unlimited). */
  maxConcurrentStreams?: number;
  /** Reset every n-th stream (counted over the whole server) with RST_STREAM instead of answering it. */
  resetEvery?: number;
  /** The HTTP/2 error code of those resets. Default 7 (REFUSED_STREAM). */
  resetCode?: number;
  /**
   * After answering this many streams on a session, send GOAWAY (NO_ERROR) naming the last of them;
   * streams above it are never answered (the client sends them again on a new session, once).
   */
  goawayAfter?: number;
}

/** The options of `createTestServer` this mode reads. */
export interface H2ServerOptions {
  host?: string;
  port?: number;
  status?: number;
  bodySize?: number;
  delayMs?: number;
  headers?: Record<string, string>;
  onRequest?: (request: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body: Buffer;
    connection: number;
  }) => void;
  h2?: boolean | H2Mode;
}

/** Per-session state. */
interface SessionState {
  id: number;
  inFlight: number;
  answered: number;
  /** Last stream id of the GOAWAY sent, once sent. */
  goawayAt: number | undefined;
}

const sessionStates = new WeakMap<Http2Session, SessionState>();

/**
 * An HTTP/2 test server (h2c, or h2 over TLS): answers every stream with the configured status and
 * body, and counts sessions, streams, and the streams each session has in flight.
 */
export async function createH2TestServer(options: H2ServerOptions) {
  const mode: H2Mode = typeof options.h2 === 'object' ? options.h2 : {};
  const status = options.status ?? 200;
  const size = options.bodySize ?? 2;
  const body = Buffer.alloc(size, 'o');
  if (size >= 2) body.write('ok');
  const noBody = status === 204 || status === 304;
  const responseHeaders = { ':status': status, ...(noBody ? {} : { 'content-length': size }), ...options.headers };
  const stats: TestServerStats & { h2: H2Stats } = {
    requests: 0,
    connections: 0,
    openConnections: 0,
    bytesReceived: 0,
    bytesSent: 0,
    statusCodes: {},
    appliedDelayMs: 0,
    h2: { sessions: 0, streams: 0, maxStreamsInFlight: 0, resets: 0, goaways: 0 },
  };
  let delayed = 0;
  let stallUntil = 0;
  const sessions = new Set<Http2Session>();
  const settings = mode.maxConcurrentStreams === undefined ? {} : { maxConcurrentStreams: mode.maxConcurrentStreams };
  const server: Http2Server | Http2SecureServer = mode.tls
    ? http2.createSecureServer({ key: mode.tls.key, cert: mode.tls.cert, settings, allowHTTP1: false })
    : http2.createServer({ settings });

  server.on('session', (session: Http2Session) => {
    const state: SessionState = { id: stats.connections++, inFlight: 0, answered: 0, goawayAt: undefined };
    sessionStates.set(session, state);
    stats.h2.sessions++;
    stats.openConnections++;
    sessions.add(session);
    session.on('error', () => {});
    session.on('close', () => {
      stats.openConnections--;
      sessions.delete(session);
    });
  });

  server.on('stream', (stream: ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => {
    const session = stream.session!;
    const state = sessionStates.get(session)!;
    stats.h2.streams++;
    stream.on('error', () => {});
    if (state.goawayAt !== undefined && stream.id! > state.goawayAt) return; // above the GOAWAY: never answered
    state.inFlight++;
    stats.h2.maxStreamsInFlight = Math.max(stats.h2.maxStreamsInFlight, state.inFlight);
    if (mode.resetEvery !== undefined && stats.h2.streams % mode.resetEvery === 0) {
      state.inFlight--;
      stats.h2.resets++;
      stream.close(mode.resetCode ?? http2.constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => {
      stats.bytesReceived += chunk.length;
      chunks.push(chunk);
    });
    stream.on('end', () => {
      stats.requests++;
      if (options.onRequest) {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(headers))
          if (!name.startsWith(':') && value !== undefined) flat[name] = String(value);
        options.onRequest({
          method: String(headers[':method']),
          path: String(headers[':path']),
          headers: flat,
          body: Buffer.concat(chunks),
          connection: state.id,
        });
      }
      const arrivedAt = performance.now();
      const dueAt = Math.max(arrivedAt + (options.delayMs ?? 0), stallUntil);
      const respond = (): void => {
        const now = performance.now();
        if (now < dueAt) {
          setTimeout(respond, Math.max(0, dueAt - now - 1));
          return;
        }
        if (options.delayMs) stats.appliedDelayMs += (now - arrivedAt - stats.appliedDelayMs) / ++delayed;
        state.inFlight--;
        if (stream.destroyed || (state.goawayAt !== undefined && stream.id! > state.goawayAt)) return;
        stats.statusCodes[status] = (stats.statusCodes[status] ?? 0) + 1;
        const head = headers[':method'] === 'HEAD';
        stream.respond(responseHeaders, { endStream: noBody || head });
        if (!noBody && !head) {
          stats.bytesSent += body.length;
          stream.end(body);
        }
        state.answered++;
        if (mode.goawayAfter !== undefined && state.answered === mode.goawayAfter && state.goawayAt === undefined) {
          state.goawayAt = stream.id!;
          stats.h2.goaways++;
          session.goaway(http2.constants.NGHTTP2_NO_ERROR, stream.id!);
        }
      };
      if (dueAt <= arrivedAt) respond();
      else setTimeout(respond, dueAt - arrivedAt);
    });
  });

  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  const { url, port } = await listening(server, mode.tls ? 'https' : 'http');
  return {
    url,
    port,
    pid: process.pid,
    stats,
    stall(ms: number) {
      stallUntil = Math.max(stallUntil, performance.now() + ms);
    },
    reset() {
      resetCounts(stats);
      stats.h2 = { sessions: 0, streams: 0, maxStreamsInFlight: 0, resets: 0, goaways: 0 };
      delayed = 0;
    },
    async close() {
      for (const session of sessions) session.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
