// cli/step-summary.ts: whether $GITHUB_STEP_SUMMARY is set and writable; one that is not is said
// once on stderr and not written.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import t from 'tap';
import { usableStepSummary } from '../../src/cli/step-summary.js';

const io = () => {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { io: { stdout: new PassThrough(), stderr }, said: () => text };
};

t.test('usable only without --summary, with the variable set to a writable file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'salvo-step-summary-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'summary.md');
  const a = io();
  t.equal(await usableStepSummary(undefined, a.io, { GITHUB_STEP_SUMMARY: file }), true);
  t.equal(await usableStepSummary('out.md', a.io, { GITHUB_STEP_SUMMARY: file }), false, '--summary given: that file, not the variable');
  t.equal(await usableStepSummary(undefined, a.io, {}), false);
  t.equal(await usableStepSummary(undefined, a.io, { GITHUB_STEP_SUMMARY: '' }), false);
  t.equal(a.said(), '', 'nothing said');

  const b = io();
  const missing = join(dir, 'no-folder', 'summary.md');
  t.equal(await usableStepSummary(undefined, b.io, { GITHUB_STEP_SUMMARY: missing }), false);
  t.match(b.said(), new RegExp(`^salvo: warning: \\$GITHUB_STEP_SUMMARY: cannot write ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*; the step summary is not written\\n$`));
  const c = io();
  t.equal(await usableStepSummary(undefined, c.io, { GITHUB_STEP_SUMMARY: dir }), false, 'a folder is not a file');
  t.match(c.said(), 'it is a directory');
});
