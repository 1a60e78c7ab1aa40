import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { historyTestIds } from './history.js';

/** Why a build had nothing to be compared with: each case has its own code and message. */
export interface NoBaseline {
  /**
   * `HISTORY_MISSING`: the history folder does not exist (a typo in the folder, a CI cache not
   * restored, or the very first build); `HISTORY_UNKNOWN_TEST`: the folder has no entries for this
   * test id (a typo in the id, or a new test); `HISTORY_TOO_SHORT`: fewer than 2 baseline runs.
   */
  code: 'HISTORY_MISSING' | 'HISTORY_UNKNOWN_TEST' | 'HISTORY_TOO_SHORT';
  message: string;
  /** The test ids the history holds (`HISTORY_UNKNOWN_TEST`). */
  knownTestIds?: string[];
}

const isFolder = (path: string) =>
  stat(path).then(
    (found) => found.isDirectory(),
    (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' || error.code === 'ENOTDIR' ? false : Promise.reject(error),
  );

/** Whether the history folder or the test's folder in it is missing, and what to say about it. */
export async function missingHistory(dir: string, testId: string): Promise<NoBaseline | undefined> {
  if (!(await isFolder(dir))) {
    return {
      code: 'HISTORY_MISSING',
      message:
        `no baseline: the history folder ${dir} does not exist, so this build was compared with nothing. ` +
        'If this is the first build, adding it starts the history; if the folder should be there, check the folder given (a typo?) and that the CI cache holding it was restored',
    };
  }
  if (await isFolder(join(dir, testId))) return undefined;
  const knownTestIds = await historyTestIds(dir);
  const known =
    knownTestIds.length === 0
      ? 'it holds no test yet'
      : `it holds ${knownTestIds.map((id) => JSON.stringify(id)).join(', ')}`;
  return {
    code: 'HISTORY_UNKNOWN_TEST',
    message:
      `no baseline: the history in ${dir} has no test ${JSON.stringify(testId)} (${known}), so this build was compared with nothing. ` +
      'A typo in the test id? A new test starts its history when its first build is added',
    knownTestIds,
  };
}

/** Too short a history: fewer than 2 baseline runs. */
export function tooShort(testId: string, runs: number): NoBaseline {
  return {
    code: 'HISTORY_TOO_SHORT',
    message: `no baseline: the history holds ${runs} baseline run${runs === 1 ? '' : 's'} of ${testId}; a comparison needs at least 2, so this build was compared with nothing`,
  };
}
