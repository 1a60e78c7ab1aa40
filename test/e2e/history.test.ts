import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { runLoad, SalvoOptionError, type LoadResult } from '../../src/index.js';
import { acceptInHistory, addToHistory, baselineEntries, ciLabels, compareWithEntries, readHistory } from '../../src/gate/index.js';
import { testServer } from '../fixtures/test-server.js';

/** What the comparison reads of a run, with a p50 of `p50` ms. */
function run(p50: number): LoadResult {
  return { latency: { p50, p90: p50, p99: p50 }, requests: { perSecond: 1000 / p50, completed: 100 }, errors: { total: 0 }, timeline: [], merge: {} } as unknown as LoadResult;
}

t.test('an entry is the build\'s runs less their timelines, labelled, in a file of its own; a few kB a run', async (t) => {
  const server = await testServer(t, { delayMs: 1 });
  const result = await runLoad({ url: server.url, connections: 4, duration: '2s' });
  const dir = t.testdir();
  const entry = await addToHistory(dir, 'checkout', [result, result], { commit: '0123456789abcdef0123', branch: 'main', label: 'v1.2', addedAt: new Date('2030-01-02T03:04:05.678Z') });
  t.match(entry.id, /^20300102T030405\.678Z-0123456789ab-[0-9a-f]{8}$/, 'the id sorts by time and names the commit');
  const files = await readdir(join(dir, 'checkout'));
  t.same(files, [`${entry.id}.json`]);
  const text = await readFile(join(dir, 'checkout', files[0]!), 'utf8');
  const stored = JSON.parse(text) as Record<string, unknown> & { runs: Array<Record<string, unknown>> };
  t.match(stored, { format: 'salvo-history/1', testId: 'checkout', commit: '0123456789abcdef0123', branch: 'main', label: 'v1.2', baseline: true, addedAt: '2030-01-02T03:04:05.678Z' });
  t.notOk('timeline' in stored.runs[0]! || 'merge' in stored.runs[0]!, 'no per-second detail');
  t.equal(stored.runs[0]!.histogram, result.histogram, 'the encoded histogram stays');
  t.same(stored.runs[0]!.latency, result.latency);
  t.ok(text.split('\n').length > 50, 'indented JSON, one field a line, for diffs');
  t.ok(text.length / 2 < 8000, `${Math.round(text.length / 2)} bytes a run, indented, against ${JSON.stringify(result).length} for the whole result unindented (2 s; the timeline grows with the run, the entry does not)`);
  t.same(await readHistory(dir, 'checkout'), [stored]);
});

t.test('jobs adding at once each write their own file; retention keeps the newest', async (t) => {
  const dir = t.testdir();
  const added = await Promise.all(Array.from({ length: 12 }, (_, i) => addToHistory(dir, 'api', [run(10 + i)], { addedAt: new Date(Date.UTC(2030, 0, 1, 0, 0, i)) })));
  t.equal(new Set(added.map((entry) => entry.id)).size, 12);
  t.equal((await readHistory(dir, 'api')).length, 12);
  await addToHistory(dir, 'api', [run(30)], { keep: 5, addedAt: new Date(Date.UTC(2030, 0, 1, 0, 1)) });
  const kept = await readHistory(dir, 'api');
  t.same(kept.map((entry) => entry.runs[0]!.latency.p50), [18, 19, 20, 21, 30], 'the last 5, oldest first');
  t.same((await readdir(join(dir, 'api'))).filter((name) => name.endsWith('.tmp')), [], 'no temporary file left');
});

t.test('the baseline: the latest entries that count, none before the latest accepted one', async (t) => {
  const dir = t.testdir();
  const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 0, minute));
  for (let i = 0; i < 4; i++) await addToHistory(dir, 'api', [run(10), run(10.2)], { addedAt: at(i) });
  const slow = await addToHistory(dir, 'api', [run(20), run(20.2)], { addedAt: at(4), baseline: false, commit: 'feedbeef' });
  let entries = await readHistory(dir, 'api');
  t.same(baselineEntries(entries, 10).length, 4, 'the failed build is not in the baseline');
  t.same(baselineEntries(entries, 3).map((entry) => entry.addedAt), [at(1), at(2), at(3)].map((date) => date.toISOString()));
  const gate = compareWithEntries('api', entries, [run(20), run(20.4)], { margins: { 'latency.p50': '5%' } });
  t.equal(gate.ok, false, 'the slow build regresses against the old baseline');
  const accepted = await acceptInHistory(dir, 'api', 'feedbeef', at(9));
  t.equal(accepted.id, slow.id, 'found by commit');
  entries = await readHistory(dir, 'api');
  t.same(baselineEntries(entries, 10).map((entry) => entry.id), [slow.id], 'the baseline starts at the accepted entry');
  const again = compareWithEntries('api', entries, [run(20), run(20.4)], { margins: { 'latency.p50': '5%' } });
  t.equal(again.ok, true, 'the same build passes once its change is accepted');
  t.same(again.baseline.map((entry) => [entry.commit, entry.runs]), [['feedbeef', 2]]);
  const one = compareWithEntries('api', [entries[0]!].map((entry) => ({ ...entry, runs: entry.runs.slice(0, 1) })), [run(20), run(20.4)]);
  t.match(one, { ok: true, metrics: [], skipped: 'the history holds 1 baseline run of api; a comparison needs at least 2' }, 'a history too short passes, saying why');
});

t.test('bad input names the option; a stray file in the history is named', async (t) => {
  const dir = t.testdir();
  await t.rejects(addToHistory(dir, '../etc', [run(1)]), { name: 'SalvoOptionError', option: 'testId', message: /testId must be letters, digits/ });
  await t.rejects(addToHistory(dir, 'api', []), { name: 'SalvoOptionError', option: 'results' });
  await t.rejects(addToHistory(dir, 'api', [run(1)], { keep: 0 }), { name: 'SalvoRangeError', option: 'keep' });
  await t.rejects(acceptInHistory(dir, 'api'), { option: 'entryId', message: /has no entries for test api/ });
  await addToHistory(dir, 'api', [run(1)]);
  await writeFile(join(dir, 'api', 'notes.json'), '{"hello": 1}');
  const error = await readHistory(dir, 'api').catch((caught: unknown) => caught);
  t.ok(error instanceof SalvoOptionError);
  t.match(error, { message: /api\/notes\.json is not a salvo history entry/ });
});

t.test('CI labels from the variables each CI sets', async (t) => {
  t.same(ciLabels({ GITHUB_SHA: 'abc', GITHUB_REF_NAME: '12/merge', GITHUB_HEAD_REF: 'feature', GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '7' }),
    { commit: 'abc', branch: 'feature', url: 'https://github.com/o/r/actions/runs/7' });
  t.same(ciLabels({ GITHUB_SHA: 'abc', GITHUB_REF_NAME: 'main', GITHUB_HEAD_REF: '' }), { commit: 'abc', branch: 'main' });
  t.same(ciLabels({ CI_COMMIT_SHA: 'def', CI_COMMIT_REF_NAME: 'dev', CI_JOB_URL: 'https://gitlab.example/j/1' }), { commit: 'def', branch: 'dev', url: 'https://gitlab.example/j/1' });
  t.same(ciLabels({ GIT_COMMIT: '123', GIT_BRANCH: 'origin/main', BUILD_URL: 'https://jenkins/1' }), { commit: '123', branch: 'origin/main', url: 'https://jenkins/1' });
  t.same(ciLabels({}), {});
});
