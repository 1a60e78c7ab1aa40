// What an agent is sent: the options as plain data (nothing that cannot cross a network), and the
// files it needs (the task, requests or flows module, the feed file, `agents.files`) at their paths under the working directory.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { SalvoOptionError } from '../shared/errors.js';
import type { LoadOptions } from '../shared/load-options.js';
import type { RunFile } from './messages.js';
import { underWorkingDirectory } from './options.js';

/** The first value under `value` that JSON would drop or change, by its option path. */
function unsendable(value: unknown, path: string): string | undefined {
  if (typeof value === 'function') return `${path} is a function`;
  if (typeof value === 'bigint' || typeof value === 'symbol') return `${path} is a ${typeof value}`;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unsendable(item, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null)
    return `${path} is a ${(value as object).constructor?.name ?? 'class instance'}`;
  for (const [key, item] of Object.entries(value)) {
    const found = unsendable(item, `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The options every agent runs (before its `segment` and `startAt`), checked to survive JSON. */
export function agentOptions(options: LoadOptions): LoadOptions {
  for (const [key, value] of Object.entries(options)) {
    const found = unsendable(value, key);
    if (found !== undefined) {
      throw new SalvoOptionError(
        `agents: ${found}, which cannot be sent to an agent: give functions as a module (task: './task.mjs', requests: './requests.mjs') and other values as plain data`,
        { option: found.split(' ')[0]!, value, mentions: ['agents'] },
      );
    }
  }
  return options;
}

/** A module specifier's file, as a path under the working directory (`./task.mjs#name` is ./task.mjs). */
function moduleFile(option: string, specifier: string): string {
  const hash = specifier.lastIndexOf('#');
  const module = hash < 0 ? specifier : specifier.slice(0, hash);
  return underWorkingDirectory(option, module.startsWith('file:') ? fileURLToPath(module) : module);
}

/** Reads the files a run needs: its modules and `agents.files`. */
export async function runFiles(options: LoadOptions, files: readonly string[]): Promise<RunFile[]> {
  const paths = new Set(files);
  if (typeof options.task === 'string') paths.add(moduleFile('task', options.task));
  if (typeof options.requests === 'string') paths.add(moduleFile('requests', options.requests));
  if (typeof options.flows === 'string') paths.add(moduleFile('flows', options.flows));
  // A feed file is read where the plan is made: on each agent too, for its share of the rows.
  const feed = typeof options.feed === 'string' ? options.feed : (options.feed as { file?: unknown } | undefined)?.file;
  if (typeof feed === 'string')
    paths.add(underWorkingDirectory(typeof options.feed === 'string' ? 'feed' : 'feed.file', feed));
  return Promise.all(
    [...paths].map(async (path) => {
      try {
        return { path, content: (await readFile(path)).toString('base64') };
      } catch (error) {
        throw new SalvoOptionError(`agents.files: cannot read ${path}: ${(error as Error).message}`, {
          option: 'agents.files',
          value: path,
        });
      }
    }),
  );
}
