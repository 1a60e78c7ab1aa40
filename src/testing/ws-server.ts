import http from 'node:http';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WebSocketServer, type WebSocket } from 'ws';
import { resetCounts, type TestServerStats, type WebSocketServerStats } from './stats.js';
import { listening } from './listening.js';

/** The test server's WebSocket mode (`createTestServer({ websocket: { ... } })`, or `websocket: true`). */
export interface WebSocketMode {
  /** Send every message back on its connection (after the server's `delayMs`). Default true. */
  echo?: boolean;
  /**
   * Every this many ms, send every open connection one text message `{"ts":<epoch ms>,"seq":<n>}`
   * (`ts` with sub-ms precision), so clients can time it with `timestamp: { field: 'ts' }`.
   */
  broadcastIntervalMs?: number;
  /** Pad each broadcast message to this many bytes (a `"pad"` field). Default: no padding. */
  broadcastBytes?: number;
  /** Close each connection (with `closeCode`) once it has received this many messages. */
  closeAfter?: number;
  /** The close code of `closeAfter`. Default 1000. */
  closeCode?: number;
  /** Once a connection has received this many messages, write it a frame with a reserved opcode (garbage). */
  garbageAfter?: number;
}

/** The options of `createTestServer` this mode reads. */
export interface WsServerOptions {
  host?: string;
  port?: number;
  delayMs?: number;
  websocket?: boolean | WebSocketMode;
}

/**
 * `data` as one unmasked server-to-client text frame (RFC 6455 5.2): FIN + opcode 0x1, then the
 * payload length in 7 bits, or 126 + 16 bits, or 127 + 64 bits (network order), then the payload.
 * A broadcast frames its message once with this and writes the same Buffer to every client.
 */
export function textFrame(data: Buffer): Buffer {
  const length = data.length;
  const headerLength = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x81;
  if (length < 126) {
    frame[1] = length;
  } else if (length < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  data.copy(frame, headerLength);
  return frame;
}

const emptyWebSocketStats = (): WebSocketServerStats => ({
  messagesReceived: 0,
  messagesSent: 0,
  broadcasts: 0,
  closed: 0,
  garbage: 0,
});
/** FIN + opcode 0x3, which RFC 6455 reserves: a client must fail the connection (1002). */
const GARBAGE_FRAME = Buffer.from([0x83, 0x00]);

/**
 * A WebSocket test server (`ws`, no compression, TCP_NODELAY): echoes, broadcasts timestamped
 * messages, and can close connections or send garbage frames, counting everything.
 */
export async function createWsTestServer(options: WsServerOptions) {
  const mode: WebSocketMode = options.websocket === true ? {} : (options.websocket as WebSocketMode);
  const echo = mode.echo ?? true;
  const delayMs = options.delayMs ?? 0;
  const stats: TestServerStats & { websocket: WebSocketServerStats } = {
    requests: 0,
    connections: 0,
    openConnections: 0,
    bytesReceived: 0,
    bytesSent: 0,
    statusCodes: {},
    appliedDelayMs: 0,
    websocket: emptyWebSocketStats(),
  };
  let delayed = 0;
  let stallUntil = 0;
  const server = http.createServer((_request, response) =>
    response.writeHead(426, { connection: 'close' }).end('WebSocket only\n'),
  );
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  /**
   * Each open connection, with its TCP socket (the one `handleUpgrade` was given) where a broadcast
   * may write its frame there directly (see `sendFrame`), or undefined where it must use `ws.send`.
   */
  const clients = new Map<WebSocket, Socket | undefined>();
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  const send = (ws: WebSocket, data: Buffer, binary: boolean) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(data, { binary });
    stats.websocket.messagesSent++;
    stats.bytesSent += data.length;
  };

  /**
   * A broadcast's send: `frame` (the message framed once by `textFrame`) written straight to the
   * connection's socket, which spares `ws` framing the same message again for each of thousands of
   * clients. Safe because ws's Sender writes each frame whole and synchronously (cork, header,
   * payload, uncork) whenever it has nothing queued: with compression off (`perMessageDeflate:
   * false`) and only Buffers sent, its queue stays empty, so a frame written here lands between
   * two of its frames, never inside one. Where an extension was negotiated (no socket in
   * `clients`) or the Sender has queued anything (its part of `bufferedAmount`, the rest being the
   * socket's own `writableLength`), the message goes through `ws.send` instead, behind the queue.
   */
  const sendFrame = (ws: WebSocket, socket: Socket | undefined, message: Buffer, frame: Buffer) => {
    if (ws.readyState !== ws.OPEN) return;
    if (socket === undefined || ws.bufferedAmount > socket.writableLength) return send(ws, message, false);
    socket.write(frame);
    stats.websocket.messagesSent++;
    stats.bytesSent += message.length;
  };

  server.on('upgrade', (request, socket: Socket, head) => {
    wss.handleUpgrade(request, socket, head, (ws) => {
      socket.setNoDelay(true);
      stats.connections++;
      stats.openConnections++;
      stats.statusCodes['101'] = (stats.statusCodes['101'] ?? 0) + 1;
      // Compression would frame differently (and `perMessageDeflate: false` should rule it out).
      clients.set(ws, ws.extensions === '' ? socket : undefined);
      let received = 0;
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        received++;
        stats.requests++;
        stats.websocket.messagesReceived++;
        stats.bytesReceived += data.length;
        if (mode.garbageAfter !== undefined && received === mode.garbageAfter) {
          stats.websocket.garbage++;
          socket.write(GARBAGE_FRAME);
          return;
        }
        if (mode.closeAfter !== undefined && received >= mode.closeAfter) {
          if (received === mode.closeAfter) {
            stats.websocket.closed++;
            ws.close(mode.closeCode ?? 1000);
          }
          return;
        }
        if (!echo) return;
        const wait = Math.max(delayMs, stallUntil - performance.now());
        if (wait <= 0) return send(ws, data, isBinary);
        const arrivedAt = performance.now();
        // libuv timers run on a clock cached at the loop's start and can fire a fraction of a ms
        // early: wait out the rest, so no echo ever comes before its delay.
        const answer = () => {
          const left = arrivedAt + wait - performance.now();
          if (left > 0) return void setTimeout(answer, Math.ceil(left));
          stats.appliedDelayMs += (performance.now() - arrivedAt - stats.appliedDelayMs) / ++delayed;
          send(ws, data, isBinary);
        };
        setTimeout(answer, wait);
      });
      ws.on('error', () => {});
      ws.on('close', () => {
        clients.delete(ws);
        stats.openConnections--;
      });
    });
  });

  let broadcastTimer: NodeJS.Timeout | undefined;
  if (mode.broadcastIntervalMs !== undefined) {
    let seq = 0;
    broadcastTimer = setInterval(() => {
      const body = `{"ts":${performance.timeOrigin + performance.now()},"seq":${seq++}`;
      const pad = mode.broadcastBytes === undefined ? 0 : mode.broadcastBytes - body.length - 10;
      const message = Buffer.from(pad > 0 ? `${body},"pad":"${'x'.repeat(pad)}"}` : `${body}}`);
      stats.websocket.broadcasts++;
      const frame = textFrame(message);
      for (const [ws, socket] of clients) sendFrame(ws, socket, message, frame);
    }, mode.broadcastIntervalMs);
  }

  // Thousands of clients connect at once in a ramp or a benchmark: a deeper accept queue than 511.
  server.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1', backlog: 4096 });
  const { url, port } = await listening(server, 'ws');
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
      stats.websocket = emptyWebSocketStats();
      delayed = 0;
    },
    async close() {
      clearInterval(broadcastTimer);
      for (const socket of sockets) socket.destroy();
      wss.close();
      server.close();
      await once(server, 'close');
    },
  };
}
