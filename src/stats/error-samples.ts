import type { ErrorSample } from '../shared/load-result.js';

/** Samples kept per error code, and over all codes: enough to say what went wrong, small enough to print. */
export const SAMPLES_PER_CODE = 3;
export const MAX_SAMPLES = 10;
/** Lines of a stack kept after its message line: where it was thrown, not the runtime's frames below. */
const STACK_LINES = 4;

/** `error` as a sample under `code`: its message and the top of its stack (anything thrown, not only Errors). */
export function errorSample(code: string, error: unknown): ErrorSample {
  if (!(error instanceof Error)) return { code, message: typeof error === 'string' ? error : safeString(error) };
  const sample: ErrorSample = { code, message: error.message };
  const stack = error.stack
    ?.split('\n')
    .slice(1, 1 + STACK_LINES)
    .join('\n');
  if (stack) sample.stack = stack;
  return sample;
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Whether `samples` takes one more under `code`, with `message` unless it is there already. */
export function wantsSample(samples: readonly ErrorSample[], code: string, message?: string): boolean {
  if (samples.length >= MAX_SAMPLES) return false;
  let ofCode = 0;
  for (const sample of samples) {
    if (sample.code !== code) continue;
    if (sample.message === message) return false;
    ofCode++;
  }
  return ofCode < SAMPLES_PER_CODE;
}

/**
 * Keeps `error` in `samples` when they take it (see `wantsSample`): the message is read first, and
 * the stack (costly to format) only for an error that is kept.
 */
export function keepErrorSample(samples: ErrorSample[], code: string, error: unknown): void {
  if (samples.length >= MAX_SAMPLES) return;
  const message = error instanceof Error ? error.message : undefined;
  if (wantsSample(samples, code, message)) {
    const sample = errorSample(code, error);
    if (message !== undefined || wantsSample(samples, code, sample.message)) samples.push(sample);
  }
}

/** Several shards' or results' samples as one list, in order, within the same limits. */
export function mergeErrorSamples(lists: ReadonlyArray<readonly ErrorSample[] | undefined>): ErrorSample[] {
  const merged: ErrorSample[] = [];
  for (const list of lists)
    for (const sample of list ?? []) if (wantsSample(merged, sample.code, sample.message)) merged.push(sample);
  return merged;
}
