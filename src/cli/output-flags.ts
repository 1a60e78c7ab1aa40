import type { OutputOptions } from '../index.js';
import { UsageError } from './command.js';
import type { Flag } from './load-flags.js';

/** `salvo URL`'s flags for `outputs`. */
export const OUTPUTS_FLAGS = {
  out: {
    type: 'string',
    multiple: true,
    value: 'prometheus=URL',
    help: 'write live series to a Prometheus remote-write URL; repeat for more',
  },
  'out-label': {
    type: 'string',
    multiple: true,
    value: 'NAME=VALUE',
    help: 'a label on every --out series (testid=checkout-v2); repeat for more',
  },
} as const satisfies Record<string, Flag>;

function pair(flag: string, text: string, shape: string): [string, string] {
  const equals = text.indexOf('=');
  if (equals <= 0 || equals === text.length - 1)
    throw new UsageError(`--${flag} must look like ${shape}; got ${JSON.stringify(text)}`);
  return [text.slice(0, equals).trim(), text.slice(equals + 1).trim()];
}

/**
 * `--out prometheus=URL` (repeated) and `--out-label name=value` (repeated, on every output) as
 * runLoad's `outputs`; runLoad checks the URL and the label names, naming `outputs[i]`.
 */
export function outputsFromFlags(
  outs: string[] | undefined,
  labels: string[] | undefined,
): OutputOptions[] | undefined {
  if (outs === undefined) {
    if (labels !== undefined)
      throw new UsageError('--out-label labels the series of --out: give --out prometheus=URL too');
    return undefined;
  }
  const outputLabels =
    labels === undefined
      ? undefined
      : Object.fromEntries(labels.map((label) => pair('out-label', label, 'NAME=VALUE, such as testid=checkout-v2')));
  return outs.map((out) => {
    const [type, url] = pair('out', out, 'prometheus=URL, such as prometheus=http://127.0.0.1:9090/api/v1/write');
    if (type !== 'prometheus')
      throw new UsageError(`--out ${JSON.stringify(out)}: the only kind is prometheus (prometheus=URL)`);
    return { type, url, ...(outputLabels === undefined ? {} : { labels: outputLabels }) };
  });
}
