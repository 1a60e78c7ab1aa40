// formatCapacity / formatCapacityStep print what a search found.
import t from 'tap';
import { formatCapacity, formatCapacityStep } from '../../src/index.js';
import type { CapacityResult, CapacityStep, LoadResult } from '../../src/index.js';

function step(overrides: Partial<CapacityStep>): CapacityStep {
  return {
    phase: 'grow', rate: 500, passed: true, failures: [], achievedRate: 499.5, sentRate: 500, missed: 0,
    p50: 1.234, p99: 12.5, p99Uncorrected: 8, errorRate: 0, result: {} as LoadResult, ...overrides,
  };
}

const steps = [
  step({}),
  step({
    rate: 1000, passed: false, limitedBy: 'server', achievedRate: 801, sentRate: 990, missed: 20, p50: 150, p99: 420.125,
    p99Uncorrected: 300, errorRate: 0.0125, failures: ['latency.p99 < 50 (actual 420.13 ms)', 'completed 801.0/s, under 90% of the target'],
  }),
  step({ phase: 'bisect', rate: 750 }),
];

const result: CapacityResult = {
  url: 'http://127.0.0.1:3000/', capacity: 750, confirmed: true, limitedBy: 'server', highestPassed: 750, lowestFailed: 875,
  message: 'Capacity 750 req/s: it met the SLO, confirmed by a 15 s run, and 875 req/s failed it.',
  slo: { 'latency.p99': '< 50', 'errors.rate': { threshold: ['< 0.01', '>= 0'] } }, precision: 0.05, steps, aborted: false, durationMs: 1,
};

t.test('formatCapacity: the objective, a row per step, the answer', async (t) => {
  t.equal(
    formatCapacity(result),
    [
      'Capacity search http://127.0.0.1:3000/: SLO latency.p99 < 50, errors.rate < 0.01 and errors.rate >= 0, precision 5%',
      '',
      'step  phase   target/s  sent/s  done/s  p50 ms  p99 ms  p99 write  errors  missed  verdict',
      '   1  grow         500   500.0   499.5    1.23   12.50       8.00       0       0  pass',
      '   2  grow       1,000   990.0   801.0  150.00  420.13     300.00   1.25%      20  fail (server): latency.p99 < 50 (actual 420.13 ms); completed 801.0/s, under 90% of the target',
      '   3  bisect       750   500.0   499.5    1.23   12.50       8.00       0       0  pass',
      '',
      'Capacity      750 req/s, confirmed (limited by server)',
      'Capacity 750 req/s: it met the SLO, confirmed by a 15 s run, and 875 req/s failed it.',
    ].join('\n'),
  );
  t.match(formatCapacity({ ...result, capacity: undefined, confirmed: false, limitedBy: 'connections' }), /\nCapacity {6}none found \(limited by connections\)\n/);
});

t.test('formatCapacityStep: one line per step', async (t) => {
  t.equal(formatCapacityStep(steps[0]!, 0), 'step 1 grow 500 req/s: pass (completed 499.5/s, p50 1.23 ms, p99 12.50 ms)');
  t.match(formatCapacityStep(steps[1]!, 1), /^step 2 grow 1,000 req\/s: fail \(server\): latency\.p99 < 50 \(actual 420\.13 ms\); completed 801\.0\/s/);
});
