import t from 'tap';
import { SalvoOptionError, SalvoRangeError } from '../../src/shared/errors.js';
import { createHistogram, encodeHistogram, latencyStats } from '../../src/stats/histogram.js';
import { evaluateThresholds, parseThresholds } from '../../src/stats/thresholds.js';
import { formatResult } from '../../src/stats/format.js';
import { wholeRunMergeInfo } from '../fixtures/merge-info.js';
import { noPhases } from '../fixtures/phases.js';
import type { LoadResult, TimelineEntry } from '../../src/shared/load-result.js';

/** One second: its completed latencies (ms) and errors. */
interface Second { latenciesMs: number[]; errors?: number }

/** A result whose timeline and per-second histograms hold exactly `seconds`; the last second lasts `lastMs`. */
function resultOf(seconds: Second[], lastMs = 1000): LoadResult {
  const whole = createHistogram();
  const timeline: TimelineEntry[] = [];
  const encoded: string[] = [];
  seconds.forEach(({ latenciesMs, errors = 0 }, second) => {
    const histogram = createHistogram();
    for (const ms of latenciesMs) {
      histogram.recordValue(ms * 1000);
      whole.recordValue(ms * 1000);
    }
    const stats = latencyStats(histogram);
    timeline.push({ second, sent: latenciesMs.length + errors, completed: latenciesMs.length, errors, retried: 0, p50: stats.p50, p99: stats.p99, connections: 1, cpuPercent: 0, eventLoopUtilization: 0 });
    encoded.push(latenciesMs.length === 0 ? '' : encodeHistogram(histogram));
  });
  const completed = timeline.reduce((sum, entry) => sum + entry.completed, 0);
  const errors = timeline.reduce((sum, entry) => sum + entry.errors, 0);
  const durationMs = (seconds.length - 1) * 1000 + lastMs;
  const info = wholeRunMergeInfo();
  return {
    url: 'http://localhost:3000/', transport: 'net', connections: 1, workers: 1,
    requests: { sent: completed + errors, completed, perSecond: completed / (durationMs / 1000), missed: 0, retried: 0, unfinished: 0 },
    latency: latencyStats(whole), latencyUncorrected: latencyStats(whole),
    statusCodes: { '200': completed }, errors: { total: errors, byCode: errors === 0 ? {} : { ECONNRESET: errors } }, failed: { total: errors, byStatus: {} },
    bytes: { sent: 0, received: 0 }, durationMs, timeline, aborted: false, warnings: [],
    generator: { cpuPercent: 0, eventLoopUtilization: 0, eventLoopDelayP99Ms: 0, saturated: false },
    ok: true, histogram: encodeHistogram(whole), histogramUncorrected: encodeHistogram(whole),
    ...noPhases(),
    startedAt: info.startedAt,
    merge: { ...info.merge, plan: { ...info.merge.plan, connections: 1, durationMs }, timeline: encoded },
  };
}

const fast = (count: number, ms = 10): Second => ({ latenciesMs: Array.from({ length: count }, () => ms) });

t.test('a window adds its seconds\' histograms: its p99 is never an average or a maximum of per-second p99s', async (t) => {
  // Second 0: 99 responses at 10 ms; second 1: one at 500 ms. Added, the 99th of 100 values is 10 ms;
  // the mean of the two seconds' p99 would be 255 ms and their maximum 500 ms.
  const result = resultOf([fast(99), { latenciesMs: [500] }]);
  const [outcome] = evaluateThresholds(parseThresholds({ 'latency.p99': { threshold: '< 50', window: '2s' } }), result);
  t.equal(outcome!.passed, true);
  t.ok(outcome!.actual >= 10 && outcome!.actual < 10.1, 'the p99 of the added seconds: 10 ms');
  t.same(outcome!.windows, { durationMs: 2000, judged: 1, failed: [] });
});

t.test('every window of whole seconds, one second apart; the failed ones named; actual is the worst', async (t) => {
  // Ten seconds of 100 fast responses; second 6 has 5 slow ones among them.
  const seconds = Array.from({ length: 10 }, () => fast(100));
  seconds[6] = { latenciesMs: [...fast(95).latenciesMs, 400, 400, 400, 400, 400] };
  const result = resultOf(seconds);
  const [whole] = evaluateThresholds(parseThresholds({ 'latency.p99': '< 50' }), result);
  t.equal(whole!.passed, true, 'the whole run: 5 slow of 1,000 is under 1%');
  const [outcome] = evaluateThresholds(parseThresholds({ 'latency.p99': { threshold: '< 50', window: '3s' } }), result);
  t.equal(outcome!.windows!.judged, 8, 'windows 0-3 .. 7-10');
  t.same(outcome!.windows!.failed.map(({ from, to }) => [from, to]), [[4, 7], [5, 8], [6, 9]], 'the windows holding second 6');
  t.ok(outcome!.windows!.failed.every(({ actual }) => actual >= 400 && actual < 401));
  t.equal(outcome!.passed, false);
  t.ok(outcome!.actual >= 400 && outcome!.actual < 401, 'actual: the worst window\'s p99');
  t.match(formatResult({ ...result, thresholds: [outcome!], ok: false }), /✗ latency\.p99 < 50 \(every 3 s window\)\s+actual 400\.\d+ ms \(worst window; 3 of 8 windows failed, the first seconds 4-7\)/);
});

t.test('counters per window: rate over the time a window covers (the last second cut short), error rate, no-data windows fail', async (t) => {
  // 4 seconds: 100, 100, 0 and 50 responses in a last second of 500 ms.
  const result = resultOf([fast(100), fast(100), { latenciesMs: [], errors: 10 }, fast(50)], 500);
  const outcomes = evaluateThresholds(parseThresholds({
    'requests.perSecond': { threshold: '>= 90', window: '2s' },
    'errors.rate': { threshold: '< 0.05', window: '1s' },
    'latency.p50': { threshold: '< 50', window: '1s' },
    'requests.completed': { threshold: '>= 50', window: '10s' },
  }), result);
  const [rate, errors, latency, completed] = outcomes;
  t.same(rate!.windows!.failed, [{ from: 1, to: 3, actual: 50 }, { from: 2, to: 4, actual: 50 / 1.5 }], 'the last window: 50 responses over 1.5 s');
  t.equal(rate!.actual, 50 / 1.5, 'the lowest rate is the worst for a lower bound');
  t.same(errors!.windows!.failed, [{ from: 2, to: 3, actual: 1 }]);
  t.ok(Number.isNaN(latency!.actual), 'a second with no responses has no latency: the worst');
  t.same(latency!.windows!.failed.map(({ from }) => from), [2]);
  t.same(completed!.windows, { durationMs: 10_000, judged: 1, failed: [] }, 'a run shorter than its window is one window');
  t.equal(completed!.actual, 250);
});

t.test('bad windows are rejected, naming the threshold', async (t) => {
  const cases: Array<[unknown, RegExp, string]> = [
    [{ 'bytes.sent': { threshold: '< 5', window: '10s' } }, /thresholds\['bytes\.sent'\]\.window needs a metric the timeline keeps per second \(latency\.<stat>, requests\.sent/, "thresholds['bytes.sent'].window"],
    [{ 'latency.p99': { threshold: '< 5', window: '1500ms' } }, /window must be whole seconds .* got '1500ms'/, "thresholds['latency.p99'].window"],
    [{ 'latency.p99': { threshold: '< 5', window: 'soon' } }, /thresholds\['latency\.p99'\]\.window must be milliseconds or a string like/, "thresholds['latency.p99'].window"],
    [{ 'latency.p99': { threshold: '< 5', window: 0 } }, /window must be more than zero/, "thresholds['latency.p99'].window"],
    [{ 'errors.total': { threshold: '< 5', window: '5s', abortOnFail: true } }, /cannot have both window and abortOnFail/, "thresholds['errors.total'].abortOnFail"],
    [{ 'latency.p99': { threshold: '< 5', windows: '5s' } }, /is not a known setting; use threshold, abortOnFail and window/, "thresholds['latency.p99'].windows"],
  ];
  for (const [thresholds, message, option] of cases) {
    const error = t.throws(() => parseThresholds(thresholds)) as SalvoOptionError | SalvoRangeError;
    t.match(error, { message, option }, option);
  }
});

t.test('one metric checked on the whole run and on every window: a list mixes expressions and settings', async (t) => {
  // Ten seconds of 100 fast responses; second 6 has 5 slow ones: 0.5% of the run, 5% of its seconds' windows.
  const seconds = Array.from({ length: 10 }, () => fast(100));
  seconds[6] = { latenciesMs: [...fast(95).latenciesMs, 400, 400, 400, 400, 400] };
  const thresholds = parseThresholds({ 'latency.p99': ['< 50', { threshold: '< 50', window: '2s' }] });
  t.same(thresholds.map(({ windowMs }) => windowMs), [undefined, 2000]);
  const [whole, windowed] = evaluateThresholds(thresholds, resultOf(seconds));
  t.equal(whole!.passed, true, `the whole run's p99 passes: ${whole!.actual} ms`);
  t.equal(windowed!.passed, false, `the windows holding second 6 fail: ${windowed!.actual} ms`);
  t.same(windowed!.windows!.failed.map(({ from, to }) => [from, to]), [[5, 7], [6, 8]]);
  t.throws(() => parseThresholds({ 'latency.p99': ['< 50', { threshold: '< 50', window: '2.5s' }] }), {
    message: /thresholds\['latency\.p99'\]\[1\]\.window must be whole seconds/,
  });
  t.throws(() => parseThresholds({ 'latency.p99': ['< 50', { threshold: 'fast', window: '2s' }] }), {
    message: /thresholds\['latency\.p99'\]\[1\]\.threshold has an invalid expression 'fast'/,
  });
});
