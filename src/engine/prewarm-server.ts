import { once } from 'node:events';
import { createServer as createHttp2Server, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** A pre-warm's loopback server: where its requests go, and how to close it. */
export interface PrewarmServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  origin: string;
  close(): Promise<void>;
}

/**
 * The answers, in turn, eight of each on a connection: the shapes real servers send (a small body by
 * length, a chunked one, an error status, a larger body), so that the parser and the recorder have
 * run every common branch before the clock and meet no new one in the run (V8 deoptimises code that
 * reaches a branch it never saw run).
 */
const SHAPES = [
  { status: '200 OK', type: 'text/plain', body: 'ok', chunked: false },
  { status: '200 OK', type: 'application/json', body: '{"ok":true}', chunked: true },
  {
    status: '404 Not Found',
    type: 'text/html',
    body: `<html><body>${'not found '.repeat(14)}</body></html>`,
    chunked: false,
  },
  {
    status: '200 OK',
    type: 'application/json',
    body: JSON.stringify({ items: Array.from({ length: 40 }, (_, id) => ({ id, name: `item ${id}` })) }),
    chunked: false,
  },
];
const SHAPE_RUN = 8;

/** Each shape's bytes for keep-alive (`[i][0]`) and closing (`[i][1]`) connections, with this second's `date`. */
function cannedResponses(): Buffer[][] {
  const date = new Date().toUTCString();
  return SHAPES.map(({ status, type, body, chunked }) =>
    [false, true].map((close) => {
      const framing = chunked
        ? `transfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
        : `content-length: ${body.length}\r\n\r\n${body}`;
      return Buffer.from(
        `HTTP/1.1 ${status}\r\nserver: salvo-prewarm\r\ndate: ${date}\r\ncontent-type: ${type}\r\nconnection: ${close ? 'close' : 'keep-alive'}\r\n${framing}`,
        'latin1',
      );
    }),
  );
}

const HEAD_END = '\r\n\r\n';
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const CONNECTION_CLOSE = /\r\nconnection:[ \t]*close/i;

/**
 * An HTTP/1.1 server on 127.0.0.1 that answers with canned bytes (`SHAPES`): a few microseconds per
 * request, so the pre-warm's CPU goes to salvo's own path. It frames requests by their head and
 * `content-length` (salvo sends no chunked request bodies) and answers pipelined ones in one write.
 */
async function startHttp1(): Promise<PrewarmServer> {
  let responses = cannedResponses();
  let second = Math.floor(Date.now() / 1000);
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    let pending = '';
    let answered = 0;
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      const now = Math.floor(Date.now() / 1000);
      if (now !== second) [second, responses] = [now, cannedResponses()];
      const answers: Buffer[] = [];
      let close = false;
      for (;;) {
        const headEnd = pending.indexOf(HEAD_END);
        if (headEnd < 0) break;
        const head = pending.slice(0, headEnd);
        const length = Number(CONTENT_LENGTH.exec(head)?.[1] ?? 0);
        const end = headEnd + HEAD_END.length + length;
        if (pending.length < end) break;
        pending = pending.slice(end);
        close = CONNECTION_CLOSE.test(head);
        answers.push(responses[Math.floor(answered++ / SHAPE_RUN) % SHAPES.length]![close ? 1 : 0]!);
        if (close) break;
      }
      if (answers.length === 0) return;
      socket.write(answers.length === 1 ? answers[0]! : Buffer.concat(answers));
      if (close) socket.end();
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** The same for HTTP/2 over cleartext (h2c with prior knowledge, as the `h2` transport speaks it to an http: URL). */
async function startHttp2(): Promise<PrewarmServer> {
  const sessions = new Set<Http2Session>();
  const server = createHttp2Server();
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.on('error', () => session.destroy());
    session.on('close', () => sessions.delete(session));
  });
  let answered = 0;
  server.on('stream', (stream: ServerHttp2Stream) => {
    stream.on('error', () => stream.destroy());
    stream.resume();
    const { status, type, body, chunked } = SHAPES[Math.floor(answered++ / SHAPE_RUN) % SHAPES.length]!;
    // A body without content-length is HTTP/2's "chunked": DATA frames until END_STREAM.
    stream.respond({
      ':status': Number(status.slice(0, 3)),
      'content-type': type,
      ...(chunked ? {} : { 'content-length': String(body.length) }),
    });
    stream.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const session of sessions) session.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A loopback server for a pre-warm over `h2` (HTTP/2) or any HTTP/1.1 transport. */
export function startPrewarmServer(http2: boolean): Promise<PrewarmServer> {
  return http2 ? startHttp2() : startHttp1();
}
