import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SalvoOptionError } from '../shared/errors.js';

/**
 * The URL of a module given as an option: a `file:` or `data:` URL as is, a path resolved against
 * the working directory. Resolved once in the main thread so that every worker imports the same
 * file whatever its own location.
 */
export function moduleUrl(option: string, specifier: string): string {
  if (/^(file|data):/i.test(specifier)) return specifier;
  if (specifier.startsWith('.') || isAbsolute(specifier)) return pathToFileURL(resolve(specifier)).href;
  throw new SalvoOptionError(
    `${option} must be a module path (such as './requests.mjs') or a file: URL when given as a string; got ${JSON.stringify(specifier)}`,
    { option, value: specifier },
  );
}

/** Imports `url` and returns the first of its `exportNames` that is defined. */
export async function importExport(option: string, url: string, exportNames: readonly string[]): Promise<unknown> {
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new SalvoOptionError(
      `${option}: could not import ${url}: ${error instanceof Error ? error.message : String(error)}`,
      { option, value: url, cause: error },
    );
  }
  for (const name of exportNames) {
    // A CommonJS module's module.exports arrives as `default`; its named exports may sit inside it.
    const value = namespace[name] ?? (namespace.default as Record<string, unknown> | undefined)?.[name];
    if (value !== undefined) return value;
  }
  throw new SalvoOptionError(`${option}: ${url} has no ${exportNames.map((name) => `'${name}'`).join(' or ')} export`, {
    option,
    value: url,
  });
}
