import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import type { LoadResult, NameStats } from '../shared/load-result.js';
import { ciLabels, type BuildLabels } from './ci-labels.js';
import { measuredOf, type Measured } from './measured.js';

/** The `format` of every history file; a later layout gets a new one. */
export const HISTORY_FORMAT = 'salvo-history/1';

/** The per-second and per-phase detail a history leaves out of a run, its names and its scenarios. */
type Detail = 'timeline' | 'merge' | 'phaseHistograms' | 'histogramUncorrected';

/**
 * One run as a history keeps it: the result without its per-second timeline, its merge detail and
 * its phase and uncorrected histograms (nor those of its `byName` and `byScenario` entries), so that
 * an entry stays a few kilobytes. The encoded latency histograms stay: every latency metric can be
 * read again from them.
 */
export type StoredRun = Omit<
  LoadResult,
  'timeline' | 'merge' | 'phaseHistograms' | 'histogramUncorrected' | 'byName' | 'byScenario'
> & {
  byName?: Record<string, Omit<NameStats, 'merge' | 'phaseHistograms' | 'histogramUncorrected'>>;
  byScenario?: Record<string, StoredRun>;
};

/** One file of a history: the runs of one build of one test, with what labels it. */
export interface HistoryEntry extends BuildLabels {
  format: typeof HISTORY_FORMAT;
  testId: string;
  /** The file's name without `.json`: the time it was added, the commit and a random part, so that it sorts by time and two jobs never pick the same. */
  id: string;
  /** When it was added, ISO 8601. */
  addedAt: string;
  /** What the user called it (a version, a pull request). */
  label?: string;
  /**
   * Whether it counts toward the baseline: false for runs stored while they regressed, which a
   * later build is then not compared with (unless `acceptInHistory` takes them in).
   */
  baseline: boolean;
  /** When it was accepted (`acceptInHistory`): the baseline starts here, older entries no longer count. */
  acceptedAt?: string;
  /**
   * What the runs measured (target, requests, scenarios, transport, connections, rate, planned
   * length): a build that measured something else is not compared with this entry. Absent in
   * entries stored before 1.x recorded it; those are compared on what their runs tell.
   */
  measured?: Measured;
  runs: StoredRun[];
}

/** Options of `addToHistory`. */
export interface AddToHistoryOptions extends BuildLabels {
  label?: string;
  /** Whether the entry counts toward the baseline (default true). */
  baseline?: boolean;
  /** Entries kept per test id: the oldest beyond this are deleted (default 100). */
  keep?: number;
  /** The time it is added at (default now). */
  addedAt?: Date;
  /**
   * Where `commit`, `branch` and `url` not given are read from (`ciLabels`: GitHub Actions, GitLab
   * CI, Jenkins, ...): default `process.env`, as the CLI does; `{}` reads none.
   */
  env?: NodeJS.ProcessEnv;
}

const DEFAULT_KEEP = 100;
const TEST_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The folder of one test id in a history, after checking the id is a safe file name. */
function testFolder(dir: string, testId: string): string {
  if (typeof dir !== 'string' || dir === '')
    throw new SalvoOptionError(`dir must be the history's folder; got ${JSON.stringify(dir)}`, {
      option: 'dir',
      value: dir,
    });
  if (typeof testId !== 'string' || !TEST_ID.test(testId)) {
    throw new SalvoOptionError(
      `testId must be letters, digits, '.', '_' or '-' (it names a folder), at most 128; got ${JSON.stringify(testId)}`,
      { option: 'testId', value: testId },
    );
  }
  return join(dir, testId);
}

/** The part of a result a history keeps (see `StoredRun`). */
export function storedRun(result: LoadResult): StoredRun {
  const { byName, byScenario, ...rest } = result;
  return {
    ...withoutDetail(rest),
    ...(byName === undefined
      ? {}
      : { byName: Object.fromEntries(Object.entries(byName).map(([name, stats]) => [name, withoutDetail(stats)])) }),
    ...(byScenario === undefined
      ? {}
      : {
          byScenario: Object.fromEntries(
            Object.entries(byScenario).map(([name, scenario]) => [name, storedRun(scenario)]),
          ),
        }),
  };
}

function withoutDetail<T extends Partial<Record<Detail, unknown>>>(stats: T): Omit<T, Detail> {
  const {
    timeline: _timeline,
    merge: _merge,
    phaseHistograms: _phases,
    histogramUncorrected: _uncorrected,
    ...kept
  } = stats;
  return kept;
}

/**
 * Writes `text` to `path` whole or not at all: into a temporary file beside it, then renamed over it
 * (a rename within a folder is atomic), so that a reader or a second job never sees half a file.
 */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, text);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Adds the runs of one build to the history in `dir` under `testId`, as a file of its own (two jobs
 * adding at once write two files), then deletes the oldest entries beyond `keep`.
 * @throws SalvoOptionError for a bad test id or no results; SalvoRangeError for a bad `keep`.
 */
export async function addToHistory(
  dir: string,
  testId: string,
  results: readonly LoadResult[],
  options: AddToHistoryOptions = {},
): Promise<HistoryEntry> {
  const folder = testFolder(dir, testId);
  if (!Array.isArray(results) || results.length === 0) {
    throw new SalvoOptionError("results must be a non-empty array of results (runLoad's)", {
      option: 'results',
      value: results,
    });
  }
  const keep = options.keep ?? DEFAULT_KEEP;
  if (!Number.isInteger(keep) || keep < 1)
    throw new SalvoRangeError(`keep must be a whole number of entries, at least 1; got ${String(keep)}`, {
      option: 'keep',
      value: keep,
    });
  const addedAt = (options.addedAt ?? new Date()).toISOString();
  const ci = ciLabels(options.env);
  const labels = {
    commit: options.commit ?? ci.commit,
    branch: options.branch ?? ci.branch,
    url: options.url ?? ci.url,
  };
  const commit = labels.commit?.slice(0, 12).replace(/[^A-Za-z0-9]/g, '') || 'local';
  const id = `${addedAt.replace(/[-:]/g, '')}-${commit}-${randomBytes(4).toString('hex')}`;
  const entry: HistoryEntry = {
    format: HISTORY_FORMAT,
    testId,
    id,
    addedAt,
    ...(labels.commit !== undefined ? { commit: labels.commit } : {}),
    ...(labels.branch !== undefined ? { branch: labels.branch } : {}),
    ...(labels.url !== undefined ? { url: labels.url } : {}),
    ...(options.label !== undefined ? { label: options.label } : {}),
    baseline: options.baseline ?? true,
    measured: measuredOf(results[0]!),
    runs: results.map(storedRun),
  };
  await mkdir(folder, { recursive: true });
  await writeAtomically(join(folder, `${id}.json`), `${JSON.stringify(entry, null, 2)}\n`);
  const names = await entryFiles(folder);
  // Another job may be deleting the same old files: one that is already gone is fine.
  await Promise.all(
    names.slice(0, Math.max(0, names.length - keep)).map((name) => rm(join(folder, name), { force: true })),
  );
  return entry;
}

/** The entry files of one test's folder, oldest first (their names start with the time). */
async function entryFiles(folder: string): Promise<string[]> {
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return names.filter((name) => name.endsWith('.json') && !name.startsWith('.')).sort();
}

/**
 * The entries of `testId` in the history in `dir`, oldest first; none when it has none.
 * @throws SalvoOptionError naming a file that is not a history entry.
 */
export async function readHistory(dir: string, testId: string): Promise<HistoryEntry[]> {
  const folder = testFolder(dir, testId);
  const entries: HistoryEntry[] = [];
  for (const name of await entryFiles(folder)) {
    const path = join(folder, name);
    // A file deleted by another job's retention between the listing and the read is simply gone.
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? undefined : Promise.reject(error),
    );
    if (text === undefined) continue;
    let entry: Partial<HistoryEntry> | undefined;
    try {
      entry = JSON.parse(text) as Partial<HistoryEntry>;
    } catch {
      entry = undefined;
    }
    if (entry?.format !== HISTORY_FORMAT || !Array.isArray(entry.runs)) {
      throw new SalvoOptionError(
        `${path} is not a salvo history entry (format ${HISTORY_FORMAT}); move it out of the history folder`,
        { option: 'dir', value: dir },
      );
    }
    entries.push(entry as HistoryEntry);
  }
  return entries;
}

/** The test ids a history holds. */
export async function historyTestIds(dir: string): Promise<string[]> {
  const names = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT' ? [] : Promise.reject(error),
  );
  return names
    .filter((entry) => entry.isDirectory() && TEST_ID.test(entry.name))
    .map((entry) => entry.name)
    .sort();
}

/**
 * The entries a new build is compared with: the last `count` that count toward the baseline, none
 * older than the most recently accepted entry (an accepted change starts the baseline afresh).
 */
export function baselineEntries(entries: readonly HistoryEntry[], count: number): HistoryEntry[] {
  let start = 0;
  entries.forEach((entry, index) => {
    if (
      entry.acceptedAt !== undefined &&
      !(entries[start]?.acceptedAt !== undefined && entries[start]!.acceptedAt! > entry.acceptedAt)
    )
      start = index;
  });
  return entries
    .slice(start)
    .filter((entry) => entry.baseline)
    .slice(-count);
}

/**
 * Accepts an entry (the latest when `entryId` is not given): a change that was meant, so the baseline
 * moves forward to it. It counts toward the baseline from now on, and entries older than it no longer do.
 * @throws SalvoOptionError when the test has no such entry.
 */
export async function acceptInHistory(
  dir: string,
  testId: string,
  entryId?: string,
  acceptedAt = new Date(),
): Promise<HistoryEntry> {
  const entries = await readHistory(dir, testId);
  const entry =
    entryId === undefined
      ? entries.at(-1)
      : [...entries].reverse().find((candidate) => candidate.id === entryId || candidate.commit === entryId);
  if (entry === undefined) {
    const which = entryId === undefined ? 'no entries' : `no entry ${JSON.stringify(entryId)} (by id or commit)`;
    throw new SalvoOptionError(`the history in ${dir} has ${which} for test ${testId}`, {
      option: 'entryId',
      value: entryId,
    });
  }
  const accepted: HistoryEntry = { ...entry, baseline: true, acceptedAt: acceptedAt.toISOString() };
  await writeAtomically(join(testFolder(dir, testId), `${entry.id}.json`), `${JSON.stringify(accepted, null, 2)}\n`);
  return accepted;
}
