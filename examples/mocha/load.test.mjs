// A load test in mocha: `npm test` in this folder.
import assert from 'node:assert/strict';
import { assertThresholds, runLoad } from 'salvo';
import { createTestServer } from 'salvo/testing';

describe('the API under load', function () {
  this.timeout(10_000); // a load test runs for seconds, longer than mocha's default 2 s
  let server;
  before(async () => (server = await createTestServer({ delayMs: 2, headers: { 'content-type': 'text/plain' } })));
  after(() => server.close());

  it('answers 200 with the right content type, p99 under 50 ms', async () => {
    const result = await runLoad({
      url: server.url,
      connections: 10,
      duration: '2s',
      expect: { status: 200, headers: { 'content-type': 'text/plain' } },
      thresholds: { 'latency.p99': '< 50', 'checks.rate': '== 1' },
    });
    assertThresholds(result);
  });

  it('sends exactly `amount` requests', async () => {
    const counting = await createTestServer(); // its own server: nothing else counted in its stats
    try {
      const result = await runLoad({ url: counting.url, connections: 4, amount: 1000 });
      assert.equal(result.requests.completed, 1000);
      assert.equal(counting.stats.requests, 1000);
    } finally {
      await counting.close();
    }
  });
});
