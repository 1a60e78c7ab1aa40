import { randomBytes } from 'node:crypto';
import type { OutputOptions } from '../shared/load-options.js';

/**
 * A `testid` for outputs that name none. Segments given the same `startAt` derive the same one, so
 * their series sum by `testid`; otherwise it is random.
 */
export function generatedTestId(startAtMs: number | undefined): string {
  if (startAtMs !== undefined) return `salvo-${new Date(startAtMs).toISOString().replace(/[-:]|\.\d+/g, '')}`;
  return `salvo-${randomBytes(4).toString('hex')}`;
}

export function announceTestId(testid: string): void {
  process.stderr.write(`salvo: outputs label this run testid="${testid}"\n`);
}

/**
 * The outputs of something made of several runs (a capacity search's steps), every entry given the
 * same `testid` when it has none, so that the steps are one series. Anything malformed is left
 * for runLoad's validation to name.
 */
export function withOneTestId(outputs: unknown): unknown {
  if (!Array.isArray(outputs)) return outputs;
  let generated: string | undefined;
  const labelled = outputs.map((output: unknown) => {
    if (typeof output !== 'object' || output === null) return output;
    const { labels } = output as OutputOptions;
    if (labels !== undefined && (typeof labels !== 'object' || labels === null || labels['testid'] !== undefined))
      return output;
    generated ??= generatedTestId(undefined);
    return { ...output, labels: { ...labels, testid: generated } };
  });
  if (generated !== undefined) announceTestId(generated);
  return labelled;
}
