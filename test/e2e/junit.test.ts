import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { formatJUnit, formatSummary, gateChecks, type GateOutcome, type HistoryComparison } from '../../src/gate/index.js';

const SCHEMA = join(import.meta.dirname, '..', 'fixtures', 'junit.xsd');

async function validate(t: Test, xml: string): Promise<void> {
  const file = join(t.testdir(), 'junit.xml');
  await writeFile(file, xml);
  const { stderr } = await promisify(execFile)('xmllint', ['--noout', '--schema', SCHEMA, file]);
  t.match(stderr, /junit\.xml validates/, 'valid against the JUnit schema');
}

const comparison: HistoryComparison = {
  testId: 'api',
  baseline: [{ id: '20300101T000000.000Z-abc-1234abcd', addedAt: '2030-01-01T00:00:00.000Z', commit: 'abc', branch: 'main & co', runs: 2 }],
  runs: { baseline: 2, candidate: 2 },
  confidence: '**',
  metrics: [
    { metric: 'latency.p50', higherIsBetter: false, baseline: 10, candidate: 11, improvement: -0.1, pValue: 0.001, confidence: '**', intervals: null, samples: { baseline: 2, candidate: 2 }, margin: 0.05, regressed: true, message: 'latency.p50: 10.00% slower (10 -> 11 ms), p = 0.00100 **, allowed 5.00% slower' },
    { metric: 'requests.perSecond', higherIsBetter: true, baseline: 100, candidate: 99, improvement: -0.01, pValue: 0.5, confidence: '', intervals: null, samples: { baseline: 2, candidate: 2 }, margin: 0.05, regressed: false, message: 'requests.perSecond: 1.00% worse (100 -> 99 req/s), p = 0.500, allowed 5.00% worse' },
  ],
  ok: false,
};

const outcome: GateOutcome = {
  testId: 'api',
  results: [
    {
      durationMs: 30_000,
      thresholds: [
        { metric: 'latency.p99', expression: '< 50', actual: 3084.287, passed: false, windows: { durationMs: 10_000, judged: 21, failed: [{ from: 6, to: 16, actual: 3084.287 }] } },
        { metric: 'errors.rate', expression: '< 0.01', actual: 0, passed: true },
      ],
    },
  ],
  comparison,
};

t.test('a suite per kind, a case per threshold and per metric; numbers in the failures; markup escaped', async (t) => {
  const xml = formatJUnit(outcome, new Date('2030-01-02T03:04:05Z'));
  await validate(t, xml);
  t.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="salvo" tests="4" failures="2" errors="0" skipped="0" time="30\.000">/);
  t.match(xml, /<testsuite name="api thresholds" tests="2" failures="1" errors="0" skipped="0" time="30\.000" timestamp="2030-01-02T03:04:05" hostname="[^"]+">/);
  t.match(xml, '<testcase name="latency.p99 &lt; 50 (every 10 s window)" classname="salvo.api.thresholds" time="0">\n      <failure message="latency.p99 &lt; 50 (every 10 s window): actual 3,084.29 ms (worst window; 1 of 21 windows failed, the first seconds 6-16)" type="threshold">');
  t.match(xml, '<testcase name="errors.rate &lt; 0.01" classname="salvo.api.thresholds" time="0">\n      <system-out>errors.rate &lt; 0.01: actual 0');
  t.match(xml, '<property name="baseline" value="20300101T000000.000Z-abc-1234abcd abc main &amp; co"/>');
  t.match(xml, '<failure message="latency.p50: 10.00% slower (10 -&gt; 11 ms), p = 0.00100 **, allowed 5.00% slower; 2 runs against 2 runs of 1 builds" type="regression">');
  t.notMatch(xml, /requests\.perSecond[^\n]*\n\s*<failure/, 'a metric within its margin passes');
});

t.test('characters XML forbids are dropped; a skipped comparison is a skipped case; several tests in one file', async (t) => {
  const odd: GateOutcome = { testId: 'odd', results: [{ durationMs: 1000, thresholds: [{ metric: 'latency.p50', expression: '< 1', actual: Number.NaN, passed: false }] }], comparison: { ...comparison, testId: 'odd', baseline: [], metrics: [], runs: { baseline: 0, candidate: 2 }, skipped: 'the history holds 0 baseline runs of odd\u0001; "quoted" \'too\'', ok: true } };
  const xml = formatJUnit([outcome, odd]);
  await validate(t, xml);
  t.match(xml, '<skipped message="warning: the history holds 0 baseline runs of odd; &quot;quoted&quot; &apos;too&apos;"/>');
  t.match(xml, /<testsuites name="salvo" tests="6" failures="3" errors="0" skipped="1"/);
  t.same(gateChecks(odd).map((check) => [check.kind, check.name, check.passed]), [['thresholds', 'latency.p50 < 1', false], ['regression', 'history', true]]);
});

t.test('the Markdown summary: the verdict, a row per check, pipes escaped, the reports linked', async (t) => {
  const summary = formatSummary({ ...outcome, reports: [{ title: 'run | 1', href: 'reports/run 1.html' }] });
  t.equal(summary, [
    '### salvo: api ❌ regressed: latency.p99 < 50 (every 10 s window), latency.p50',
    '',
    '| check | verdict | numbers |',
    '|---|---|---|',
    '| `latency.p99 < 50 (every 10 s window)` | ❌ failed | latency.p99 < 50 (every 10 s window): actual 3,084.29 ms (worst window; 1 of 21 windows failed, the first seconds 6-16) |',
    '| `errors.rate < 0.01` | ✅ passed | errors.rate < 0.01: actual 0 |',
    '| `latency.p50 against the history` | ❌ failed | latency.p50: 10.00% slower (10 -> 11 ms), p = 0.00100 **, allowed 5.00% slower; 2 runs against 2 runs of 1 builds |',
    '| `requests.perSecond against the history` | ✅ passed | requests.perSecond: 1.00% worse (100 -> 99 req/s), p = 0.500, allowed 5.00% worse; 2 runs against 2 runs of 1 builds |',
    '',
    'Reports: [run \\| 1](reports/run%201.html)',
    '',
    '',
  ].join('\n'));
});
