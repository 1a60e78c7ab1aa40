// Socket.IO runs against a real socket.io server: exact counts at both ends (the server's handler
// sees exactly `messages.sent` emits), acks, reply events, broadcast timestamps, namespaces and auth,
// pings, server disconnects, binary attachments, workers, bad options.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { WebSocketServer } from 'ws';
import { findCapacity, formatResult, runLoad, SalvoOptionError, SalvoRangeError, type LoadOptions, type LoadResult } from '../../src/index.js';
import { renderReport } from '../../src/report/index.js';
import { decodeHistogram } from '../../src/stats/histogram.js';
import { epochMs } from '../../src/websocket/timestamps.js';
import { localhostCert } from '../fixtures/raw-http-server.js';
import { socketIoServer } from '../fixtures/socketio-server.js';
import { inSomeRun } from '../fixtures/timing.js';

/** Messages the run timed (the latency histogram's count). */
function timed(result: LoadResult): number {
  const histogram = decodeHistogram(result.histogram);
  const count = histogram.totalCount;
  histogram.destroy();
  return count;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('echo with acks: exact counts at the server and the client', async (t) => {
  const server = await socketIoServer(t);
  const result = await runLoad({ url: server.url, connections: 5, amount: 503, socketio: { emit: { event: 'echo', data: { hello: 1 } }, ack: true } });
  t.equal(server.stats.echoes, 503, "the server's handler saw exactly amount emits");
  t.same(result.messages && { sent: result.messages.sent, received: result.messages.received }, { sent: 503, received: 503 });
  t.equal(timed(result), 503, 'each ack timed');
  t.equal(result.transport, 'socket.io');
  t.equal(server.stats.connects, 5, 'one namespace connection per connection');
  t.equal(result.errors.total, 0);
  t.equal(result.phases.handshake?.count, 5, 'the Engine.IO open and namespace connect as the handshake');
  t.same(result.statusCodes, { '101': 5 });
  // 42<id>["echo",{"hello":1}] out in a masked frame (6 bytes of header), 43<id>[{"hello":1}] back
  // (2): ids of 1 to 3 digits.
  const { sent, received } = result.bytes;
  t.ok(sent >= 503 * (2 + 1 + 20 + 6) && sent <= 503 * (2 + 3 + 20 + 6), `frame bytes sent: ${sent}`);
  t.ok(received >= 503 * (2 + 1 + 13 + 2) && received <= 503 * (2 + 3 + 13 + 2), `frame bytes received: ${received}`);
  t.same(JSON.parse(JSON.stringify(result)), result, 'the result is plain JSON');
  const summary = formatResult(result);
  t.match(summary, /Messages +503 sent, 503 received/);
  t.match(summary, /Connects +5 accepted \(101\)/, 'a connection counts once its namespace accepted it');
  t.match(summary, /Socket.IO +emits 'echo', timed by each acknowledgement \(ack\)/);
  t.match(summary, /transport socket\.io/);
  const report = renderReport(result);
  t.match(report, /Socket\.IO/, 'the report names the protocol');
  t.notMatch(report, /HTTP\/1\.1 \(socket\.io\)/, 'not as an HTTP client');
  t.match(report, /messages sent/, 'and speaks of messages');
  t.match(report, /connects/, 'and namespace connects');
});

t.test('https: the Engine.IO WebSocket over TLS, on its own path, with the run\'s headers', async (t) => {
  const headers: string[] = [];
  const server = await socketIoServer(t, { path: '/io/' }, (io) => io.on('connection', (socket) => headers.push(String(socket.handshake.headers['x-load']))), { secure: true });
  const result = await runLoad({
    url: server.url,
    connections: 2,
    amount: 40,
    tls: { ca: localhostCert },
    headers: { 'x-load': 'salvo' },
    socketio: { path: '/io', emit: { event: 'echo', data: 1 }, ack: true },
  });
  t.equal(server.stats.echoes, 40);
  t.same(result.messages && { sent: result.messages.sent, received: result.messages.received }, { sent: 40, received: 40 });
  t.equal(result.phases.tls.count, 2, 'one TLS handshake per connection');
  t.same(headers, ['salvo', 'salvo'], 'headers on the upgrade request');
  const wrongPath = await runLoad({ url: server.url, connections: 1, duration: 300, tls: { ca: localhostCert }, socketio: { listen: { event: 'x' } } });
  // socket.io drops an upgrade on a path it does not serve (ECONNRESET, after its destroyUpgradeTimeout).
  t.ok(wrongPath.errors.total >= 1 && wrongPath.messages!.received === 0, `the default path is not served: ${JSON.stringify(wrongPath.errors.byCode)}`);
});

t.test('reply: latency is the time to the next event of that name, other events only counted', async (t) => {
  const server = await socketIoServer(t, {}, (io) => {
    io.on('connection', (socket) => {
      socket.on('ask', (data: unknown) => {
        socket.emit('noise', 1);
        setTimeout(() => socket.emit('answer', data), 20);
      });
    });
  });
  const result = await runLoad({ url: server.url, connections: 3, amount: 60, socketio: { emit: { event: 'ask', data: 'x' }, reply: 'answer' } });
  t.same(result.messages && { sent: result.messages.sent, received: result.messages.received }, { sent: 60, received: 120 }, 'answers and noise received');
  t.equal(timed(result), 60, 'only the answers timed');
  // 18: the server's timer may fire up to a millisecond early on its coarser clock.
  t.ok(result.latency.min >= 18, `no answer came before the server's 20 ms delay (noise is no answer): min ${result.latency.min} ms`);
  t.equal(result.errors.total, 0);
});

t.test('listen: broadcast latency from the first argument\'s timestamp field', async (t) => {
  const server = await socketIoServer(t, {}, (io) => {
    const timer = setInterval(() => {
      // Stamped 50 ms in the past: the latency measured is at least that.
      io.emit('tick', { ts: Date.now() - 50 });
      io.emit('other', { ts: 0 });
    }, 20);
    t.teardown(() => clearInterval(timer));
  });
  await inSomeRun(t, 3, async (timing) => {
    const result = await runLoad({ url: server.url, connections: 4, duration: '1s', socketio: { listen: { event: 'tick', timestamp: { field: 'ts' } } } });
    const received = result.messages!.received;
    t.equal(result.messages!.sent, 0);
    t.ok(received > 40, `broadcasts received: ${received}`);
    t.ok(Math.abs(timed(result) - received / 2) <= 4, `ticks timed, others only counted: ${timed(result)} of ${received}`);
    // 45: Date.now() and performance's clock may drift apart by a few ms.
    t.ok(result.latency.min >= 45, `latency from the timestamp: min ${result.latency.min} ms`);
    timing.ok(result.latency.p50 < 150, `p50 ${result.latency.p50} ms is about the 50 ms the stamp is old`);
  });
});

t.test('rate mode over a duration sends at most rate x duration, the server counting the same', async (t) => {
  const server = await socketIoServer(t);
  await inSomeRun(t, 3, async (timing) => {
    // Five runs: the slot at the run's end, on a timer that fired a fraction of a ms early, made 401 of 400 about one run in two.
    for (let run = 0; run < 5; run++) {
      const before = server.stats.echoes;
      // The server has read every emit once it saw the four sockets go (the close follows the data).
      let gone = 0;
      const allGone = new Promise<void>((resolve) => {
        const onConnection = (socket: { on(event: 'disconnect', listener: () => void): void }) => socket.on('disconnect', () => ++gone === 4 && resolve());
        server.io.on('connection', onConnection);
        t.teardown(() => void server.io.off('connection', onConnection));
      });
      const result = await runLoad({ url: server.url, connections: 4, duration: 1000, socketio: { emit: { event: 'echo', data: 1 }, ack: true, rate: 50 } });
      await allGone;
      const sent = result.messages!.sent;
      t.ok(sent <= 200, `run ${run + 1}: ${sent} emits, at most 4 x 50/s x 1 s`);
      timing.ok(sent >= 196, `run ${run + 1}: ${sent} emits, about 200`);
      t.equal(server.stats.echoes - before, sent, `run ${run + 1}: the server counted ${sent}`);
    }
  });
});

t.test('timestamps in seconds (or µs) are read as such, not as ms 55 years old', async (t) => {
  const server = await socketIoServer(t, {}, (io) => {
    const timer = setInterval(() => {
      io.emit('seconds', { ts: (Date.now() - 50) / 1000 });
      io.emit('micros', { ts: (Date.now() - 50) * 1000 });
    }, 20);
    t.teardown(() => clearInterval(timer));
  });
  t.same([epochMs(1.7e9), epochMs(1.7e12), epochMs(1.7e15), epochMs(1.7e18)], [1.7e12, 1.7e12, 1.7e12, 1.7e12], 'seconds, ms, µs and ns since 1970');
  await inSomeRun(t, 3, async (timing) => {
    for (const event of ['seconds', 'micros']) {
      const result = await runLoad({ url: server.url, connections: 2, duration: 800, socketio: { listen: { event, timestamp: { field: 'ts' } } } });
      t.ok(result.messages!.received > 20, `${event}: ${result.messages!.received} received`);
      t.ok(result.latency.min >= 45, `${event}: min ${result.latency.min} ms, at least the 50 ms the stamp is old`);
      timing.ok(result.latency.p50 < 150, `${event}: p50 ${result.latency.p50} ms, not 3,600,000 (the histogram's ceiling)`);
      t.same(result.warnings.filter((w) => w.code === 'CLOCK_SKEW'), [], `${event}: no clock skew`);
    }
  });
});

t.test('a namespace with auth; a namespace its middleware refuses is an error, retried with backoff', async (t) => {
  const server = await socketIoServer(t, {}, (io, stats) => {
    const chat = io.of('/chat');
    chat.use((socket, next) => {
      if ((socket.handshake.auth as { token?: string }).token === 'x') return next();
      stats.refused++;
      next(new Error('not allowed'));
    });
    chat.on('connection', (socket) => socket.on('echo', (data: unknown, ack: (reply: unknown) => void) => ack(data)));
  });
  const accepted = await runLoad({
    url: server.url,
    connections: 2,
    amount: 50,
    socketio: { namespace: '/chat', auth: { token: 'x' }, emit: { event: 'echo', data: [1, 2] }, ack: true },
  });
  t.same(accepted.messages && { sent: accepted.messages.sent, received: accepted.messages.received }, { sent: 50, received: 50 });
  t.equal(accepted.errors.total, 0);
  t.equal(server.stats.refused, 0);

  const refused = await runLoad({
    url: server.url,
    connections: 2,
    duration: '1s',
    socketio: { namespace: '/chat', auth: { token: 'no' }, emit: { event: 'echo' }, ack: true },
  });
  const errors = refused.errors.byCode.SIO_CONNECT_ERROR ?? 0;
  t.same(Object.keys(refused.errors.byCode), ['SIO_CONNECT_ERROR'], `only refusals: ${JSON.stringify(refused.errors.byCode)}`);
  t.ok(errors >= 2, `each connection's refusal counted: ${errors}`);
  // Backoff 5, 10, 20, ... 640 ms: about 8 tries per connection in a second, where a tight loop makes hundreds.
  t.ok(server.stats.refused <= 2 * 12, `not retried in a tight loop: ${server.stats.refused} refusals`);
  t.equal(refused.messages!.sent, 0, 'nothing emitted on a refused namespace');
});

t.test('a namespace connect never answered times out, counted as SIO_CONNECT_TIMEOUT, and the run ends on time', async (t) => {
  const server = await socketIoServer(t, {}, (io) => io.of('/stuck').use(() => undefined));
  const startedAt = Date.now();
  const result = await runLoad({ url: server.url, connections: 2, duration: '600ms', timeout: '200ms', socketio: { namespace: '/stuck', listen: { event: 'x' } } });
  const timeouts = result.errors.byCode.SIO_CONNECT_TIMEOUT ?? 0;
  t.ok(timeouts >= 2, `each connection's connect timed out: ${JSON.stringify(result.errors.byCode)}`);
  t.same(Object.keys(result.errors.byCode), ['SIO_CONNECT_TIMEOUT']);
  t.ok(Date.now() - startedAt < 5000, 'the run ended');
  t.equal(server.stats.connects, 0);
});

t.test('pings answered: idle past pingInterval + pingTimeout, the connections stay', async (t) => {
  // A run without pongs is dropped after 600 ms every time; one with them only when the host stalls
  // this process past pingTimeout, which a repeated run rules out.
  await inSomeRun(t, 3, async (timing) => {
    let dropped = 0;
    const server = await socketIoServer(t, { pingInterval: 200, pingTimeout: 400 }, (io) => {
      io.on('connection', (socket) => socket.on('disconnect', (reason) => { if (reason === 'ping timeout') dropped++; }));
    });
    const result = await runLoad({ url: server.url, connections: 3, duration: '1500ms', socketio: { listen: { event: 'tick' } } });
    t.equal(result.messages!.received, 0, 'pings are not messages');
    timing.ok(dropped === 0, `no connection dropped for a missed pong: ${dropped}`);
    timing.ok(server.stats.connects === 3, `none reconnected: ${server.stats.connects} connects`);
    timing.ok(result.errors.total === 0 && Object.keys(result.websocket!.closeCodes).length === 0, `no errors or closes: ${JSON.stringify(result.errors.byCode)} ${JSON.stringify(result.websocket!.closeCodes)}`);
  });
});

t.test('a server that stops pinging: each connection given up past pingInterval + pingTimeout, counted, replaced', async (t) => {
  // A bare Engine.IO server (socket.io always pings): it opens with a 100 + 100 ms heartbeat, accepts the namespace, never pings.
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(wss, 'listening');
  t.teardown(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  const lifetimesMs: number[] = [];
  wss.on('connection', (socket) => {
    const openedAt = performance.now();
    socket.send('0{"sid":"s","upgrades":[],"pingInterval":100,"pingTimeout":100,"maxPayload":1000000}');
    socket.on('message', (data) => {
      if (data.toString() === '40') socket.send('40{"sid":"n"}');
    });
    socket.on('close', () => lifetimesMs.push(performance.now() - openedAt));
  });
  const { port } = wss.address() as AddressInfo;
  const result = await runLoad({ url: `http://127.0.0.1:${port}`, connections: 2, duration: '1500ms', socketio: { listen: { event: 'tick' } } });
  const timeouts = result.errors.byCode.SIO_PING_TIMEOUT ?? 0;
  t.same(Object.keys(result.errors.byCode), ['SIO_PING_TIMEOUT'], JSON.stringify(result.errors.byCode));
  t.ok(timeouts >= 2, `each connection given up at least once: ${timeouts}`);
  t.ok(wss.clients.size <= 2, 'none left open beside its replacement');
  const givenUp = lifetimesMs.slice(0, timeouts);
  t.ok(givenUp.every((ms) => ms >= 200), `none given up before its 200 ms deadline: ${givenUp.map((ms) => ms.toFixed(0)).join(', ')} ms`);
});

t.test('the end of a run closes the transport with no namespace disconnect, which would drop the last emits at the server', async (t) => {
  const reasons: string[] = [];
  const server = await socketIoServer(t, {}, (io) => {
    io.on('connection', (socket) => socket.on('disconnect', (reason) => reasons.push(reason)));
  });
  const result = await runLoad({ url: server.url, connections: 3, duration: '300ms', socketio: { emit: { event: 'echo' }, ack: true } });
  while (reasons.length < 3) await delay(10);
  // `transport error` where the server still acknowledged an emit into the closing WebSocket.
  t.ok(reasons.every((reason) => reason === 'transport close' || reason === 'transport error'), `the transport closed, no namespace disconnect: ${reasons.join(', ')}`);
  t.equal(server.stats.echoes, result.messages!.sent, 'every emit counted reached the handler');
});

t.test('a server disconnect and a dropped transport are counted and reconnected', async (t) => {
  let disconnected = 0;
  const server = await socketIoServer(t, {}, (io) => {
    io.on('connection', (socket) => {
      setTimeout(() => {
        if (!socket.connected) return;
        disconnected++;
        socket.disconnect(true);
      }, 250);
    });
  });
  const result = await runLoad({ url: server.url, connections: 2, duration: '1s', socketio: { listen: { event: 'tick' } } });
  const counted = result.errors.byCode.SIO_DISCONNECT ?? 0;
  t.ok(counted >= 2, `each connection disconnected at least once: ${counted}`);
  t.ok(counted <= disconnected, `no more than the server did (${disconnected})`);
  t.ok(server.stats.connects >= 2 + counted - 2 && server.stats.connects <= 2 + counted, `reconnected after each: ${server.stats.connects} connects`);
  t.ok(Object.values(result.websocket!.closeCodes).reduce((a, b) => a + b, 0) >= counted, `the closes counted: ${JSON.stringify(result.websocket!.closeCodes)}`);

  const dropping = await socketIoServer(t, {}, (io) => {
    io.on('connection', (socket) => setTimeout(() => socket.conn.close(), 250));
  });
  const dropped = await runLoad({ url: dropping.url, connections: 2, duration: '1s', socketio: { listen: { event: 'tick' } } });
  const closes = Object.values(dropped.websocket!.closeCodes).reduce((a, b) => a + b, 0);
  t.ok(closes >= 2, `dropped transports counted: ${JSON.stringify(dropped.websocket!.closeCodes)}`);
  t.ok(dropping.stats.connects >= 4, `and reconnected: ${dropping.stats.connects} connects`);
});

t.test('a late ack of an emit that timed out is counted, not taken for the next emit', async (t) => {
  // A stall that holds the tick's expiry until after the late ack came breaks a run; without the id
  // check every run breaks.
  await inSomeRun(t, 3, async (timing) => {
    const server = await socketIoServer(t, {}, (io) => {
      io.on('connection', (socket) => {
        let first = true;
        socket.on('slow', (ack: () => void) => {
          if (!first) return ack();
          first = false;
          setTimeout(ack, 450);
        });
      });
    });
    const result = await runLoad({ url: server.url, connections: 1, duration: '1s', timeout: '200ms', socketio: { emit: { event: 'slow' }, ack: true } });
    const received = result.messages!.received;
    t.ok(received > 1, `the next ones answered: ${received}`);
    timing.ok(result.errors.total === 1 && result.errors.byCode.TIMEOUT === 1, `the first emit timed out: ${JSON.stringify(result.errors.byCode)}`);
    timing.ok(timed(result) === received - 1, `every ack timed but the late one: ${timed(result)} of ${received}`);
  });
});

t.test('binary attachments are received, counted once whole, and answer', async (t) => {
  const blob = Buffer.alloc(1000, 7);
  const server = await socketIoServer(t, {}, (io) => {
    io.on('connection', (socket) => {
      socket.on('bin', (ack?: (reply: unknown) => void) => {
        if (typeof ack === 'function') ack({ blob, more: [blob] });
        else socket.emit('bin-reply', { n: 1, blob });
      });
    });
  });
  const replies = await runLoad({ url: server.url, connections: 2, amount: 40, socketio: { emit: { event: 'bin' }, reply: 'bin-reply' } });
  t.same(replies.messages && { sent: replies.messages.sent, received: replies.messages.received }, { sent: 40, received: 40 });
  t.equal(timed(replies), 40);
  t.ok(replies.bytes.received >= 40 * 1000, `the attachments' bytes counted: ${replies.bytes.received}`);
  t.equal(replies.errors.total, 0);
  const acks = await runLoad({ url: server.url, connections: 2, amount: 40, socketio: { emit: { event: 'bin' }, ack: true } });
  t.same(acks.messages && { sent: acks.messages.sent, received: acks.messages.received }, { sent: 40, received: 40 }, 'binary acks with two attachments');
  t.ok(acks.bytes.received >= 40 * 2000, `both attachments' bytes: ${acks.bytes.received}`);
  t.equal(acks.errors.total, 0);
});

t.test('exact counts with amount over 2 workers, closed loop and at a rate', async (t) => {
  const server = await socketIoServer(t);
  const closed = await runLoad({ url: server.url, connections: 4, workers: 2, amount: 301, socketio: { emit: { event: 'echo', data: 'x' }, ack: true } });
  t.equal(closed.workers, 2);
  t.equal(server.stats.echoes, 301, "the server's handler saw exactly amount emits");
  t.same(closed.messages && { sent: closed.messages.sent, received: closed.messages.received }, { sent: 301, received: 301 });
  server.stats.echoes = 0;
  const paced = await runLoad({ url: server.url, connections: 3, workers: 2, amount: 91, socketio: { emit: { event: 'echo', data: 'y' }, rate: 50, reply: 'echo-reply' } });
  t.equal(server.stats.echoes, 91);
  t.same(paced.messages && { sent: paced.messages.sent, received: paced.messages.received }, { sent: 91, received: 91 });
  server.stats.echoes = 0;
  // Fire and forget at a rate: nothing waited for, the run ends with the last emit, all of which arrive.
  const counter = await socketIoServer(t, {}, (io, stats) => io.on('connection', (socket) => socket.on('count', () => stats.echoes++)));
  const fire = await runLoad({ url: counter.url, connections: 3, workers: 2, amount: 60, socketio: { emit: { event: 'count' }, rate: 40 } });
  await delay(50);
  t.equal(counter.stats.echoes, 60, 'every emit reached the handler');
  t.equal(fire.messages!.sent, 60);
  t.equal(fire.errors.total, 0, 'no timeouts for emits that wait for nothing');
});

t.test('warmup: emits before the measured run reach the server but are not counted', async (t) => {
  const server = await socketIoServer(t);
  const result = await runLoad({ url: server.url, connections: 2, warmup: '300ms', amount: 100, socketio: { emit: { event: 'echo' }, ack: true } });
  const { sent, received } = result.messages!;
  t.equal(sent, 100);
  // The acks of the warm-up's last emits (one in flight per connection) count as received, untimed, as in a WebSocket run.
  t.ok(received >= 100 && received <= 102, `received ${received}`);
  t.ok(server.stats.echoes > 100, `the warm-up's emits too: ${server.stats.echoes}`);
  t.equal(timed(result), 100, 'only the measured emits timed');
});

t.test('connection stages open and close Socket.IO connections', async (t) => {
  await inSomeRun(t, 3, async (timing) => {
    const server = await socketIoServer(t);
    const result = await runLoad({
      url: server.url,
      connections: 1,
      stages: [{ duration: '300ms', connections: 2 }, { duration: '100ms', connections: 4 }, { duration: '600ms', connections: 4 }],
      socketio: { emit: { event: 'echo' }, ack: true },
    });
    t.same(result.websocket!.stages!.map((stage) => stage.connections), [2, 4, 4]);
    t.ok(server.stats.connects >= 3 && server.stats.connects <= 4, `one namespace connect per connection, none again: ${server.stats.connects}`);
    t.equal(server.stats.echoes, result.messages!.sent, 'the server saw every emit counted');
    t.equal(result.errors.total, 0);
    // The fourth opens about 400 ms in; a stalled host can hold its handshake past the end.
    timing.ok(server.stats.connects === 4, `the ramp opened all four: ${server.stats.connects}`);
  });
});

t.test('bad socketio options: a clear error naming the option', async (t) => {
  const url = 'http://127.0.0.1:1';
  const cases: Array<[LoadOptions, RegExp, typeof SalvoOptionError | typeof SalvoRangeError]> = [
    [{ url, socketio: { emit: { event: 'e' }, ack: true, acks: true } as never }, /unknown option "socketio\.acks"; did you mean ack\?/, SalvoOptionError],
    [{ url, socketio: { emit: { event: 'e', date: 1 } as never, ack: true } }, /unknown option "socketio\.emit\.date"; did you mean data\?/, SalvoOptionError],
    [{ url, socketio: {} }, /socketio needs emit .* listen/, SalvoOptionError],
    [{ url, socketio: { emit: { event: 'e' } } }, /socketio\.emit without ack or reply/, SalvoOptionError],
    [{ url, socketio: { emit: { event: '' }, ack: true } }, /socketio\.emit\.event must be an event name/, SalvoOptionError],
    [{ url, socketio: { emit: { event: 'e', data: Buffer.from('x') }, ack: true } }, /socketio\.emit\.data must be JSON data \(binary emits are not supported\)/, SalvoOptionError],
    [{ url, socketio: { emit: { event: 'e' }, ack: true, reply: 'r' } }, /socketio\.ack and socketio\.reply/, SalvoOptionError],
    [{ url, socketio: { emit: { event: 'e' }, rate: 0 } }, /socketio\.rate must be a number/, SalvoRangeError],
    [{ url, socketio: { listen: { event: 't' }, reply: 'r' } }, /socketio\.reply needs socketio\.emit/, SalvoOptionError],
    [{ url, socketio: { listen: { event: 't', timestamp: 'ts' as never } } }, /socketio\.listen\.timestamp must be \{ field/, SalvoOptionError],
    [{ url, socketio: { listen: { event: 't' }, namespace: 'chat' } }, /socketio\.namespace must start with \//, SalvoOptionError],
    [{ url, socketio: { listen: { event: 't' }, path: 'x' } }, /socketio\.path must be a path/, SalvoOptionError],
    [{ url, socketio: { listen: { event: 't' }, auth: 'x' as never } }, /socketio\.auth must be an object/, SalvoOptionError],
    [{ url: 'ws://127.0.0.1:1/socket.io/', socketio: { listen: { event: 't' } } }, /url of a Socket\.IO run is the server's origin; give the path as socketio\.path/, SalvoOptionError],
    [{ url, socketio: { listen: { event: 't' } }, websocket: { message: 'x' } }, /websocket and socketio cannot be combined/, SalvoOptionError],
    [{ url, socketio: { emit: { event: 'e' }, ack: true }, rate: 10 }, /rate is an HTTP option and has no meaning with a Socket\.IO run \(for messages per second per connection use socketio\.rate\)/, SalvoOptionError],
    [{ url, socketio: { emit: { event: 'e' }, ack: true }, method: 'POST' }, /method is an HTTP option/, SalvoOptionError],
    [{ url, socketio: { listen: { event: 't' } }, amount: 5 }, /amount counts emits and needs socketio\.emit/, SalvoOptionError],
    [{ url, socketio: 'x' as never }, /socketio must be an object/, SalvoOptionError],
  ];
  for (const [options, message, type] of cases) {
    await t.rejects(runLoad(options), { name: type.name, message }, String(message));
  }
  // The structured side: the option as the API spells it, and the value given.
  for (const [options, option, value] of [
    [{ url, socketio: { emit: { event: 'e' }, rate: -1 } }, 'socketio.rate', -1],
    [{ url, socketio: { listen: { event: 't' }, namespace: 'chat' } }, 'socketio.namespace', 'chat'],
    [{ url, socketio: { emit: { event: 'e' }, ack: true, acks: true } as never }, 'socketio.acks', true],
  ] as Array<[LoadOptions, string, unknown]>) {
    const error = (await runLoad(options).catch((e: unknown) => e)) as SalvoOptionError;
    t.same([error.option, error.value], [option, value], option);
  }
  await t.rejects(
    findCapacity({ url, slo: { 'latency.p99': '< 50' }, socketio: { emit: { event: 'e' }, ack: true } }),
    { name: 'SalvoOptionError', message: /socketio: findCapacity searches HTTP request rates/ },
    'findCapacity has no rate to search in a Socket.IO run',
  );
});
