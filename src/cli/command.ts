import { constants } from 'node:fs';
import { access, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { LoadResult } from '../index.js';

/** Exit statuses of the `salvo` command. */
export const EXIT = {
  /** The run finished and every threshold passed. */
  ok: 0,
  /** A threshold failed (or a subcommand's own verdict was negative). */
  failed: 1,
  /** Bad flags, options or input files: nothing was run. */
  usage: 2,
  /** A metric regressed: significantly worse than its margin (`salvo compare --fail`, `salvo history compare`). */
  regressed: 3,
  /** No request succeeded (warning `NO_SUCCESS`): a refused port, a bad host name, an untrusted certificate... */
  noSuccess: 4,
  /** More than half of the requests failed (warning `MOSTLY_FAILED`). */
  mostlyFailed: 5,
  /** A hook of the user's (`setupRequest`, `onResponse`) threw (`errors.samples` has its message and stack), or a task's `setup` failed. */
  hookFailed: 6,
  /** `salvo history compare --require-baseline` found nothing to compare with (no folder, no such test, too few runs). */
  noBaseline: 7,
  /** Stopped by Ctrl-C (SIGINT, 128 + 2, as shells report it): what was measured is printed, but the run is not complete. */
  interrupted: 130,
} as const;

const HOOK_CODES = ['SETUP_REQUEST_FAILED', 'ON_RESPONSE_FAILED'];

/**
 * The exit status of a finished run, the first that applies: 1 a threshold failed, 3 no request
 * succeeded, 4 most failed, 5 a hook of the user's threw, else 0.
 */
export function runExitStatus(result: LoadResult): number {
  if (result.thresholds?.some((threshold) => !threshold.passed)) return EXIT.failed;
  const codes = new Set(result.warnings.map((warning) => warning.code));
  if (codes.has('NO_SUCCESS')) return EXIT.noSuccess;
  if (codes.has('MOSTLY_FAILED')) return EXIT.mostlyFailed;
  if (HOOK_CODES.some((code) => (result.errors.byCode[code] ?? 0) > 0)) return EXIT.hookFailed;
  return result.ok ? EXIT.ok : EXIT.failed;
}

/** Where a command writes: stdout carries only the result, stderr everything else. */
export interface CommandIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

/**
 * One subcommand of `salvo`: `salvo <name> ...args`. A new one is a file exporting one of these,
 * listed in commands.ts.
 */
export interface Command {
  name: string;
  /** One line for `salvo --help`. */
  summary: string;
  /** The full `salvo <name> --help` text. */
  usage: string;
  /** Runs with the arguments after the name; resolves with the exit status. */
  run(args: string[], io: CommandIO): Promise<number>;
}

/** Bad command-line input: printed with the usage hint, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Flag definitions as `node:util` parseArgs takes them. */
export type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/** What parseFlags returns for `options`: typed values and the positionals. */
export type ParsedFlags<T extends FlagOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; allowNegative: true; strict: true }>
>;

/**
 * `node:util` parseArgs, strict, with its errors (an unknown flag, a missing value) turned into a
 * UsageError that keeps parseArgs' message, which names the flag.
 */
export function parseFlags<T extends FlagOptions>(args: string[], options: T): ParsedFlags<T> {
  try {
    return parseArgs({ args, options, allowPositionals: true, allowNegative: true, strict: true });
  } catch (error) {
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      // An unknown flag's first sentence names it ("Unknown option '--conections'"); the rest is a
      // hint about positionals that starts with a dash, beside the point here.
      const unknown = error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
      throw new UsageError(unknown ? error.message.split(/\. (?=[A-Z])/)[0]! : error.message);
    }
    throw error;
  }
}

/** Reads and parses a JSON file, with a UsageError that names the file. */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not JSON: ${(error as Error).message}`);
  }
}

/** The JSON of a LoadResult, as far as a glance tells. */
export function looksLikeResult(value: unknown): value is LoadResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    ['requests', 'latency', 'timeline', 'histogram'].every((key) => key in value)
  );
}

/** Reads a result that `salvo --json` or `JSON.stringify(await runLoad(...))` wrote. */
export async function readResultFile(path: string): Promise<LoadResult> {
  const result = await readJsonFile(path);
  if (!looksLikeResult(result)) {
    throw new UsageError(
      `${path} is not a salvo result (expected the JSON of a LoadResult, as salvo --json writes it)`,
    );
  }
  return result;
}

/**
 * Fails now if `path` cannot be written later (its folder missing or read-only, a folder by that
 * name), so that a long run is not lost to a typo in where its report goes. `flag` names the flag.
 */
export async function checkWritable(flag: string, path: string): Promise<void> {
  try {
    await access(dirname(resolve(path)), constants.W_OK);
    if ((await stat(path).catch(() => undefined))?.isDirectory()) throw new Error('it is a directory');
  } catch (error) {
    throw new UsageError(`${flag}: cannot write ${path}: ${(error as Error).message}`);
  }
}

/** Writes `text` to `path`, or to stdout when there is no path. */
export async function writeOutput(path: string | undefined, text: string, io: CommandIO): Promise<void> {
  if (path === undefined) {
    io.stdout.write(text);
    return;
  }
  try {
    await writeFile(path, text);
  } catch (error) {
    throw new UsageError(`cannot write ${path}: ${(error as Error).message}`);
  }
}
