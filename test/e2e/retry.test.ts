// Requests the server provably never processed are sent again, once, on a new connection (issue 29):
// servers that close on purpose show no errors, and no request is processed twice.
import { once } from 'node:events';
import type net from 'node:net';
import { Worker } from 'node:worker_threads';
import t, { type Test } from 'tap';
import { formatResult, runLoad, type LoadOptions, type TransportName } from '../../src/index.js';
import { rawServer, type RawServer } from '../fixtures/raw-http-server.js';

const TRANSPORTS: TransportName[] = ['net', 'undici', 'http'];
const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
const OK_CLOSE = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok';

/** What the server did: the ids of the requests it processed (answered), in order. */
interface Processed {
  ids: string[];
}

const idOf = (request: string): string => /\r\nx-id: *(\d+)/i.exec(request)?.[1] ?? 'none';

/** Every request carries an id of its own (`x-id`), so that the server can tell one processed twice. */
function numbered(options: Omit<LoadOptions, 'url' | 'requests'>, method = 'GET'): Omit<LoadOptions, 'url'> {
  let next = 0;
  return {
    ...options,
    requests: [
      {
        method,
        ...(method === 'POST' ? { body: 'x' } : {}),
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-id': String(next++) } }),
      },
    ],
  };
}

/** Answers `perConnection` requests on each connection, the last with `Connection: close` (or `last`), and reads no further. */
async function closingAfter(t: Test, perConnection: number, last = OK_CLOSE): Promise<{ server: RawServer; processed: Processed }> {
  const processed: Processed = { ids: [] };
  const server = await rawServer(t, (socket, request, index) => {
    if (index >= perConnection) return; // behind the close: never processed
    processed.ids.push(idOf(request));
    if (index === perConnection - 1) socket.end(last);
    else socket.write(OK);
  });
  return { server, processed };
}

/**
 * The keep-alive race: every `every`-th request that arrives on a reused connection is not processed;
 * the server closes the connection as it arrives (a FIN, or a reset when `reset`), as a server closes
 * a connection it found idle at the moment the client reuses it. A request that comes again is never
 * dropped (a retry that fails again is an error, and the test is about the first).
 */
async function racing(t: Test, every: number, reset: boolean): Promise<{ server: RawServer; processed: Processed; closes: () => number }> {
  const processed: Processed = { ids: [] };
  const dropped = new WeakSet<net.Socket>();
  const seen = new Set<string>();
  let reused = 0;
  let closes = 0;
  const server = await rawServer(t, (socket, request, index) => {
    const id = idOf(request);
    const again = seen.has(id);
    seen.add(id);
    if (dropped.has(socket)) return;
    if (index > 0 && !again && ++reused % every === 0) {
      dropped.add(socket);
      closes++;
      if (reset) socket.resetAndDestroy();
      else socket.end();
      return;
    }
    processed.ids.push(id);
    socket.write(OK);
  });
  return { server, processed, closes: () => closes };
}

/**
 * The reset that drops responses the server sent (RFC 9112 9.6), as nginx's close after its
 * `keepalive_requests` does when pipelined requests are still arriving: on each connection the server
 * answers `answered` requests, then processes one more and holds its response; when a request
 * pipelined behind it arrives, the server closes with that one unread, a reset that destroys the held
 * response (modelled by never writing it: on loopback a response written just before a reset still
 * arrives). A GET there looks like the keep-alive race, yet it was processed. Where nothing comes
 * behind it for 100 ms, the held response goes out and the connection carries on.
 */
async function resettingAfter(t: Test, answered: number): Promise<{ server: RawServer; processed: Processed; resets: () => number }> {
  const processed: Processed = { ids: [] };
  const held = new Map<net.Socket, NodeJS.Timeout>();
  let resets = 0;
  const server = await rawServer(t, (socket, request, index) => {
    const holding = held.get(socket);
    if (holding !== undefined) {
      clearTimeout(holding);
      held.delete(socket);
      resets++;
      socket.resetAndDestroy();
      return;
    }
    processed.ids.push(idOf(request));
    if (index < answered) {
      socket.write(OK);
      return;
    }
    const release = setTimeout(() => {
      held.delete(socket);
      socket.write(OK);
    }, 100);
    held.set(socket, release);
  });
  t.teardown(() => held.forEach((release) => clearTimeout(release)));
  return { server, processed, resets: () => resets };
}

function assertOnce(t: Test, processed: Processed): void {
  t.equal(new Set(processed.ids).size, processed.ids.length, 'no request processed twice');
  t.notOk(processed.ids.includes('none'), 'every request carried its id');
}

for (const transport of TRANSPORTS) {
  t.test(transport, async (t) => {
    // node:http cannot pipeline: its requests never wait behind a response that closes.
    const pipelining = transport === 'http' ? 1 : 4;

    t.test(`close after 5 responses announced with Connection: close, pipelining ${pipelining}: every request processed once, none an error`, async (t) => {
      const { server, processed } = await closingAfter(t, 5);
      const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, ...numbered({ transport, connections: 2, pipelining, amount: 200, timeout: 5000 }) });
      t.same(result.errors, { total: 0, byCode: {} });
      t.equal(result.requests.completed, 200);
      t.equal(processed.ids.length, 200, 'the server processed amount requests');
      t.equal(result.requests.sent, 200, 'a retried request is sent once');
      if (pipelining > 1) t.ok(result.requests.retried > 0, `retried ${result.requests.retried}`);
      t.equal(result.timeline.reduce((sum, second) => sum + second.retried, 0), result.requests.retried, 'timeline adds up');
      // undici opened a socket for each request it would have sent again, only to abort it unused.
      const carried = server.reads.filter((reads) => reads > 0).length;
      t.equal(server.connections, carried, `${server.connections} connections opened, ${carried} carried requests`);
      assertOnce(t, processed);
    });

    if (pipelining > 1) t.test('an HTTP/1.0 response without keep-alive announces the close too', async (t) => {
      const { server, processed } = await closingAfter(t, 5, 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok');
      const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, ...numbered({ transport, connections: 2, pipelining, amount: 100, timeout: 5000 }) });
      t.same(result.errors, { total: 0, byCode: {} });
      t.equal(processed.ids.length, 100);
      t.ok(result.requests.retried > 0, `retried ${result.requests.retried}`);
      assertOnce(t, processed);
    });

    if (pipelining > 1) t.test('close after 5 with retry: false: the requests behind the close are ECONNCLOSED', async (t) => {
      const { server, processed } = await closingAfter(t, 5);
      const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, retry: false, ...numbered({ transport, connections: 1, pipelining: 4, amount: 100, timeout: 5000 }) });
      t.equal(result.requests.retried, 0);
      t.ok(result.errors.total > 0, JSON.stringify(result.errors.byCode));
      t.same(Object.keys(result.errors.byCode), ['ECONNCLOSED']);
      t.equal(result.requests.completed, processed.ids.length, 'completed: what the server processed');
      t.equal(result.requests.completed + result.errors.total, 100);
    });

    for (const reset of [false, true]) {
      t.test(`the keep-alive race (${reset ? 'reset' : 'FIN'}): GETs sent again, none an error`, async (t) => {
        const { server, processed, closes } = await racing(t, 10, reset);
        const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, ...numbered({ transport, connections: 3, amount: 150, timeout: 5000 }) });
        t.same(result.errors, { total: 0, byCode: {} });
        t.equal(result.requests.completed, 150);
        t.equal(processed.ids.length, 150, 'the server processed amount requests');
        t.equal(result.requests.sent, 150);
        t.ok(closes() > 0 && result.requests.retried >= closes(), `retried ${result.requests.retried}, closes ${closes()}`);
        assertOnce(t, processed);
      });

      // A close under pipelined requests is no keep-alive race: the server may have processed some of
      // them and its reset destroyed their responses (see the next test), so none is sent again.
      if (pipelining > 1) t.test(`an unannounced close (${reset ? 'reset' : 'FIN'}) under pipelined GETs: errors, never sent again`, async (t) => {
        const { server, processed, closes } = await racing(t, 10, reset);
        const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, ...numbered({ transport, connections: 3, pipelining, amount: 150, timeout: 5000 }) });
        t.ok(closes() > 0 && result.errors.total >= closes(), `errors ${JSON.stringify(result.errors.byCode)}, closes ${closes()}`);
        const unanswered = processed.ids.length - result.requests.completed;
        // undici drops responses it had read but not parsed yet when a reset comes: those are errors too.
        if (transport === 'net' || !reset) t.equal(unanswered, 0, 'completed: what the server processed');
        else t.ok(unanswered >= 0 && unanswered <= result.errors.total, `processed, not completed: ${unanswered}, each an error`);
        t.equal(result.requests.completed + result.errors.total, 150);
        t.equal(result.requests.sent, 150);
        assertOnce(t, processed);
      });
    }

    // node:http never pipelines: a request alone on its connection has nothing behind it whose
    // arrival would make the server's close a reset, which is the keep-alive race above.
    if (pipelining > 1) t.test('a reset that drops a processed GET\'s response under pipelined requests: errors, never sent again', async (t) => {
      const { server, processed, resets } = await resettingAfter(t, 5);
      const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, ...numbered({ transport, connections: 2, pipelining, amount: 100, timeout: 5000 }) });
      assertOnce(t, processed);
      t.equal(result.requests.retried, 0);
      t.ok(resets() > 0 && result.errors.total >= resets(), `errors ${JSON.stringify(result.errors.byCode)}, resets ${resets()}`);
      const unanswered = processed.ids.length - result.requests.completed;
      if (transport === 'net') t.equal(unanswered, resets(), 'completed: what the server processed, less one per reset');
      else t.ok(unanswered >= resets() && unanswered <= result.errors.total, `processed, not completed: ${unanswered}, each an error`);
      t.equal(result.requests.completed + result.errors.total, 100);
      t.equal(result.requests.sent, 100);
    });

    t.test('a POST on the keep-alive race is an error, never sent again', async (t) => {
      const { server, processed, closes } = await racing(t, 10, false);
      const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, ...numbered({ transport, connections: 3, amount: 150, timeout: 5000 }, 'POST') });
      t.equal(result.requests.retried, 0);
      t.equal(result.errors.total, closes(), `one error per close: ${JSON.stringify(result.errors.byCode)}`);
      t.ok(result.errors.total > 0);
      t.equal(result.requests.completed, processed.ids.length, 'completed: what the server processed');
      t.equal(result.requests.completed + result.errors.total, 150);
      assertOnce(t, processed);
    });

    t.test('a new connection closed before any response is an error, never sent again: the server has no idle connection to close', async (t) => {
      const server = await rawServer(t, (socket) => socket.end());
      const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, transport, connections: 2, amount: 10, timeout: 5000 });
      t.equal(result.requests.retried, 0);
      t.equal(result.errors.total, 10, JSON.stringify(result.errors.byCode));
      // Once every connection failed twice the server is down and the rest fail unwritten (fail fast).
      t.ok(server.requests.length <= 10, `${server.requests.length} requests reached the server, none twice`);
    });

    t.test('rate mode: a retried request is timed from its intended send', async (t) => {
      // The second request on the first connection is held 100 ms and dropped; its retry is answered at once.
      let held = false;
      const server = await rawServer(t, (socket, _request, index) => {
        if (index === 1 && !held) {
          held = true;
          setTimeout(() => socket.end(), 100);
          return;
        }
        socket.write(OK);
      });
      const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, transport, connections: 1, rate: 20, amount: 3, timeout: 5000 });
      t.same(result.errors, { total: 0, byCode: {} });
      t.equal(result.requests.retried, 1);
      t.equal(result.requests.completed, 3);
      t.ok(result.latency.max >= 100, `latency.max ${result.latency.max} ms: from the first send, not the retry`);
      t.ok(result.latencyUncorrected.max >= 100, `latencyUncorrected.max ${result.latencyUncorrected.max} ms`);
    });
  });
}

t.test('retries over worker threads add up in the result, its timeline, its progress events and its summary', async (t) => {
  const { server, processed } = await closingAfter(t, 5);
  let progressRetried = 0;
  const result = await runLoad({
    url: `http://127.0.0.1:${server.port}/`,
    workers: 2,
    connections: 2,
    pipelining: 4,
    amount: 200,
    timeout: 5000,
    onProgress: (event) => (progressRetried = event.totals.retried),
  });
  t.same(result.errors, { total: 0, byCode: {} });
  t.equal(processed.ids.length, 200);
  t.ok(result.requests.retried > 0, `retried ${result.requests.retried}`);
  t.equal(result.timeline.reduce((sum, second) => sum + second.retried, 0), result.requests.retried, 'timeline adds up');
  t.equal(progressRetried, result.requests.retried, 'the last progress totals');
  t.match(formatResult(result), new RegExp(`^Requests +200 sent, 200 completed, 0 missed, ${result.requests.retried} retried$`, 'm'));
});

/**
 * A server in a worker thread, so that it answers and resets while the test's own thread is busy:
 * the second request on each connection is answered 20 ms late and followed at once by a reset.
 */
const LATE_THEN_RESET = `
const net = require('node:net');
const { parentPort } = require('node:worker_threads');
const OK = ${JSON.stringify(OK)};
let processed = 0;
const server = net.createServer((socket) => {
  socket.on('error', () => {});
  let pending = '';
  let index = 0;
  socket.on('data', (chunk) => {
    pending += chunk.toString('latin1');
    for (let end; (end = pending.indexOf('\\r\\n\\r\\n')) !== -1; ) {
      pending = pending.slice(end + 4);
      const i = index++;
      if (i > 1) continue;
      parentPort.postMessage({ processed: ++processed });
      if (i === 0) socket.write(OK);
      else setTimeout(() => { socket.write(OK); socket.resetAndDestroy(); }, 20);
    }
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

// The kernel reports a reset to the first call that asks; when that is a write, the responses the
// server sent before its reset are still waiting to be read, and they count.
t.test('net: a response that came before a reset counts, though a write learned of the reset first', async (t) => {
  const worker = new Worker(LATE_THEN_RESET, { eval: true });
  t.teardown(() => worker.terminate());
  let processed = 0;
  worker.on('message', (message: { processed?: number }) => (processed = message.processed ?? processed));
  const [{ port }] = (await once(worker, 'message')) as [{ port: number }];
  let built = 0;
  const result = await runLoad({
    url: `http://127.0.0.1:${port}/`,
    transport: 'net',
    connections: 1,
    pipelining: 2,
    amount: 3,
    timeout: 3000,
    requests: [
      {
        // The third request is built as the first response is read: the thread stays busy through the late answer and the reset.
        setupRequest: (request) => {
          if (built++ === 2) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150);
          return request;
        },
      },
    ],
  });
  t.equal(processed, 2, 'the server answered two requests');
  t.equal(result.requests.completed, 2, 'both answers counted');
  t.same(result.errors, { total: 1, byCode: { ECONNRESET: 1 } }, 'the third request met the reset');
});
