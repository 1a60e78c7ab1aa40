import { once } from 'node:events';
import net from 'node:net';
import t, { type Test } from 'tap';
import { runLoad } from '../../src/index.js';
import { CONNECTION_CLOSED } from '../../src/transports/error-code.js';
import { Lane, type Transport } from '../../src/transports/transport.js';
import type { ResolvedRequest } from '../../src/shared/exchange.js';
import { connectionsClosed, localhostCert, localhostKey, netTransport, rawServer, RecordingSink, requestsReceived } from '../fixtures/raw-http-server.js';

function get(path = '/', method = 'GET'): ResolvedRequest {
  return { method, path, headers: {}, body: undefined };
}

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

/** Lanes as the engine lays them out: `pipelining` lanes per connection. */
function lanes(count: number, pipelining = 1): Lane[] {
  return Array.from({ length: count }, (_, id) => new Lane(id, Math.floor(id / pipelining)));
}

/** Sends on lane 0, then again after each of its results, until `total` requests have been sent. */
function closedLoop(transport: Transport<Buffer>, sink: RecordingSink, request: Buffer, total: number) {
  const loop = {
    sent: 0,
    start: () => send(new Lane(0, 0)),
  };
  const send = (lane: Lane): void => {
    if (loop.sent < total) {
      loop.sent++;
      transport.send(lane, request);
    }
  };
  sink.afterEach = send;
  return loop;
}

t.test('writes the exact request bytes and counts them', async (t) => {
  const server = await rawServer(t, (socket) => socket.write(OK));
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/ignored`, sink);
  const request = transport.prepare({
    method: 'POST',
    path: '/submit?x=1',
    headers: { 'x-token': 'abc', 'content-type': 'text/plain' },
    body: Buffer.from('hello'),
  });
  const expected =
    `POST /submit?x=1 HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\nx-token: abc\r\n` +
    'content-type: text/plain\r\ncontent-length: 5\r\n\r\nhello';
  t.equal(transport.send(new Lane(0, 0), request), expected.length, 'send returns the bytes written');
  await sink.until(1);
  t.same(server.requests, [expected]);
  t.same(sink.events, [{ lane: 0, status: 200, bytes: OK.length }]);
});

t.test('chunked responses, delivered in pieces, are one response each with every byte counted', async (t) => {
  const pieces = ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', '5\r\nhel', 'lo\r\n1', '0\r\n0123456789abcdef\r\n0\r\n', 'X-T: 1\r\n\r\n'];
  const server = await rawServer(t, (socket) => {
    for (const piece of pieces) socket.write(piece);
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { captureResponses: true });
  closedLoop(transport, sink, transport.prepare(get()), 3).start();
  await sink.until(3);
  const length = pieces.join('').length;
  t.same(
    sink.events.map((e) => [e.status, e.bytes, e.details?.body.toString()]),
    [
      [200, length, 'hello0123456789abcdef'],
      [200, length, 'hello0123456789abcdef'],
      [200, length, 'hello0123456789abcdef'],
    ],
  );
  t.equal(server.connections, 1, 'the connection is kept alive across chunked responses');
});

t.test('103 Early Hints and the 200 after it count as one response', async (t) => {
  const hints = 'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n';
  const server = await rawServer(t, (socket) => {
    socket.write(hints);
    socket.write(OK);
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink);
  closedLoop(transport, sink, transport.prepare(get()), 2).start();
  await sink.until(2);
  t.same(sink.events, [
    { lane: 0, status: 200, bytes: hints.length + OK.length },
    { lane: 0, status: 200, bytes: hints.length + OK.length },
  ]);
  t.equal(server.requests.length, 2);
});

t.test('HEAD, 204 and 304 with a Content-Length but no body, pipelined in one packet', async (t) => {
  const answers: Record<string, string> = {
    'HEAD /': 'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n',
    'GET /204': 'HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n',
    'GET /304': 'HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n',
    'GET /after': 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nafter',
  };
  let batch = '';
  const server = await rawServer(t, (socket, request, index) => {
    batch += answers[request.slice(0, request.indexOf(' HTTP/'))] ?? 'HTTP/1.1 500 Unknown\r\n\r\n';
    if (index === 3) socket.write(batch);
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { pipelining: 4, captureResponses: true });
  const [a, b, c, d] = lanes(4, 4) as [Lane, Lane, Lane, Lane];
  transport.send(a, transport.prepare(get('/', 'HEAD')));
  transport.send(b, transport.prepare(get('/204')));
  transport.send(c, transport.prepare(get('/304')));
  transport.send(d, transport.prepare(get('/after')));
  await sink.until(4);
  t.same(
    sink.events.map((e) => [e.lane, e.status, e.bytes, e.details?.body.toString()]),
    [
      [0, 200, answers['HEAD /']!.length, ''],
      [1, 204, answers['GET /204']!.length, ''],
      [2, 304, answers['GET /304']!.length, ''],
      [3, 200, answers['GET /after']!.length, 'after'],
    ],
  );
  t.equal(server.reads[0], 1, 'the four pipelined requests left in one write');
});

t.test('Connection: close after every response: reopened lazily, nothing counted twice', async (t) => {
  const close = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok';
  const server = await rawServer(t, (socket) => socket.end(close));
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink);
  closedLoop(transport, sink, transport.prepare(get()), 25).start();
  await sink.until(25);
  t.equal(sink.responses.length, 25);
  t.same(sink.errors, {});
  t.equal(server.requests.length, 25, 'server-side requests == responses + errors');
  t.equal(server.connections, 25, 'one connection per response');
});

t.test('retry: false, a server that closes after each response without saying so: each request counted exactly once', async (t) => {
  let answered = 0;
  const server = await rawServer(t, (socket) => {
    // A request that lands after the server's FIN gets no answer.
    if (socket.writableEnded) return;
    answered++;
    socket.end(OK);
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { retry: false });
  const loop = closedLoop(transport, sink, transport.prepare(get()), 30);
  loop.start();
  await sink.until(30);
  t.equal(loop.sent, 30);
  t.equal(sink.events.length, 30, 'one result per request sent');
  t.equal(sink.responses.length, answered, 'every answer the server wrote is a response');
  for (const code of Object.keys(sink.errors)) t.ok([CONNECTION_CLOSED, 'ECONNRESET', 'EPIPE'].includes(code), code);
  t.ok(server.requests.length <= sink.events.length, 'nothing was re-sent behind the engine');
});

t.test('writes that fill the socket buffers are queued, then arrive whole and in order', async (t) => {
  // 8 MiB bodies against a server that stops reading for 300 ms after the first request: the second
  // and third requests cannot be written inline, so libuv queues them behind each other.
  const body = Buffer.alloc(8 * 1024 * 1024);
  for (let i = 0; i < body.length; i++) body[i] = (i * 7) & 0xff;
  const server = await rawServer(t, (socket, _request, index) => {
    socket.write(OK);
    if (index === 0) {
      socket.pause();
      setTimeout(() => socket.resume(), 300);
    }
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink);
  const loop = closedLoop(transport, sink, transport.prepare({ method: 'POST', path: '/', headers: {}, body }), 3);
  loop.start();
  await sink.until(3);
  t.same(sink.events.map((e) => e.status), [200, 200, 200]);
  t.equal(server.requests.length, 3);
  const expectedBody = body.toString('latin1');
  for (const [i, request] of server.requests.entries()) {
    t.ok(request.endsWith(`content-length: ${body.length}\r\n\r\n${expectedBody}`), `request ${i} whole, its body intact`);
  }
});

t.test('a server that resets right after answering: the next request is one error, never lost or doubled', async (t) => {
  // The request after the answer goes out inline, from the read callback, while the reset may
  // already be queued: the write itself can fail (EPIPE, ECONNRESET) or the read after it.
  const server = await rawServer(t, (socket) => {
    socket.write(OK);
    socket.resetAndDestroy();
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink);
  const loop = closedLoop(transport, sink, transport.prepare(get()), 40);
  loop.start();
  await sink.until(40);
  t.equal(sink.events.length, 40, 'one result per request');
  for (const code of Object.keys(sink.errors)) t.ok(['ECONNRESET', 'EPIPE', CONNECTION_CLOSED].includes(code), code);
  const errors = Object.values(sink.errors).reduce((a, b) => a + b, 0);
  t.ok(errors >= 10 && sink.responses.length >= 10, `${sink.responses.length} responses, ${errors} errors: ${JSON.stringify(sink.errors)}`);
  t.ok(server.requests.length <= 40, 'nothing re-sent');
});

t.test('a second response nobody asked for is not credited to the request sent after the first', async (t) => {
  // Both responses leave in one write, so they arrive in one read; the next request goes out from
  // inside that read, after its first response, and the second response is no answer to it.
  const server = await rawServer(t, (socket) => socket.write(OK + OK.replace('200 OK', '201 Created')));
  const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, connections: 1, amount: 10 });
  t.equal(server.requests.length, 10, 'every request was written');
  t.same(result.statusCodes, { 200: 5 }, 'no 201 credited to any request');
  t.same(result.errors.byCode, { UNSOLICITED_RESPONSE: 5 }, 'each request sent behind an extra response is one error');
  t.equal(result.requests.completed + result.errors.total, 10);
});

t.test('HTTP/1.0 without keep-alive: the client closes after each response', async (t) => {
  // The server leaves its sockets open: closing is the client's job here.
  const server = await rawServer(t, (socket) => socket.write('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok'));
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink);
  closedLoop(transport, sink, transport.prepare(get()), 5).start();
  await sink.until(5);
  t.same(sink.events.map((e) => e.status), [200, 200, 200, 200, 200]);
  t.equal(server.connections, 5);
});

t.test('HTTP/1.0 body delimited by the close is counted at EOF', async (t) => {
  const response = 'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end';
  const server = await rawServer(t, (socket) => socket.end(response));
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { captureResponses: true });
  closedLoop(transport, sink, transport.prepare(get()), 2).start();
  await sink.until(2);
  t.same(
    sink.events.map((e) => [e.status, e.bytes, e.details?.body.toString()]),
    [
      [200, response.length, 'until the end'],
      [200, response.length, 'until the end'],
    ],
  );
});

t.test('a reset before the response is one ECONNRESET; the next send reconnects', async (t) => {
  const server = await rawServer(t, (socket, _request, _index, connection) => {
    if (connection === 0) socket.resetAndDestroy();
    else socket.write(OK);
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink);
  closedLoop(transport, sink, transport.prepare(get()), 2).start();
  await sink.until(2);
  t.same(sink.events, [
    { lane: 0, code: 'ECONNRESET' },
    { lane: 0, status: 200, bytes: OK.length },
  ]);
  t.equal(server.connections, 2);
  t.equal(server.requests.length, 2);
});

t.test('a reset mid-response is one error and no response; the next send reconnects', async (t) => {
  const server = await rawServer(t, (socket, _request, _index, connection) => {
    if (connection === 0) {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial');
      socket.resetAndDestroy();
    } else {
      socket.write(OK);
    }
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink);
  closedLoop(transport, sink, transport.prepare(get()), 2).start();
  await sink.until(2);
  // Linux reports a reset that lands before the partial bytes are read as EOF, so the kernel's
  // timing picks which of the two codes the one error gets.
  t.match(sink.events[0], { lane: 0, code: /^(ECONNRESET|HPE_UNEXPECTED_EOF)$/ });
  t.same(sink.events[1], { lane: 0, status: 200, bytes: OK.length });
  t.equal(sink.events.length, 2);
  t.equal(server.connections, 2);
});

t.test('a malformed response is an HPE error; the connection is destroyed and reopened', async (t) => {
  const server = await rawServer(t, (socket, _request, _index, connection) => {
    socket.write(connection === 0 ? 'HTTP/1.1 2x0 Broken\r\n\r\n' : OK);
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink);
  closedLoop(transport, sink, transport.prepare(get()), 3).start();
  await sink.until(3);
  t.same(sink.events, [
    { lane: 0, code: 'HPE_INVALID_STATUS' },
    { lane: 0, status: 200, bytes: OK.length },
    { lane: 0, status: 200, bytes: OK.length },
  ]);
  t.equal(server.connections, 2, 'a new connection after the bad one, then kept alive');
});

t.test('pipelining 10: one write, responses matched to lanes in send order', async (t) => {
  let batch = '';
  const server = await rawServer(t, (socket, request, index) => {
    const path = request.slice(4, request.indexOf(' HTTP/'));
    batch += `HTTP/1.1 200 OK\r\nContent-Length: ${path.length}\r\n\r\n${path}`;
    if (index % 10 === 9) {
      socket.write(batch);
      batch = '';
    }
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { pipelining: 10, captureResponses: true });
  const all = lanes(10, 10);
  const requests = all.map((lane) => transport.prepare(get(`/lane-${lane.id}`)));
  let resends = 10;
  sink.afterEach = (lane) => {
    if (resends-- > 0) transport.send(lane, requests[lane.id]!);
  };
  for (const lane of all) transport.send(lane, requests[lane.id]!);
  await sink.until(20);
  const mismatched = sink.events.filter((e) => e.details?.body.toString() !== `/lane-${e.lane}`);
  t.same(mismatched, [], 'every response body names the lane it was matched to');
  t.same(
    sink.events.slice(0, 10).map((e) => e.lane),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  t.equal(server.connections, 1);
  t.equal(server.reads[0], 2, 'each batch of 10 requests left in one write');
});

t.test('retry: false, a clean close with requests outstanding: each lost request reported once as ECONNCLOSED', async (t) => {
  const server = await rawServer(t, (socket, _request, index) => {
    if (index === 2) socket.end(OK);
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { pipelining: 3, retry: false });
  const request = transport.prepare(get());
  for (const lane of lanes(3, 3)) transport.send(lane, request);
  await sink.until(3);
  t.same(sink.events, [
    { lane: 0, status: 200, bytes: OK.length },
    { lane: 1, code: CONNECTION_CLOSED },
    { lane: 2, code: CONNECTION_CLOSED },
  ]);
  t.equal(transport.openConnections(), 0);
});

t.test('retry: false, Connection: close with pipelined requests behind it: those are lost, not re-sent', async (t) => {
  const server = await rawServer(t, (socket, _request, index) => {
    if (index === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { pipelining: 2, retry: false });
  const request = transport.prepare(get());
  for (const lane of lanes(2, 2)) transport.send(lane, request);
  await sink.until(2);
  t.same(sink.events.map((e) => e.status ?? e.code), [200, CONNECTION_CLOSED]);
  t.equal(server.requests.length, 2);
  t.equal(server.connections, 1);
});

t.test('a response cut short by a clean close is HPE_UNEXPECTED_EOF', async (t) => {
  const server = await rawServer(t, (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort'));
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink);
  transport.send(new Lane(0, 0), transport.prepare(get()));
  await sink.until(1);
  t.same(sink.events, [{ lane: 0, code: 'HPE_UNEXPECTED_EOF' }]);
});

t.test('cancel reports the lane and every lane lost with it, synchronously, once', async (t) => {
  const server = await rawServer(t, (socket, _request, _index, connection) => {
    if (connection > 0) socket.write(OK);
  });
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { pipelining: 2 });
  const [first, second] = lanes(2, 2) as [Lane, Lane];
  const request = transport.prepare(get());
  transport.send(first, request);
  transport.send(second, request);
  await requestsReceived(server, 2);
  transport.cancel(second, 'TIMEOUT');
  t.same(sink.events, [
    { lane: 0, code: 'TIMEOUT' },
    { lane: 1, code: 'TIMEOUT' },
  ]);
  transport.cancel(first, 'TIMEOUT');
  t.equal(sink.events.length, 2, 'cancelling a lane no longer in flight reports nothing');
  transport.send(first, request);
  await sink.until(3);
  t.same(sink.events[2], { lane: 0, status: 200, bytes: OK.length });
  t.equal(server.connections, 2);
});

t.test('keepAlive: false opens a connection per request and says connection: close', async (t) => {
  const server = await rawServer(t, (socket) => socket.write(OK));
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { keepAlive: false });
  closedLoop(transport, sink, transport.prepare(get('/x')), 5).start();
  await sink.until(5);
  t.equal(sink.responses.length, 5);
  t.equal(server.connections, 5);
  t.equal(server.requests[0], `GET /x HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\nconnection: close\r\n\r\n`);
});

t.test('connect opens every connection ahead; requests then use them', async (t) => {
  const server = await rawServer(t, (socket) => socket.write(OK));
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { connections: 3 });
  await transport.connect(3);
  t.equal(transport.openConnections(), 3);
  const request = transport.prepare(get());
  for (const lane of lanes(3)) transport.send(lane, request);
  await sink.until(3);
  t.equal(server.connections, 3, 'no connection beyond those opened by connect');
  await transport.close();
  t.equal(transport.openConnections(), 0);
});

t.test('connect(count) opens only the first count connections: a ramp opens the rest later', async (t) => {
  const server = await rawServer(t, (socket) => socket.write(OK));
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { connections: 10 });
  await transport.connect(2);
  t.equal(transport.openConnections(), 2);
  // A request on each: by their responses the server has accepted whatever connect opened.
  const request = transport.prepare(get());
  for (const lane of lanes(2)) transport.send(lane, request);
  await sink.until(2);
  t.equal(server.connections, 2, 'the server saw 2 connections, not 10');
  await transport.close();
});

t.test('an idle keep-alive connection closed by the server is not an error', async (t) => {
  const server = await rawServer(t, (socket) => socket.end(OK));
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink);
  await transport.connect(1);
  transport.send(new Lane(0, 0), transport.prepare(get()));
  await sink.until(1);
  await connectionsClosed(server, 1);
  t.same(sink.events, [{ lane: 0, status: 200, bytes: OK.length }], 'the FIN after the response is no error');
  t.equal(transport.openConnections(), 0);
});

t.test('connection refused: connect resolves quietly, send reports ECONNREFUSED once', async (t) => {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as net.AddressInfo;
  probe.close();
  await once(probe, 'close');
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${port}/`, sink, { connections: 2 });
  await transport.connect(2);
  t.equal(transport.openConnections(), 0);
  t.equal(sink.events.length, 0);
  transport.send(new Lane(0, 0), transport.prepare(get()));
  await sink.until(1);
  t.same(sink.events, [{ lane: 0, code: 'ECONNREFUSED' }]);
});

t.test('release closes a connection once it is idle', async (t) => {
  const server = await rawServer(t, (socket) => socket.write(OK));
  const sink = new RecordingSink();
  const transport = netTransport(t, `http://127.0.0.1:${server.port}/`, sink, { connections: 2 });
  await transport.connect(2);
  const [a] = lanes(2) as [Lane, Lane];
  transport.send(a, transport.prepare(get()));
  transport.release(0);
  t.equal(transport.openConnections(), 2, 'busy: still open');
  transport.release(1);
  t.equal(transport.openConnections(), 1, 'idle: closed at once');
  await sink.until(1);
  t.equal(transport.openConnections(), 0, 'closed after its last response');
  t.same(sink.events, [{ lane: 0, status: 200, bytes: OK.length }]);
});

t.test('TLS', async (t) => {
  const tlsServer = async (t: Test) =>
    rawServer(t, (socket) => socket.write(OK), { tls: { key: localhostKey, cert: localhostCert } });

  t.test('a self-signed certificate is refused by default', async (t) => {
    const server = await tlsServer(t);
    const sink = new RecordingSink();
    const transport = netTransport(t, `https://localhost:${server.port}/`, sink, { tls: {} });
    transport.send(new Lane(0, 0), transport.prepare(get()));
    await sink.until(1);
    t.same(sink.events, [{ lane: 0, code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }]);
    t.equal(server.requests.length, 0);
  });

  t.test('rejectUnauthorized: false accepts it', async (t) => {
    const server = await tlsServer(t);
    const sink = new RecordingSink();
    const transport = netTransport(t, `https://127.0.0.1:${server.port}/`, sink, { tls: { rejectUnauthorized: false } });
    closedLoop(transport, sink, transport.prepare(get()), 3).start();
    await sink.until(3);
    t.same(sink.events.map((e) => e.status), [200, 200, 200]);
    t.equal(server.connections, 1);
    t.same(server.servernames, [false], 'no SNI for an IP address');
  });

  t.test('ca verifies it, with SNI from the URL host', async (t) => {
    const server = await tlsServer(t);
    const sink = new RecordingSink();
    const transport = netTransport(t, `https://localhost:${server.port}/`, sink, { tls: { ca: localhostCert }, connections: 2 });
    await transport.connect(2);
    t.equal(transport.openConnections(), 2);
    const request = transport.prepare(get());
    for (const lane of lanes(2)) transport.send(lane, request);
    await sink.until(2);
    t.same(sink.events.map((e) => [e.status, e.bytes]), [
      [200, OK.length],
      [200, OK.length],
    ]);
    t.same(server.servernames, ['localhost', 'localhost']);
    t.match(server.requests[0], `host: localhost:${server.port}\r\n`);
  });

  t.test('tls.servername overrides the SNI and the name checked', async (t) => {
    const server = await tlsServer(t);
    const sink = new RecordingSink();
    const transport = netTransport(t, `https://127.0.0.1:${server.port}/`, sink, {
      tls: { ca: localhostCert, servername: 'localhost' },
    });
    transport.send(new Lane(0, 0), transport.prepare(get()));
    await sink.until(1);
    t.same(sink.events, [{ lane: 0, status: 200, bytes: OK.length }]);
    t.same(server.servernames, ['localhost']);
  });
});

t.test('runLoad end to end over net', async (t) => {
  t.test('exact counts and bytes with pipelining', async (t) => {
    const server = await rawServer(t, (socket) => socket.write(OK));
    const result = await runLoad({ url: `http://127.0.0.1:${server.port}/load`, transport: 'net', amount: 200, connections: 4, pipelining: 2 });
    const requestBytes = `GET /load HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\n\r\n`.length;
    t.equal(server.requests.length, 200);
    t.equal(result.requests.sent, 200);
    t.equal(result.requests.completed, 200);
    t.same(result.statusCodes, { '200': 200 });
    t.equal(result.errors.total, 0);
    t.equal(result.bytes.received, 200 * OK.length);
    t.ok(server.requests.every((request) => request.length === requestBytes), 'every request is the expected bytes');
    t.equal(server.connections, 4);
  });

  t.test('a server that answers every fifth request with garbage', async (t) => {
    let count = 0;
    const server = await rawServer(t, (socket) => socket.write(++count % 5 === 0 ? 'HTTP/1.1 abc\r\n\r\n' : OK));
    const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, transport: 'net', amount: 100, connections: 1 });
    t.equal(result.requests.completed + result.errors.total, 100, 'every request ends once');
    t.equal(result.errors.byCode.HPE_INVALID_STATUS, 20);
    t.equal(result.requests.completed, 80);
    t.equal(server.requests.length, 100, 'nothing re-sent');
  });
});
