import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LoadOptions } from '../index.js';
import { UsageError } from './command.js';

/** `salvo run load.mjs`: a positional that names a JavaScript module rather than a URL. */
export function isLoadFile(positional: string | undefined): positional is string {
  if (positional === undefined || /^[a-z][a-z0-9+.-]*:\/\//i.test(positional)) return false;
  return /\.(?:mjs|cjs|js|mts|cts|ts)$/.test(positional) || existsSync(positional);
}

/**
 * The options a load file exports: its default export, the options object or a function (maybe
 * async) returning it, so that scenarios, hooks and thresholds live in the user's repository.
 */
export async function importLoadFile(path: string): Promise<LoadOptions> {
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as { default?: unknown };
  } catch (error) {
    throw new UsageError(`cannot load ${path}: ${(error as Error).message}`);
  }
  const exported = module.default;
  const options = typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new UsageError(
      `${path} must export the options as its default export (an object such as { url, scenarios }, or a function returning one); got ${typeof options === 'object' ? JSON.stringify(options) : typeof options}`,
    );
  }
  return options as LoadOptions;
}

/**
 * The file's options with the flags given beside it over them: a flag replaces the option it sets
 * (thresholds are added, a flag's winning over the file's on the same metric).
 */
export function overrideWithFlags(file: LoadOptions, flags: Partial<LoadOptions>): LoadOptions {
  const given = Object.fromEntries(
    Object.entries(flags).filter(([, value]) => value !== undefined),
  ) as Partial<LoadOptions>;
  const options = { ...file, ...given } as LoadOptions;
  if (file.thresholds !== undefined && given.thresholds !== undefined)
    options.thresholds = { ...file.thresholds, ...given.thresholds };
  return options;
}
