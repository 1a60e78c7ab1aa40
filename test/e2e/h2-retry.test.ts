// HTTP/2 requests the server provably never processed (streams above a GOAWAY's last stream id,
// streams refused with REFUSED_STREAM) are sent again once, counted once; the rest stay errors.
import t from 'tap';
import { runLoad, type RequestSpec } from '../../src/index.js';
import { rawH2Server } from '../fixtures/raw-h2-server.js';

/** Each request its own `x-id` (1, 2, ...), so the server can tell a request sent twice. */
function numbered(): RequestSpec[] {
  let sent = 0;
  return [{ path: '/', setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-id': String(++sent) } }) }];
}

function distinct(ids: number[]): number {
  return new Set(ids).size;
}

t.test('GOAWAY after N streams: the streams above its last id go again on a new connection, each processed once', async (t) => {
  const server = await rawH2Server(t, { goawayAfter: 25 });
  const result = await runLoad({ url: server.url, transport: 'h2', connections: 2, h2Streams: 10, amount: 300, requests: numbered() });
  t.same(result.errors.byCode, {}, 'no errors');
  t.equal(result.requests.sent, 300);
  t.equal(result.requests.completed, 300);
  t.equal(server.stats.processed.length, 300, 'the server processed 300 requests');
  t.equal(distinct(server.stats.processed), 300, 'none of them twice');
  t.ok(server.stats.goaways >= 10, `${server.stats.goaways} GOAWAYs`);
  t.ok(server.stats.ignored > 0, `${server.stats.ignored} streams above a last stream id`);
  t.equal(result.requests.retried, server.stats.ignored, 'each ignored stream sent again once');
  // Every connection but the last of each of the two ended with a GOAWAY.
  t.ok(server.stats.connections <= server.stats.goaways + 2, `${server.stats.connections} connections`);
});

t.test('REFUSED_STREAM: the request goes again once on a new stream of the same connection', async (t) => {
  const server = await rawH2Server(t, { refuse: (id, attempt) => attempt === 1 && id % 4 === 0 });
  const result = await runLoad({ url: server.url, transport: 'h2', connections: 1, h2Streams: 10, amount: 200, requests: numbered() });
  t.same(result.errors.byCode, {});
  t.equal(result.requests.sent, 200);
  t.equal(result.requests.completed, 200);
  t.equal(server.stats.refused, 50, 'every fourth request refused once');
  t.equal(result.requests.retried, 50);
  t.equal(server.stats.processed.length, 200);
  t.equal(distinct(server.stats.processed), 200, 'none processed twice');
  t.equal(server.stats.connections, 1, 'the connection carried on');
});

t.test('a request refused twice is sent again only once, then counted', async (t) => {
  const server = await rawH2Server(t, { refuse: (id) => id % 5 === 0 });
  const result = await runLoad({ url: server.url, transport: 'h2', connections: 1, h2Streams: 4, amount: 50, requests: numbered() });
  t.same(result.errors.byCode, { H2_RST_REFUSED_STREAM: 10 });
  t.equal(server.stats.refused, 20, 'each of the 10 refused twice: sent twice, never a third time');
  t.equal(result.requests.retried, 10);
  t.equal(result.requests.completed, 40);
  t.equal(result.requests.completed + result.errors.total, result.requests.sent);
});

t.test('a stream at or below the last stream id that is cut off stays an error', async (t) => {
  const server = await rawH2Server(t, { goawayAfter: 10, cutLast: true });
  const result = await runLoad({ url: server.url, transport: 'h2', connections: 1, h2Streams: 5, amount: 50, requests: numbered() });
  // Each connection processes 10 and closes without answering the 10th: it may have been processed.
  const cut = server.stats.goaways;
  t.equal(result.errors.total, cut, `one error per connection cut off: ${JSON.stringify(result.errors.byCode)}`);
  t.equal(result.requests.completed + result.errors.total, 50);
  t.equal(server.stats.processed.length, 50, 'every request reached processing once');
  t.equal(distinct(server.stats.processed), 50);
  t.equal(result.requests.retried, server.stats.ignored);
});

t.test('retry: false counts what the server did not process, and sends nothing again', async (t) => {
  const goaway = await rawH2Server(t, { goawayAfter: 25 });
  const lost = await runLoad({ url: goaway.url, transport: 'h2', connections: 1, h2Streams: 10, amount: 100, retry: false, requests: numbered() });
  t.equal(lost.requests.retried, 0);
  t.same(lost.errors.byCode, { H2_GOAWAY: goaway.stats.ignored }, 'each stream above a last id is one H2_GOAWAY');
  t.equal(lost.requests.completed, goaway.stats.processed.length);
  t.equal(lost.requests.completed + lost.errors.total, 100);
  t.equal(goaway.stats.processed.length + goaway.stats.ignored, 100, 'nothing sent twice');

  const refused = await rawH2Server(t, { refuse: (id) => id % 4 === 0 });
  const counted = await runLoad({ url: refused.url, transport: 'h2', connections: 1, h2Streams: 10, amount: 100, retry: false, requests: numbered() });
  t.same(counted.errors.byCode, { H2_RST_REFUSED_STREAM: 25 });
  t.equal(refused.stats.refused, 25);
  t.equal(counted.requests.retried, 0);
});

t.test('a retried request is timed from its first send', async (t) => {
  // The GOAWAY comes 150 ms after the 4th answer: the streams sent meanwhile waited that long for it.
  const server = await rawH2Server(t, { goawayAfter: 4, goawayDelayMs: 150 });
  const result = await runLoad({ url: server.url, transport: 'h2', connections: 1, h2Streams: 4, amount: 8, requests: numbered() });
  t.same(result.errors.byCode, {});
  t.equal(result.requests.completed, 8);
  t.equal(result.requests.retried, 4, 'the 4 sent while the GOAWAY was on its way');
  t.equal(distinct(server.stats.processed), 8);
  t.ok(result.latency.max >= 150, `latency max ${result.latency.max} ms includes the wait for the GOAWAY`);
});
