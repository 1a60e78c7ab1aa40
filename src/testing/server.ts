import net from 'node:net';
import { once } from 'node:events';
import { createH2TestServer, type H2Mode } from './h2-server.js';
import { CapacityQueue } from './capacity-queue.js';
import { createWsTestServer, type WebSocketMode } from './ws-server.js';
import { resetCounts, type TestServerStats } from './stats.js';
import { listening } from './listening.js';

/** Options of `createTestServer`. */
export interface CreateTestServerOptions {
  /** Address to listen on. Default `'127.0.0.1'`. */
  host?: string;
  /** Port; default 0 (a free port). */
  port?: number;
  /** Status code of every response. Default 200. */
  status?: number;
  /** Body size in bytes. Default 2 (`'ok'`). */
  bodySize?: number;
  /** Send the body with `Transfer-Encoding: chunked` (in chunks of at most 16 KiB). */
  chunked?: boolean;
  /** Answer with `Connection: close` and close the connection after every response. */
  close?: boolean;
  /** Fixed delay before each response, ms. */
  delayMs?: number;
  /**
   * Keep every delay to about 0.1 ms instead of Node's timer granularity (a response then leaves 0-2 ms
   * after its delay; `stats.appliedDelayMs` says by how much). The price: the last 1.5 ms of each
   * delay is waited out by polling the event loop with setImmediate, which keeps the server's thread
   * busy while any response is that close to due. Use it where the server has a process of its own
   * (as salvo's benchmarks and latency tests do); in the process that runs the load, the polling
   * takes the generator's CPU and its event loop, and salvo reports itself saturated. Default false.
   */
  preciseDelay?: boolean;
  /**
   * Delay between writing a response's head and writing its body, ms (a server that streams): the
   * first byte comes after `delayMs`, the last this much later.
   */
  bodyDelayMs?: number;
  /** Random delay uniformly between `min` and `max` ms, instead of `delayMs`. */
  randomDelayMs?: { min: number; max: number };
  /**
   * Serve at most this many requests per second over all connections, spaced evenly, and queue the
   * rest: below it latency stays at the delay, past it latency climbs for as long as the overload
   * lasts. A server with a known capacity, for capacity searches.
   */
  capacity?: number;
  /** Fraction (0..1) of responses answered with 500 instead of `status`. */
  errorRate?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Called for each request with its parsed head and body (slower: parses every header). */
  onRequest?: (request: TestRequest) => void;
  /**
   * Speak HTTP/2 instead (h2c, or h2 over TLS with `h2: { tls: { key, cert } }`), counting sessions
   * and streams in `stats.h2`; see `H2Mode`. `chunked`, `close`, `errorRate` and `randomDelayMs`
   * are HTTP/1.1 only.
   */
  h2?: boolean | H2Mode;
  /**
   * Speak WebSocket instead (`url` is then `ws://...`): echo each message after `delayMs`,
   * broadcast timestamped messages, close connections or send garbage frames; see `WebSocketMode`.
   * `stats.requests` counts messages received, `stats.websocket` the rest.
   */
  websocket?: boolean | WebSocketMode;
}

/** A request as the test server saw it. */
export interface TestRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Id of the connection it came on, in accept order from 0. */
  connection: number;
}

/** A running test server. */
export interface TestServer {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  readonly port: number;
  /** The pid of the process serving (this one): what `monitor: { processes: [pid] }` watches. */
  readonly pid: number;
  readonly stats: TestServerStats;
  /** Holds every response due in the next `ms` milliseconds until then (a server stall). */
  stall(ms: number): void;
  /** Zeroes the counters. */
  reset(): void;
  /** Stops listening and destroys every open connection. */
  close(): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  304: 'Not Modified',
  400: 'Bad Request',
  404: 'Not Found',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
interface QueuedResponse {
  /** Set once the response's delay has passed. */
  response: Buffer | undefined;
  /** Close the connection after writing it. */
  close: boolean;
  /** Called once it is written (`bodyDelayMs`: starts the body's delay). */
  onWritten?: () => void;
}

const MAX_HEAD_BYTES = 64 * 1024;
const CHUNK_BYTES = 16 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');

function buildResponse(status: number, options: CreateTestServerOptions, head: boolean): Buffer {
  const noBody = head || status === 204 || status === 304 || (status >= 100 && status < 200);
  const size = options.bodySize ?? 2;
  const body = Buffer.alloc(size, 'o');
  if (size >= 2) body.write('ok');
  const lines = [`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Status'}`];
  for (const [name, value] of Object.entries(options.headers ?? {})) lines.push(`${name}: ${value}`);
  if (options.close) lines.push('Connection: close');
  if (status === 204 || (status >= 100 && status < 200)) {
    return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
  }
  if (!options.chunked) {
    lines.push(`Content-Length: ${size}`);
    const headBytes = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
    return noBody ? headBytes : Buffer.concat([headBytes, body]);
  }
  lines.push('Transfer-Encoding: chunked');
  const parts = [Buffer.from(`${lines.join('\r\n')}\r\n\r\n`)];
  if (!noBody) {
    for (let offset = 0; offset < size; offset += CHUNK_BYTES) {
      const chunk = body.subarray(offset, Math.min(size, offset + CHUNK_BYTES));
      parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from('0\r\n\r\n'));
  }
  return Buffer.concat(parts);
}

function parseHead(head: string): { method: string; path: string; headers: Record<string, string> } {
  const [requestLine = '', ...lines] = head.split('\r\n');
  const [method = '', path = ''] = requestLine.split(' ');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { method, path, headers };
}

/** Reads `name: value` from a lower-cased request head without parsing the others (the fast path). */
function headerValue(head: string, name: string): string | undefined {
  const at = head.indexOf(`\r\n${name}:`);
  if (at < 0) return undefined;
  const lineEnd = head.indexOf('\r\n', at + 2);
  return head.slice(at + name.length + 3, lineEnd < 0 ? head.length : lineEnd).trim();
}

/**
 * Starts a fast HTTP/1.1 server on loopback for load tests, examples and benchmarks: responses are
 * built once, sockets use setNoDelay, pipelined requests are answered in order, and every request,
 * connection and byte is counted so tests can compare the client's numbers with the server's.
 * Request bodies are read by Content-Length (chunked request bodies are not supported).
 */
export async function createTestServer(options: CreateTestServerOptions = {}): Promise<TestServer> {
  if (options.h2) return createH2TestServer(options);
  if (options.websocket) return createWsTestServer(options);
  const status = options.status ?? 200;
  const precise = options.preciseDelay === true;
  // Every response this server can send, built once: status or 500, GET or HEAD, keep or close.
  const responses: Buffer[] = [];
  for (const code of [status, 500]) {
    for (const head of [false, true]) {
      for (const close of [false, true]) responses.push(buildResponse(code, { ...options, close }, head));
    }
  }
  const responseFor = (failed: boolean, head: boolean, close: boolean): Buffer =>
    responses[(failed ? 4 : 0) + (head ? 2 : 0) + (close ? 1 : 0)]!;
  const stats: TestServerStats = {
    requests: 0,
    connections: 0,
    openConnections: 0,
    bytesReceived: 0,
    bytesSent: 0,
    statusCodes: {},
    appliedDelayMs: 0,
  };
  let delayed = 0;
  const sockets = new Set<net.Socket>();
  let stallUntil = 0;
  const capacityQueue = options.capacity === undefined ? undefined : new CapacityQueue(options.capacity);

  function delayFor(): number {
    if (options.randomDelayMs) {
      const { min, max } = options.randomDelayMs;
      return min + Math.random() * (max - min);
    }
    return options.delayMs ?? 0;
  }

  function onConnection(socket: net.Socket): void {
    const connection = stats.connections++;
    stats.openConnections++;
    sockets.add(socket);
    socket.setNoDelay(true);
    let pending: Buffer | undefined;
    /** Responses not yet written, in request order: a response goes out once all before it have. */
    const queue: QueuedResponse[] = [];
    let closing = false;

    const flush = () => {
      while (queue.length > 0 && queue[0]!.response !== undefined) {
        const { response, close, onWritten } = queue.shift()!;
        if (socket.destroyed) return;
        stats.bytesSent += response!.length;
        socket.write(response!);
        onWritten?.();
        if (close) {
          closing = true;
          socket.end();
          return;
        }
      }
    };

    /** Gives `slot` its bytes at `dueAt` (later if the server is stalled), then writes what is ready. */
    const releaseAt = (slot: QueuedResponse, response: Buffer, dueAt: number, arrivedAt: number | undefined) => {
      // Timers fire at whole milliseconds, up to 2 ms late and sometimes early: an early one is
      // re-armed, so no response leaves before its time. preciseDelay wakes 1.5 ms early and finishes
      // on setImmediate, so the delay a load test sees is the one configured, to about 0.1 ms.
      const release = () => {
        if (socket.destroyed) return; // closed meanwhile: no timers left behind to hold the process
        const now = performance.now();
        const until = Math.max(dueAt, stallUntil);
        if (!precise && now < until) setTimeout(release, until - now);
        else if (now < until - 1.5) setTimeout(release, until - now - 1.5);
        else if (now < until) setImmediate(release);
        else {
          if (arrivedAt !== undefined) stats.appliedDelayMs += (now - arrivedAt - stats.appliedDelayMs) / ++delayed;
          slot.response = response;
          flush();
        }
      };
      release();
    };

    const respond = (isHead: boolean, close: boolean) => {
      const failed = options.errorRate !== undefined && Math.random() < options.errorRate;
      const code = failed ? 500 : status;
      stats.statusCodes[code] = (stats.statusCodes[code] ?? 0) + 1;
      const response = responseFor(failed, isHead, close);
      const arrivedAt = performance.now();
      if (capacityQueue) {
        const slot: QueuedResponse = { response: undefined, close };
        queue.push(slot);
        capacityQueue.admit(Math.max(arrivedAt + delayFor(), stallUntil), socket, () => {
          stats.appliedDelayMs += (performance.now() - arrivedAt - stats.appliedDelayMs) / ++delayed;
          slot.response = response;
          flush();
        });
        return;
      }
      const dueAt = Math.max(arrivedAt + delayFor(), stallUntil);
      const bodyAt = options.bodyDelayMs === undefined ? -1 : response.indexOf(HEADER_END) + HEADER_END.length;
      if (bodyAt > 0 && bodyAt < response.length) {
        // The body is a slot of its own, released bodyDelayMs after the head was written.
        const body: QueuedResponse = { response: undefined, close };
        const startBody = () =>
          releaseAt(body, response.subarray(bodyAt), performance.now() + options.bodyDelayMs!, undefined);
        const head: QueuedResponse = { response: undefined, close: false, onWritten: startBody };
        queue.push(head, body);
        releaseAt(head, response.subarray(0, bodyAt), dueAt, arrivedAt);
        return;
      }
      if (dueAt <= performance.now() && queue.length === 0) {
        stats.bytesSent += response.length;
        socket.write(response);
        if (close) {
          closing = true;
          socket.end();
        }
        return;
      }
      const slot: QueuedResponse = { response: undefined, close };
      queue.push(slot);
      releaseAt(slot, response, dueAt, arrivedAt);
    };

    socket.on('data', (chunk: Buffer) => {
      stats.bytesReceived += chunk.length;
      if (closing) return;
      let data = pending ? Buffer.concat([pending, chunk]) : chunk;
      pending = undefined;
      for (;;) {
        const end = data.indexOf(HEADER_END);
        if (end < 0) {
          if (data.length > MAX_HEAD_BYTES) socket.destroy();
          else if (data.length > 0) pending = Buffer.from(data);
          return;
        }
        const head = data.toString('latin1', 0, end).toLowerCase();
        const lengthValue = headerValue(head, 'content-length');
        const bodyLength = lengthValue === undefined ? 0 : Number(lengthValue);
        const total = end + 4 + bodyLength;
        if (data.length < total) {
          pending = Buffer.from(data);
          return;
        }
        stats.requests++;
        const isHead = data[0] === 0x48 && data[1] === 0x45; // "HE"AD
        if (options.onRequest) {
          const parsed = parseHead(data.toString('latin1', 0, end));
          options.onRequest({ ...parsed, body: Buffer.from(data.subarray(end + 4, total)), connection });
        }
        respond(isHead, options.close === true || headerValue(head, 'connection') === 'close');
        if (closing) return;
        data = data.subarray(total);
        if (data.length === 0) return;
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      stats.openConnections--;
      sockets.delete(socket);
    });
  }

  const server = net.createServer(onConnection);
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  const { url, port } = await listening(server, 'http');

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
      delayed = 0;
    },
    async close() {
      capacityQueue?.close();
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
