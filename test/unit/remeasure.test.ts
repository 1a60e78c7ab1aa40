// runGate's re-measure: a regression is measured again before it fails, as often as `remeasure` says.
import t, { type Test } from 'tap';
import type { LoadResult } from '../../src/index.js';
import { addToHistory, formatJUnit, formatSummary, runGate } from '../../src/gate/index.js';

/** A run with a p50 of `p50` ms (what the comparison reads), as a CI job's runs would be. */
function run(p50: number): LoadResult {
  return {
    url: 'http://127.0.0.1:3000/', transport: 'net', connections: 10,
    latency: { p50, p90: p50, p99: p50 }, requests: { perSecond: 10_000 / p50, completed: 100 }, errors: { total: 0 }, timeline: [], durationMs: 1000, ok: true,
  } as unknown as LoadResult;
}

/** A build of 5 runs around `p50` ms, with a little spread. */
const build = (p50: number) => [0.99, 1.01, 1, 0.995, 1.005].map((share) => run(p50 * share));

async function history(t: Test): Promise<string> {
  const dir = t.testdir();
  for (let entry = 0; entry < 4; entry++) await addToHistory(dir, 'api', build(10 + entry * 0.01), { env: {} });
  return dir;
}

t.test('slow once (a busy host), then fine: measured again, passes; the earlier regression is said', async (t) => {
  const dir = await history(t);
  const measured: number[] = [];
  const slowOnce = async () => {
    measured.push(measured.length);
    return build(measured.length === 1 ? 12 : 10);
  };
  const heard: number[] = [];
  const gate = await runGate(dir, 'api', slowOnce, { onRemeasure: (attempt) => heard.push(attempt) });
  t.equal(gate.measurements, 2, 'measured twice');
  t.equal(gate.comparison.ok, true, 'the second measurement decides');
  t.same(heard, [1]);
  t.equal(gate.results[0]!.latency.p50, 9.9, 'the results are the last measurement\'s');
  t.equal(gate.comparison.remeasured?.length, 1);
  t.match(gate.comparison.remeasured![0]!.regressed.join('\n'), /latency\.p50: 19\.\d\d% slower \(10\.0\d+ -> 12 ms\)/);
  const outcome = { testId: 'api', results: gate.results, comparison: gate.comparison };
  t.match(formatSummary(outcome), /\| `measurement 1` \| ✅ passed \| the first measurement regressed \(.*latency\.p50: 19\.\d\d% slower.*\), so the build was measured again; the verdict is the last measurement's \|/);
  t.match(formatJUnit(outcome), /<testsuite name="api regression" tests="5" failures="0"/);
});

t.test('slow every time: fails after the re-measures; remeasure 0 fails at once; a pass or no baseline is measured once', async (t) => {
  const dir = await history(t);
  let calls = 0;
  const slow = async () => {
    calls++;
    return build(12);
  };
  const twice = await runGate(dir, 'api', slow, { remeasure: 2 });
  t.same([twice.measurements, calls, twice.comparison.ok, twice.comparison.remeasured?.length], [3, 3, false, 2], 'measured 3 times, failed');
  calls = 0;
  const byDefault = await runGate(dir, 'api', slow);
  t.same([byDefault.measurements, calls, byDefault.comparison.ok], [3, 3, false], 'by default a regression is measured twice more before it fails');
  calls = 0;
  const off = await runGate(dir, 'api', slow, { remeasure: 0 });
  t.same([off.measurements, calls, off.comparison.ok, off.comparison.remeasured], [1, 1, false, undefined], 'remeasure: 0 fails on the first');
  calls = 0;
  const fine = await runGate(dir, 'api', async () => {
    calls++;
    return build(10);
  });
  t.same([fine.measurements, calls, fine.comparison.ok], [1, 1, true]);
  calls = 0;
  const none = await runGate(`${t.testdir()}/nope`, 'api', slow);
  t.same([none.measurements, calls, none.comparison.noBaseline?.code], [1, 1, 'HISTORY_MISSING']);
  await t.rejects(runGate(dir, 'api', slow, { remeasure: -1 }), { name: 'SalvoRangeError', option: 'remeasure' });
  await t.rejects(runGate(dir, 'api', undefined as never), { name: 'SalvoOptionError', option: 'measure' });
});
