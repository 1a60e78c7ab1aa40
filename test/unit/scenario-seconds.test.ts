// workers/scenario-seconds.ts: the seconds of a run of scenarios rolled into seconds of the whole
// run: a scenario's second k is the run's k + offset, summed; one that has not started yet holds no
// second back; each scenario's part rides along as byScenario.
import t from 'tap';
import type { RunningTotals, SecondSummary } from '../../src/stats/recorder.js';
import { createHistogram, encodeHistogram } from '../../src/stats/histogram.js';
import { ScenarioSeconds } from '../../src/workers/scenario-seconds.js';

const histogramOf = (us: number[]) => {
  const histogram = createHistogram();
  for (const value of us) histogram.recordValue(value);
  const text = encodeHistogram(histogram);
  histogram.destroy();
  return text;
};
const summary = (second: number, sent: number, latencyUs: number): SecondSummary => ({
  second, sent, completed: sent, errors: 0, retried: 0, p50: latencyUs / 1000, p90: latencyUs / 1000, p99: latencyUs / 1000,
  connections: 2, targetRate: undefined, cpuPercent: 10, eventLoopUtilization: 0.1, histogram: histogramOf(Array.from({ length: sent }, () => latencyUs)),
});
const totals = (sent: number): RunningTotals => ({ sent, completed: sent, errors: 0, retried: 0, statusCodes: { 200: sent }, errorsByCode: {}, failed: 0 });

t.test('a scenario starting 2 s in: seconds 0 and 1 are the first one’s alone, second 2 is both', async (t) => {
  const seen: Array<{ second: number; sent: number; p99: number; byScenario: string[]; totalSent: number; bSent?: number }> = [];
  const seconds = new ScenarioSeconds([{ name: 'browse', offsetSeconds: 0 }, { name: 'burst', offsetSeconds: 2 }], (s, total, byScenario) =>
    seen.push({ second: s.second, sent: s.sent, p99: s.p99, byScenario: Object.keys(byScenario).sort(), totalSent: total.sent, ...(byScenario.burst ? { bSent: byScenario.burst.sent } : {}) }));
  const browse = seconds.scenario(0);
  const burst = seconds.scenario(1);
  browse(summary(0, 10, 1000), totals(10));
  t.same(seen.map((s) => s.second), [0], 'second 0 is not held back by a scenario that starts at 2');
  browse(summary(1, 10, 1000), totals(20));
  t.same(seen.map((s) => s.second), [0, 1]);
  browse(summary(2, 10, 1000), totals(30));
  t.same(seen.map((s) => s.second), [0, 1], 'second 2 waits for the scenario that starts then');
  burst(summary(0, 40, 50_000), totals(40));
  t.same(seen.at(-1), { second: 2, sent: 50, p99: seen.at(-1)!.p99, byScenario: ['browse', 'burst'], totalSent: 70, bSent: 40 }, "the burst's second 0 is the run's second 2, summed");
  t.ok(seen.at(-1)!.p99 >= 49.9 && seen.at(-1)!.p99 <= 50.1, `the whole second's p99 from both histograms: ${seen.at(-1)!.p99} ms`);
  t.same(seen.slice(0, 2).map((s) => [s.sent, s.byScenario]), [[10, ['browse']], [10, ['browse']]]);
  t.same(seen.slice(0, 2).map((s) => s.totalSent), [10, 20], 'totals of the idle scenario are zero');
});

t.test('a scenario that ended no longer holds seconds back; flush reports the rest', async (t) => {
  const seen: number[] = [];
  const seconds = new ScenarioSeconds([{ name: 'a', offsetSeconds: 0 }, { name: 'b', offsetSeconds: 0 }], (s) => seen.push(s.second));
  seconds.scenario(0)(summary(0, 1, 1000), totals(1));
  seconds.scenario(1)(summary(0, 1, 1000), totals(1));
  seconds.scenario(0)(summary(1, 1, 1000), totals(2));
  t.same(seen, [0]);
  seconds.finish(1);
  t.same(seen, [0, 1], 'b ended: second 1 is a alone');
  seconds.scenario(0)(summary(2, 1, 1000), totals(3));
  seconds.flush();
  t.same(seen, [0, 1, 2]);
});
