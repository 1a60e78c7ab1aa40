// A load test in node:test: `node --test examples/node-test/load.test.mjs`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertThresholds, runLoad } from 'salvo';
import { createTestServer } from 'salvo/testing';

let server;
before(async () => (server = await createTestServer({ delayMs: 2 })));
after(() => server.close());

test('GET / stays fast under 20 connections', async () => {
  const result = await runLoad({
    url: server.url,
    connections: 20,
    duration: '2s',
    thresholds: { 'latency.p99': '< 50', 'errors.total': '== 0' },
  });
  assertThresholds(result); // throws an AssertionError listing every failed threshold
});

test('abortOnFail ends a failing run early', async () => {
  const failing = await createTestServer({ errorRate: 0.5 });
  try {
    const result = await runLoad({
      url: failing.url,
      duration: '10s',
      // Once 10 responses were 500s this can never pass: stop within about a second.
      thresholds: { 'statusCodes.500': { threshold: '< 10', abortOnFail: true } },
    });
    assert.equal(result.aborted, true);
    assert.equal(result.ok, false);
    assert.ok(result.durationMs < 2000);
  } finally {
    await failing.close();
  }
});
