// gate/history-compare.ts: a build's runs against the latest baseline entries: a metric regresses
// only when the change is significant and past its margin; too short a history passes with a
// warning unless a baseline is required; bad options are named.
import t from 'tap';
import { compareWithEntries, DEFAULT_MARGINS } from '../../src/gate/history-compare.js';
import type { HistoryEntry, StoredRun } from '../../src/gate/history.js';

const run = (p50: number): StoredRun =>
  ({ url: 'http://127.0.0.1:3000/api', transport: 'net', connections: 10, latency: { p50, p90: p50 * 1.5, p99: p50 * 2 }, requests: { perSecond: 10_000 / p50, completed: 1000 }, errors: { total: 0 } }) as unknown as StoredRun;
const entry = (index: number, p50s: number[], over: Partial<HistoryEntry> = {}): HistoryEntry =>
  ({ format: 'salvo-history/1', testId: 'api', id: `e${index}`, addedAt: `2030-01-0${index + 1}T00:00:00Z`, baseline: true, runs: p50s.map(run), ...over }) as HistoryEntry;
const history = [entry(0, [10.0, 10.2]), entry(1, [9.9, 10.1]), entry(2, [10.1, 10.0]), entry(3, [9.8, 10.2])];

t.test('twice as slow regresses; the same speed does not', async (t) => {
  const slow = compareWithEntries('api', history, [run(20.1), run(19.8), run(20.3)]);
  t.equal(slow.ok, false);
  t.same(slow.runs, { baseline: 8, candidate: 3 });
  t.same(slow.baseline.map((b) => [b.id, b.runs]), [['e0', 2], ['e1', 2], ['e2', 2], ['e3', 2]]);
  t.same(slow.metrics.map((m) => m.metric), Object.keys(DEFAULT_MARGINS), 'the default margins name the metrics compared');
  const p50 = slow.metrics.find((m) => m.metric === 'latency.p50')!;
  t.equal(p50.regressed, true);
  t.match(p50.message, /slower/);
  t.equal(slow.metrics.find((m) => m.metric === 'requests.perSecond')!.regressed, true, 'half the requests per second');

  const same = compareWithEntries('api', history, [run(10.0), run(10.1), run(9.9)]);
  t.equal(same.ok, true);
  t.same(same.metrics.map((m) => m.regressed), [false, false, false, false]);
});

t.test('a significant change within its margin passes; entries bounds the baseline', async (t) => {
  const slightly = compareWithEntries('api', history, [run(10.4), run(10.41), run(10.39)], { margins: { 'latency.p50': '10%' } });
  t.same(slightly.metrics.map((m) => [m.metric, m.regressed]), [['latency.p50', false]], '4% slower is inside a 10% margin');
  const two = compareWithEntries('api', history, [run(10), run(10.1)], { entries: 2 });
  t.same(two.baseline.map((b) => b.id), ['e2', 'e3'], 'the latest two entries');
  t.equal(two.runs.baseline, 4);
});

t.test('too short a history: a warning that passes, or a failure when a baseline is required', async (t) => {
  const short = compareWithEntries('api', [entry(0, [10])], [run(30), run(31)]);
  t.same({ ok: short.ok, code: short.noBaseline?.code, metrics: short.metrics.length }, { ok: true, code: 'HISTORY_TOO_SHORT', metrics: 0 });
  t.equal(short.skipped, short.noBaseline?.message);
  const required = compareWithEntries('api', [entry(0, [10])], [run(30), run(31)], { requireBaseline: true });
  t.same({ ok: required.ok, requireBaseline: required.requireBaseline }, { ok: false, requireBaseline: true });
  const missing = compareWithEntries('api', [], [run(10), run(10)], {}, { code: 'HISTORY_MISSING', message: 'no folder' });
  t.same([missing.ok, missing.noBaseline?.code], [true, 'HISTORY_MISSING']);
  const notBaseline = compareWithEntries('api', [entry(0, [10, 10.1], { baseline: false }), entry(1, [10], { baseline: false })], [run(30), run(31)]);
  t.equal(notBaseline.noBaseline?.code, 'HISTORY_TOO_SHORT', 'entries stored while regressed do not count');
});

t.test('bad options and another measurement are refused by name', async (t) => {
  const runs = [run(10), run(10)];
  t.throws(() => compareWithEntries('api', history, runs, { confidence: '****' as never }), { option: 'confidence', message: /^confidence must be '\*', '\*\*' or '\*\*\*'; got "\*\*\*\*"$/ });
  t.throws(() => compareWithEntries('api', history, runs, { entries: 0 }), { code: 'SALVO_INVALID_OPTION', option: 'entries', message: /^entries must be a whole number of history entries, at least 1; got 0$/ });
  t.throws(() => compareWithEntries('api', history, runs, { margins: {} }), { code: 'SALVO_INVALID_OPTION', option: 'margins' });
  const other = { ...run(10), url: 'http://127.0.0.1:3000/other' } as StoredRun;
  t.throws(() => compareWithEntries('api', history, [other, other]), { option: 'testId', message: /target \/api -> \/other/ });
});
