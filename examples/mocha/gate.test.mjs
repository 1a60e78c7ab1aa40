// A CI gate in mocha against a baseline history (`npm test` in this folder runs it).
//
// A real project keeps the history folder in its repository or its CI cache; this one starts empty
// in a temporary folder and stores three builds first. A build 30% slower fails the gate.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from 'salvo';
import { addToHistory, compareWithHistory } from 'salvo/gate';
import { createTestServer } from 'salvo/testing';

const build = async (url) => {
  const results = [];
  for (let run = 0; run < 3; run++) results.push(await runLoad({ url, connections: 10, duration: '1s' }));
  return results;
};

describe('the API against its history', function () {
  this.timeout(60_000); // a few seconds of load per build
  const history = mkdtempSync(join(tmpdir(), 'salvo-history-'));
  const margins = { 'latency.p50': '5%' };
  let service, slower;
  before(async () => {
    service = await createTestServer({ delayMs: 10 });
    slower = await createTestServer({ delayMs: 13 });
    for (let stored = 0; stored < 3; stored++) await addToHistory(history, 'api', await build(service.url));
  });
  after(() => Promise.all([service.close(), slower.close()]));

  it('passes a build with no change', async () => {
    const comparison = await compareWithHistory(history, 'api', await build(service.url), { margins });
    assert.ok(comparison.ok, comparison.metrics.map((metric) => metric.message).join('\n'));
  });

  it('fails a build 30% slower, naming the metric', async () => {
    const comparison = await compareWithHistory(history, 'api', await build(slower.url), { margins });
    assert.equal(comparison.ok, false);
    assert.match(comparison.metrics[0].message, /^latency\.p50: \d+\.\d\d% slower /);
  });
});
