// What the coordinator and its agents say to each other once the session is sealed (see channel.ts).
import type { LoadOptions } from '../shared/load-options.js';
import type { LoadResult } from '../shared/load-result.js';
import type { RunningTotals, SecondSummary } from '../stats/shard-stats.js';

/** A file a run needs, at its path relative to the coordinator's working directory. */
export interface RunFile {
  path: string;
  /** Its bytes, base64. */
  content: string;
}

/** Coordinator to agent: run this segment (its options carry `segment` and `startAt`). */
export interface RunMessage {
  type: 'run';
  runId: string;
  options: LoadOptions;
  files: RunFile[];
}

/** Agent to coordinator: one closed second of its segment, with its running totals. */
export interface SecondMessage {
  type: 'second';
  runId: string;
  summary: SecondSummary;
  totals: RunningTotals;
}

/** Agent to coordinator: its segment's result. */
export interface ResultMessage {
  type: 'result';
  runId: string;
  result: LoadResult;
}

/** Agent to coordinator: its segment could not run (bad options on that machine, a task module that failed). */
export interface FailedMessage {
  type: 'failed';
  runId: string;
  message: string;
  code?: string;
}
