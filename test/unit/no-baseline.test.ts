// gate/no-baseline.ts: why a build had nothing to be compared with, each case its own code: no
// history folder, no such test in it (naming the ones it has), fewer than 2 baseline runs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { missingHistory, tooShort } from '../../src/gate/no-baseline.js';

t.test('missingHistory: the folder, then the test id, then nothing missing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'salvo-no-baseline-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const absent = await missingHistory(join(dir, 'nope'), 'api');
  t.equal(absent?.code, 'HISTORY_MISSING');
  t.match(absent?.message, `the history folder ${join(dir, 'nope')} does not exist`);
  const file = join(dir, 'a-file');
  writeFileSync(file, '');
  t.equal((await missingHistory(file, 'api'))?.code, 'HISTORY_MISSING', 'a file is no history folder');

  const empty = await missingHistory(dir, 'api');
  t.equal(empty?.code, 'HISTORY_UNKNOWN_TEST');
  t.same(empty?.knownTestIds, []);
  t.match(empty?.message, 'has no test "api" (it holds no test yet)');

  mkdirSync(join(dir, 'web'));
  mkdirSync(join(dir, 'checkout'));
  const unknown = await missingHistory(dir, 'api');
  t.same(unknown?.knownTestIds, ['checkout', 'web'], 'the ids it holds, sorted, files left out');
  t.match(unknown?.message, 'it holds "checkout", "web"');

  mkdirSync(join(dir, 'api'));
  t.equal(await missingHistory(dir, 'api'), undefined);
});

t.test('tooShort: the count of runs and its plural', async (t) => {
  t.same(tooShort('api', 1), { code: 'HISTORY_TOO_SHORT', message: 'no baseline: the history holds 1 baseline run of api; a comparison needs at least 2, so this build was compared with nothing' });
  t.match(tooShort('api', 0).message, 'holds 0 baseline runs of api');
});
