// Catching a regression in CI with a stored baseline: `node --test examples/regression/regression.test.mjs`.
//
// The baseline is a JSON file of repeated `runLoad` results, recorded once (on main, on the same kind
// of CI runner) and committed or cached; each CI run measures the candidate the same number of times
// and asks whether it is significantly worse than the baseline by more than a margin. Here both the
// "service" and its regression are salvo's test server: 10 ms per request, then 12 ms.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertNoRegression, compareResults, formatComparison, runLoad } from 'salvo';
import { createTestServer } from 'salvo/testing';

const RUNS = 6;
const baselineFile = process.env.SALVO_BASELINE ?? join(mkdtempSync(join(tmpdir(), 'salvo-')), 'baseline.json');
const load = (url) => ({ url, connections: 4, duration: '1s' });

async function measure(url) {
  const results = [];
  for (let run = 0; run < RUNS; run++) results.push(await runLoad(load(url)));
  return results;
}

let service, regressed;
before(async () => {
  service = await createTestServer({ delayMs: 10 });
  regressed = await createTestServer({ delayMs: 12 });
  if (!existsSync(baselineFile)) {
    // First run (or a refresh on main): record the baseline. A result is plain JSON.
    writeFileSync(baselineFile, JSON.stringify(await measure(service.url)));
    console.log(`recorded ${RUNS} baseline runs in ${baselineFile}`);
  }
});
after(() => Promise.all([service.close(), regressed.close()]));

const margins = { 'latency.p50': '5%', 'requests.perSecond': '5%' };

test('today\'s build is no slower than the stored baseline', async () => {
  const baseline = JSON.parse(readFileSync(baselineFile, 'utf8'));
  const comparison = compareResults(baseline, await measure(service.url));
  console.log(formatComparison(comparison));
  assertNoRegression(comparison, margins);
});

test('a build 2 ms slower per request fails the same check', async () => {
  const baseline = JSON.parse(readFileSync(baselineFile, 'utf8'));
  const comparison = compareResults(baseline, await measure(regressed.url));
  console.log(formatComparison(comparison));
  assert.throws(() => assertNoRegression(comparison, margins), /latency\.p50: \d+\.\d\d% slower/);
});
