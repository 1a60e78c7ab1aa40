// The test server's capacity mode: at most N requests a second, the rest queued, so that latency
// climbs past N. The ground truth the capacity search is tested against.
import t from 'tap';
import { runLoad } from '../../src/index.js';
import { testServer } from '../fixtures/test-server.js';
import { serverCount } from '../fixtures/server-count.js';
import { inSomeRun } from '../fixtures/timing.js';

t.test('a closed loop gets at most N responses a second, however many connections ask', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const server = await testServer(t, { capacity: 400 });
    const result = await runLoad({ url: server.url, connections: 20, duration: 1000 });
    t.equal(await serverCount(server, result.requests.sent), result.requests.sent, 'the server counted every request sent');
    // 20 ms of slack lets 8 go at once at the start; a stalled host only lowers the count.
    t.ok(result.requests.completed <= 400 + 8 + 1, `completed ${result.requests.completed} in 1 s against a 400/s server`);
    timing.ok(result.requests.completed >= 360, `completed ${result.requests.completed}, within 10% of 400`);
    // 20 requests always waiting in line for 2.5 ms slots: each waits about 50 ms.
    timing.ok(result.latency.p50 >= 40 && result.latency.p50 <= 60, `p50 ${result.latency.p50.toFixed(2)} ms; 20 in line at 2.5 ms each is 50`);
  }),
);

t.test('open loop: below N no queue; past N the queue and the latency grow', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const server = await testServer(t, { capacity: 400 });
    const below = await runLoad({ url: server.url, connections: 50, rate: 200, duration: 1000 });
    const above = await runLoad({ url: server.url, connections: 200, rate: 600, duration: 1000 });
    t.equal(await serverCount(server, below.requests.sent + above.requests.sent), below.requests.sent + above.requests.sent, 'the server counted every request sent');
    timing.ok(below.latency.p50 < 5, `at 200/s p50 ${below.latency.p50.toFixed(2)} ms`);
    // 200 more arrive each second than are served: the last waits ~330 ms, the median ~160 ms.
    t.ok(above.latencyUncorrected.p50 >= 100, `at 600/s p50 from the write ${above.latencyUncorrected.p50.toFixed(2)} ms`);
    t.ok(above.requests.completed <= 400 + 8 + 1, `at 600/s the server completed ${above.requests.completed}`);
  }),
);
