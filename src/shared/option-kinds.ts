// What the option table's rows are made of: the row's shape and the sets of kinds of run they name.
import type { RunKind } from './run-kind.js';

export interface OptionRow {
  /** The kinds of run it has a meaning in; any other rejects it by name. */
  kinds: readonly RunKind[];
  /** An option of the whole run, never a scenario's (`scenarios` takes the others). */
  run?: true;
  /** Its type, as the docs write it. */
  type: string;
  /** What a number means, when it is one. */
  unit?: string;
  /** Its default, exactly as docs/options.md's `default` column writes it (`—`: none). */
  default: string;
  /** What it does, in a line. */
  doc: string;
  /** The `salvo` flags (LOAD_FLAGS) that set it, without the dashes. */
  flags?: readonly string[];
}

export const ALL: readonly RunKind[] = ['http', 'websocket', 'socketio', 'task', 'subscription'];
/** Runs of HTTP requests: a request sequence, or SSE subscriptions held for the run. */
export const HTTP: readonly RunKind[] = ['http', 'subscription'];
/** Runs against a url. */
export const URL_RUNS: readonly RunKind[] = ['http', 'websocket', 'socketio', 'subscription'];
/** Runs whose rate and amount count sends (requests, calls). */
export const SENDING: readonly RunKind[] = ['http', 'websocket', 'socketio', 'task'];
export const NONE = '—';
