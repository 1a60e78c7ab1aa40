// gate/summary.ts: a gate's verdict as the Markdown of a CI job's summary (a heading per test, a
// table of checks, report links), and where it is written.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { HistoryComparison } from '../../src/gate/history-compare.js';
import { formatSummary, writeSummary } from '../../src/gate/summary.js';

const threshold = (passed: boolean, actual: number) => ({ durationMs: 1000, thresholds: [{ metric: 'latency.p99', expression: '< 50', actual, passed }] });

t.test('a passing test: its heading, one row per check', async (t) => {
  t.equal(formatSummary({ testId: 'api', results: [threshold(true, 12)] }).split('\n').slice(0, 5).join('\n'), [
    '### salvo: api ✅ passed',
    '',
    '| check | verdict | numbers |',
    '|---|---|---|',
    '| `latency.p99 < 50` | ✅ passed | latency.p99 < 50: actual 12.00 ms |',
  ].join('\n'));
});

t.test('failures name what failed; a regression reads against the history; pipes are escaped', async (t) => {
  const comparison = {
    testId: 'a|b', baseline: [{}, {}], runs: { baseline: 6, candidate: 3 }, confidence: '**', ok: false,
    metrics: [{ metric: 'latency.p50', regressed: true, message: 'p50 | 20% slower' }],
  } as unknown as HistoryComparison;
  const text = formatSummary([{ testId: 'a|b', results: [threshold(false, 61)], comparison, reports: [{ title: 'run 1', href: 'reports/run 1.html' }] }, { testId: 'other', results: [threshold(true, 1)] }]);
  const lines = text.split('\n');
  t.equal(lines[0], '### salvo: a\\|b ❌ regressed: latency.p99 < 50, latency.p50');
  t.ok(lines.includes('| `latency.p50 against the history` | ❌ failed | p50 \\| 20% slower; 3 runs against 6 runs of 2 builds |'));
  t.ok(lines.includes('Reports: [run 1](reports/run%201.html)'));
  t.ok(lines.includes('### salvo: other ✅ passed'), 'a section per test');
  t.equal(formatSummary({ testId: 'x', results: [threshold(false, 61)] }).split('\n')[0], '### salvo: x ❌ threshold failed: latency.p99 < 50');
});

t.test('no baseline: passed with a warning quoted, or failed when required', async (t) => {
  const base = { testId: 'api', baseline: [], runs: { baseline: 1, candidate: 3 }, confidence: '**', metrics: [], noBaseline: { code: 'HISTORY_TOO_SHORT', message: 'too short' } };
  const warned = formatSummary({ testId: 'api', comparison: { ...base, ok: true } as unknown as HistoryComparison }).split('\n');
  t.equal(warned[0], '### salvo: api ⚠️ passed without a baseline');
  t.equal(warned[2], '> ⚠️ warning: HISTORY_TOO_SHORT: too short');
  t.ok(warned.includes('| `history` | ⚠️ skipped | warning: HISTORY_TOO_SHORT: too short |'));
  const required = formatSummary({ testId: 'api', comparison: { ...base, ok: false, requireBaseline: true } as unknown as HistoryComparison }).split('\n');
  t.equal(required[0], '### salvo: api ❌ no baseline: history');
});

t.test('writeSummary: the file given, else appended to $GITHUB_STEP_SUMMARY, else nowhere', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'salvo-gate-summary-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'out.md');
  writeFileSync(file, 'old\n');
  t.equal(await writeSummary('new\n', file, {}), file);
  t.equal(readFileSync(file, 'utf8'), 'new\n', 'a file given is written over');
  const step = join(dir, 'step.md');
  writeFileSync(step, 'earlier step\n');
  t.equal(await writeSummary('gate\n', undefined, { GITHUB_STEP_SUMMARY: step }), step);
  t.equal(await writeSummary('again\n', step, { GITHUB_STEP_SUMMARY: step }), step);
  t.equal(readFileSync(step, 'utf8'), 'earlier step\ngate\nagain\n', "the step summary is appended to, as other steps' are");
  t.equal(await writeSummary('x', undefined, { GITHUB_STEP_SUMMARY: '' }), undefined);
  await t.rejects(writeSummary('x', join(dir, 'missing', 'a.md'), {}), { code: 'SALVO_INVALID_OPTION', option: 'file', message: /^cannot write the summary to .*missing\/a\.md \(the file given\): / });
  await t.rejects(writeSummary('x', undefined, { GITHUB_STEP_SUMMARY: join(dir, 'missing', 'b.md') }), { option: 'GITHUB_STEP_SUMMARY', message: /\(\$GITHUB_STEP_SUMMARY\)/ });
});
