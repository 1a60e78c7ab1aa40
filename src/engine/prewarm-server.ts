import { once } from 'node:events';
import { createServer as createHttp2Server, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** A pre-warm's loopback server: where its requests go, and how to close it. */
export interface PrewarmServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  origin: string;
  close(): Promise<void>;
}

/** The answer to every request: the head most servers send for a small body (what the parser reads in a real run). */
function cannedResponse(close: boolean): Buffer {
  return Buffer.from(
    `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\ndate: ${new Date().toUTCString()}\r\nconnection: ${close ? 'close' : 'keep-alive'}\r\n\r\nok`,
    'latin1',
  );
}

const HEAD_END = '\r\n\r\n';
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const CONNECTION_CLOSE = /\r\nconnection:[ \t]*close/i;

/**
 * An HTTP/1.1 server on 127.0.0.1 that answers every request with the same bytes: a few microseconds
 * per request, so the pre-warm's CPU goes to salvo's own path. It frames requests by their head and
 * `content-length` (salvo sends no chunked request bodies) and answers pipelined ones in one write.
 */
async function startHttp1(): Promise<PrewarmServer> {
  const keepAlive = cannedResponse(false);
  const closing = cannedResponse(true);
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
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
        answers.push(close ? closing : keepAlive);
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
  server.on('stream', (stream: ServerHttp2Stream) => {
    stream.on('error', () => stream.destroy());
    stream.resume();
    stream.respond({ ':status': 200, 'content-type': 'text/plain', 'content-length': '2' });
    stream.end('ok');
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
