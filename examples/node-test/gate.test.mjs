// A CI gate in node:test against a baseline history: `node --test examples/node-test/gate.test.mjs`.
//
// The history is a folder (committed, or kept in the CI cache) of the builds stored on the main
// branch; each test compares today's runs with its latest baseline builds. Here the folder is a
// temporary one, seeded with three builds of the service, and a JUnit file goes beside it.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runLoad } from 'salvo';
import { addToHistory, compareWithHistory, formatJUnit } from 'salvo/gate';
import { createTestServer } from 'salvo/testing';

const history = process.env.SALVO_HISTORY ?? mkdtempSync(join(tmpdir(), 'salvo-history-'));
const RUNS = 3;

async function build(url) {
  const results = [];
  for (let run = 0; run < RUNS; run++) results.push(await runLoad({ url, connections: 10, duration: '1s', thresholds: { 'latency.p50': { threshold: '< 100', window: '1s' } } }));
  return results;
}

let service;
before(async () => {
  service = await createTestServer({ delayMs: 10 });
  for (let stored = 0; stored < 3; stored++) await addToHistory(history, 'api', await build(service.url), { branch: 'main' });
});
after(() => service.close());

test('today\'s build: a median under 100 ms in every second, and no regression against the history', async () => {
  const results = await build(service.url);
  const comparison = await compareWithHistory(history, 'api', results, { margins: { 'latency.p50': '5%', 'latency.p90': '10%' } });
  writeFileSync(join(history, 'junit.xml'), formatJUnit({ testId: 'api', results, comparison }));
  for (const result of results) assert.ok(result.ok, result.thresholds.filter((t) => !t.passed).map((t) => `${t.metric} ${t.expression}: ${t.actual}`).join('\n'));
  assert.ok(comparison.ok, comparison.metrics.filter((metric) => metric.regressed).map((metric) => metric.message).join('\n'));
  assert.equal(comparison.runs.baseline, 9);
});
