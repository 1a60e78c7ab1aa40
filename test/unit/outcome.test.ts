// gate/outcome.ts: the checks of a CI gate (each threshold of each run, the history's state, each
// re-measurement and each compared metric) and whether the gate passed.
import t from 'tap';
import { gateChecks, gatePassed, type GateOutcome } from '../../src/gate/outcome.js';
import type { HistoryComparison } from '../../src/gate/history-compare.js';

const comparison = (over: Partial<HistoryComparison>): HistoryComparison => ({
  testId: 'api', baseline: [{}, {}, {}] as HistoryComparison['baseline'], runs: { baseline: 9, candidate: 3 }, confidence: '**', metrics: [], ok: true, ...over,
});

t.test('thresholds of several runs are told apart; one failing fails the gate', async (t) => {
  const outcome: GateOutcome = {
    testId: 'api',
    results: [
      { durationMs: 1000, thresholds: [{ metric: 'latency.p99', expression: '< 50', actual: 12.5, passed: true }] },
      { durationMs: 1000, thresholds: [{ metric: 'latency.p99', expression: '< 50', actual: 61, passed: false }, { metric: 'errors.rate', expression: '< 0.01', actual: 0, passed: true }] },
    ],
  };
  const checks = gateChecks(outcome);
  t.same(checks.map((check) => [check.kind, check.name, check.passed]), [
    ['thresholds', 'latency.p99 < 50 [run 1]', true],
    ['thresholds', 'latency.p99 < 50 [run 2]', false],
    ['thresholds', 'errors.rate < 0.01 [run 2]', true],
  ]);
  t.match(checks[1]?.message, /^latency\.p99 < 50: actual 61/);
  t.notOk(gatePassed(outcome));
  t.same(gateChecks({ testId: 'api', results: [outcome.results![0]!] }).map((check) => check.name), ['latency.p99 < 50'], 'one run: no [run n]');
  t.ok(gatePassed({ testId: 'api', results: [outcome.results![0]!] }));
});

t.test('no baseline: a passing warning, or a failure when one is required', async (t) => {
  const noBaseline = { code: 'HISTORY_TOO_SHORT' as const, message: 'no baseline: too short' };
  const warned = gateChecks({ testId: 'api', comparison: comparison({ noBaseline }) });
  t.same(warned, [{ kind: 'regression', name: 'history', passed: true, skipped: true, warning: true, message: 'warning: HISTORY_TOO_SHORT: no baseline: too short' }]);
  const required = { testId: 'api', comparison: comparison({ noBaseline, requireBaseline: true, ok: false }) };
  t.same(gateChecks(required), [{ kind: 'regression', name: 'history', passed: false, failure: 'baseline', message: 'HISTORY_TOO_SHORT: no baseline: too short; a baseline is required' }]);
  t.notOk(gatePassed(required));
  t.same(gateChecks({ testId: 'api', comparison: comparison({ skipped: 'older message' }) }).map((check) => check.message), ['warning: older message']);
});

t.test('re-measurements pass and say why; each metric is a check against the history', async (t) => {
  const outcome: GateOutcome = {
    testId: 'api',
    comparison: comparison({
      remeasured: [{ regressed: ['latency.p99 26% slower'] }, { regressed: ['a', 'b'] }],
      metrics: [
        { metric: 'latency.p99', regressed: false, message: 'latency.p99 unchanged' },
        { metric: 'requests.perSecond', regressed: true, message: 'requests.perSecond 12% worse' },
      ] as HistoryComparison['metrics'],
    }),
  };
  const checks = gateChecks(outcome);
  t.same(checks.map((check) => [check.name, check.passed]), [['measurement 1', true], ['measurement 2', true], ['latency.p99', true], ['requests.perSecond', false]]);
  t.equal(checks[0]?.message, "the first measurement regressed (latency.p99 26% slower), so the build was measured again; the verdict is the last measurement's");
  t.match(checks[1]?.message, /^measurement 2 regressed \(a; b\)/);
  t.equal(checks[3]?.message, 'requests.perSecond 12% worse; 3 runs against 9 runs of 3 builds');
  t.notOk(gatePassed(outcome));
});
