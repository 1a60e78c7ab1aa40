/**
 * `result.warnings`: one mechanism for every part of salvo that notices the numbers may mislead
 * (the generator was the bottleneck, a server's Nagle stalls, a file or port limit, a late start).
 * Each code appears at most once in a result; shards and segments merge by code.
 */

/** A finding about the run that the numbers alone do not show. `code` is stable; `message` says what it means and what to do. */
export interface Warning {
  code: string;
  message: string;
}

/** Adds `warning` unless its code is already there (the first message for a code wins). */
export function addWarning(warnings: Warning[], code: string, message: string): void {
  if (!warnings.some((warning) => warning.code === code)) warnings.push({ code, message });
}

/** The warnings of several shards or results, one per code, in the order first seen. */
export function mergeWarnings(lists: ReadonlyArray<ReadonlyArray<Warning> | undefined>): Warning[] {
  const merged: Warning[] = [];
  for (const list of lists) for (const warning of list ?? []) addWarning(merged, warning.code, warning.message);
  return merged;
}
