// How many opening handshakes a WebSocket run has in flight at once (OpeningQueue): never more
// than its limit, every connection opened in the end, none twice, none that is no longer wanted.
import t from 'tap';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { socketSettings, WsConnection, type ConnectionEvents } from '../../src/websocket/connection.js';
import { OpeningQueue } from '../../src/websocket/opening.js';

t.test('the queue starts at most `limit`, then one for each that ended, first come first served', async (t) => {
  const started: number[] = [];
  const connections = Array.from({ length: 6 }, (_, index) => new WsConnection(index));
  const unwanted = new Set<number>();
  const queue = new OpeningQueue(2, (connection) => started.push(connection.index), (connection) => !unwanted.has(connection.index));
  for (const connection of connections) queue.request(connection);
  t.same(started, [0, 1], 'two start, four wait');
  t.same(connections.map((connection) => connection.queued), [false, false, true, true, true, true]);
  queue.request(connections[0]!);
  queue.request(connections[2]!);
  t.same(started, [0, 1], 'asking again for one opening or waiting adds nothing');
  queue.ended(connections[3]!);
  t.same(started, [0, 1], 'the end of one that never started frees nothing');
  queue.ended(connections[0]!);
  t.same(started, [0, 1, 2], 'one ended: the first waiting starts');
  queue.ended(connections[0]!);
  t.same(started, [0, 1, 2], 'an end told twice frees one place only');
  unwanted.add(3);
  queue.ended(connections[1]!);
  t.same(started, [0, 1, 2, 4], 'one no longer wanted (ramped down) is passed over');
  t.equal(connections[3]!.queued, false, 'and is no longer waiting');
  queue.clear();
  t.equal(connections[5]!.queued, false, 'clear forgets the waiting');
  queue.ended(connections[2]!);
  t.same(started, [0, 1, 2, 4], 'nothing starts after clear');
  queue.request(connections[3]!);
  t.same(started, [0, 1, 2, 4, 3], 'a place is free again: a new request starts at once');
});

t.test('against a ws server that holds each upgrade: never more than the limit in flight, all open', async (t) => {
  const LIMIT = 3;
  const CLIENTS = 10;
  const wss = new WebSocketServer({ noServer: true });
  let inFlight = 0;
  let mostInFlight = 0;
  let upgrades = 0;
  const server = http.createServer();
  server.on('upgrade', (request, socket, head) => {
    upgrades++;
    mostInFlight = Math.max(mostInFlight, ++inFlight);
    // Held 30 ms: every handshake the client has in flight is in flight at the server too.
    setTimeout(() => {
      inFlight--;
      wss.handleUpgrade(request, socket, head, () => {});
    }, 30);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    for (const client of wss.clients) client.terminate();
    server.close();
  });
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const settings = socketSettings(url, { headers: {}, protocols: [], perMessageDeflate: false, tlsOptions: undefined, timeoutMs: 5000, keepsMessages: false });
  const connections = Array.from({ length: CLIENTS }, (_, index) => new WsConnection(index));
  let opened = 0;
  let allOpen!: () => void;
  const done = new Promise<void>((resolve) => (allOpen = resolve));
  const events: ConnectionEvents = {
    opened: (connection) => {
      queue.ended(connection);
      if (++opened === CLIENTS) allOpen();
    },
    message: () => {},
    failed: (_connection, code) => t.fail(`a handshake failed: ${code}`),
    closed: (connection, _code, wasOpen) => {
      if (!wasOpen) queue.ended(connection);
    },
  };
  const queue = new OpeningQueue(LIMIT, (connection) => connection.connect(settings, events), () => true);
  for (const connection of connections) queue.request(connection);
  await done;
  t.equal(opened, CLIENTS, 'every connection opened');
  t.equal(upgrades, CLIENTS, 'each with one handshake');
  t.equal(mostInFlight, LIMIT, `at most ${LIMIT} handshakes at the server at once, and that many`);
  for (const connection of connections) connection.socket?.terminate();
});
