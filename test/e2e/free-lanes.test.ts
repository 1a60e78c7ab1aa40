// Open loop (issue 38): a rate spreads over every connection (the lane freed longest ago takes the
// next slot), and the slots that fall due while the server is down are missed, not sent in a burst
// when it is back.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import t, { type Test } from 'tap';
import { FreeLanes } from '../../src/runner/free-lanes.js';
import { Lane } from '../../src/transports/transport.js';
import { runLoad, type TransportName } from '../../src/index.js';
import { inSomeRun } from '../fixtures/timing.js';

const TRANSPORTS: TransportName[] = ['net', 'undici', 'http'];

/** A node:http server that records each request's arrival (performance.now()) and connection. */
async function countingServer(t: Test, port = 0): Promise<{ server: http.Server; port: number; arrivals: number[]; perConnection: Map<Socket, number> }> {
  const arrivals: number[] = [];
  const perConnection = new Map<Socket, number>();
  const server = http.createServer((request, response) => {
    arrivals.push(performance.now());
    perConnection.set(request.socket, (perConnection.get(request.socket) ?? 0) + 1);
    response.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return { server, port: (server.address() as AddressInfo).port, arrivals, perConnection };
}

t.test('FreeLanes: least recently freed first, in a ring that wraps', async (t) => {
  const lanes = [0, 1, 2].map((id) => new Lane(id, id));
  const free = new FreeLanes<Lane>(3);
  for (const lane of lanes) free.push(lane);
  const order: number[] = [];
  for (let i = 0; i < 7; i++) {
    const lane = free.shift()!;
    order.push(lane.id);
    free.push(lane);
  }
  t.same(order, [0, 1, 2, 0, 1, 2, 0]);
  t.equal(free.size, 3);
  while (free.shift() !== undefined);
  t.equal(free.size, 0);
  t.equal(free.shift(), undefined);
});

for (const transport of TRANSPORTS) {
  // undici: one Client per connection; node:http: one Agent of one socket per connection (a Pool or
  // a shared Agent opened another only when every open one was busy: 80 of 80 on one at 20/s).
  t.test(`${transport}: 50/s on 10 connections: every connection carries load, evenly`, async (t) => {
    const { port, perConnection } = await countingServer(t);
    const result = await runLoad({ url: `http://127.0.0.1:${port}/`, transport, connections: 10, rate: 50, amount: 100, timeout: 5000 });
    t.equal(result.requests.completed, 100);
    const counts = [...perConnection.values()];
    t.comment(`requests per connection: ${counts.join(', ')}`);
    t.equal(counts.length, 10, 'ten connections carried requests');
    t.ok(Math.max(...counts) <= 12 && Math.min(...counts) >= 8, 'about 10 each');
  });

  t.test(`${transport}: 200/s, the server down from 1 s to 1.5 s: missed, not a burst when it is back`, async (t) => {
    await inSomeRun(t, 3, async (timing) => {
      const first = await countingServer(t);
      const arrivals = first.arrivals;
      let second: Awaited<ReturnType<typeof countingServer>> | undefined;
      const down = setTimeout(() => {
        first.server.closeAllConnections();
        first.server.close();
      }, 1000);
      const up = setTimeout(async () => {
        second = await countingServer(t, first.port);
        second.server.on('request', () => arrivals.push(performance.now()));
      }, 1500);
      t.teardown(() => {
        clearTimeout(down);
        clearTimeout(up);
      });
      const result = await runLoad({ url: `http://127.0.0.1:${first.port}/`, transport, connections: 10, rate: 200, duration: '2.5s', timeout: 2000 });
      const { sent, completed, missed } = result.requests;
      t.comment(`sent ${sent}, completed ${completed}, missed ${missed}, errors ${JSON.stringify(result.errors.byCode)}`);
      t.ok(arrivals.length >= completed && arrivals.length <= sent, 'the server saw every completed request, and no more than were sent');
      t.ok(second !== undefined && second.arrivals.length > 0, 'requests reached the restarted server');
      t.ok(missed > 0, `the slots due while it was down are missed: ${missed}`);
      const refused = result.errors.byCode.ECONNREFUSED ?? 0;
      // A request sent on a connection the server's death closed may be retried into a refusal: sent and refused.
      t.ok(sent + missed <= 500 && sent + refused + missed >= 480, `every slot of 500 is sent, refused or missed: ${sent} + ${refused} + ${missed}`);
      // 200/s is 10 in 50 ms; the burst before was every slot of the outage at once (about 100).
      arrivals.sort((a, b) => a - b);
      let most = 0;
      for (let i = 0, j = 0; i < arrivals.length; i++) {
        while (arrivals[i]! - arrivals[j]! >= 50) j++;
        most = Math.max(most, i - j + 1);
      }
      timing.ok(most <= 30, `at most 30 requests in any 50 ms at the server: ${most}`);
    });
  });
}
