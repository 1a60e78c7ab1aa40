import { SalvoOptionError } from '../shared/errors.js';
import type { TaskSource, TaskFunctions } from '../shared/task.js';
import { show } from '../shared/validate.js';
import { importExport, moduleUrl } from './modules.js';

/** A task given as a module specifier, imported: where each worker imports it from, and its functions. */
export interface ImportedTask {
  planned: TaskSource;
  functions: TaskFunctions;
}

/**
 * `'./task.mjs'` or `'./task.mjs#checkout'`: the module and the export after the last `#` (a path's
 * own `#` can be given as `%23` in a `file:` URL).
 */
export function parseTaskSpecifier(specifier: string): { module: string; exportName: string | undefined } {
  const hash = specifier.lastIndexOf('#');
  if (hash < 0) return { module: specifier, exportName: undefined };
  const exportName = specifier.slice(hash + 1);
  if (!/^[A-Za-z_$][\w$]*$/.test(exportName)) {
    throw new SalvoOptionError(
      `task: the export after '#' must be a JavaScript name, as in './task.mjs#checkout'; got ${show(specifier)}`,
      { option: 'task', value: specifier },
    );
  }
  return { module: specifier.slice(0, hash), exportName };
}

const optionalFunction = (name: string, url: string, value: unknown): ((...args: any[]) => unknown) | undefined => {
  if (value === undefined) return undefined;
  if (typeof value === 'function') return value as (...args: any[]) => unknown;
  throw new SalvoOptionError(`task: ${url} exports ${name}, which must be a function; got ${show(value)}`, {
    option: 'task',
    value: url,
  });
};

/** Imports the task of `planned` and the module's `setup` and `teardown`, in whichever thread runs it. */
export async function loadTaskFunctions(planned: TaskSource): Promise<TaskFunctions> {
  const url = planned.module!;
  const names = planned.exportName === undefined ? ['default', 'task'] : [planned.exportName];
  const task = await importExport('task', url, names);
  if (typeof task !== 'function') {
    throw new SalvoOptionError(
      `task: the ${names.map((name) => `'${name}'`).join(' or ')} export of ${url} must be a function; got ${show(task)}`,
      { option: 'task', value: url },
    );
  }
  const namespace = (await import(url)) as Record<string, unknown>;
  const named = (name: string): unknown =>
    namespace[name] ?? (namespace.default as Record<string, unknown> | undefined)?.[name];
  return {
    task: task as TaskFunctions['task'],
    setup: optionalFunction('setup', url, named('setup')),
    teardown: optionalFunction('teardown', url, named('teardown')),
  };
}

/** Imports a task given as a module specifier (in the main thread, once, so that a bad one fails before any load). */
export async function importTask(specifier: string): Promise<ImportedTask> {
  const { module, exportName } = parseTaskSpecifier(specifier);
  const planned: TaskSource = { module: moduleUrl('task', module), exportName };
  return { planned, functions: await loadTaskFunctions(planned) };
}
