// workers/task-module.ts: a task given as a module specifier, `./task.mjs#export`, imported with its
// setup and teardown; each mistake named.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { importTask, parseTaskSpecifier } from '../../src/workers/task-module.js';

t.test('parseTaskSpecifier: the export after the last #', async (t) => {
  t.same(parseTaskSpecifier('./task.mjs'), { module: './task.mjs', exportName: undefined });
  t.same(parseTaskSpecifier('./a#b/task.mjs#checkout'), { module: './a#b/task.mjs', exportName: 'checkout' });
  t.same(parseTaskSpecifier('./t.mjs#$_x1'), { module: './t.mjs', exportName: '$_x1' });
  t.throws(() => parseTaskSpecifier('./t.mjs#check-out'), { code: 'SALVO_INVALID_OPTION', option: 'task', message: /must be a JavaScript name, as in '\.\/task\.mjs#checkout'; got "\.\/t\.mjs#check-out"$/ });
  t.throws(() => parseTaskSpecifier('./t.mjs#'), { code: 'SALVO_INVALID_OPTION', option: 'task' });
});

t.test('importTask: the default (or task) export, a named one, setup and teardown from the module or its default object', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'salvo-task-module-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return pathToFileURL(join(dir, name)).href;
  };
  const plain = await importTask(file('plain.mjs', 'export default () => 1; export function setup() { return 2; } export const teardown = () => 3;'));
  t.same([plain.functions.task(undefined as never), plain.functions.setup?.(undefined as never), plain.functions.teardown?.(undefined as never)], [1, 2, 3]);
  t.equal(plain.planned.exportName, undefined);
  t.match(plain.planned.module, /plain\.mjs$/);
  const named = await importTask(`${file('named.mjs', 'export const checkout = () => 7; export default { setup: () => 8 };')}#checkout`);
  t.equal(named.functions.task(undefined as never), 7);
  t.equal(named.functions.setup?.(undefined as never), 8, "setup from the default export's object");
  t.equal(named.functions.teardown, undefined);
  t.equal(named.planned.exportName, 'checkout');
  const task = await importTask(file('task.mjs', 'export const task = () => 9;'));
  t.equal(task.functions.task(undefined as never), 9, "a module without a default: its 'task' export");
  await t.rejects(importTask(file('bad.mjs', 'export default 5;')), { option: 'task', message: /the 'default' or 'task' export of .*bad\.mjs must be a function/ });
  await t.rejects(importTask(file('setup.mjs', 'export default () => 1; export const setup = 4;')), { option: 'task', message: /exports setup, which must be a function/ });
});
