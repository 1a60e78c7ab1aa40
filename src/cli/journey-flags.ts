import { resolve } from 'node:path';
import type { LoadOptions } from '../index.js';
import { UsageError } from './command.js';
import { integerFlag } from './flag-values.js';

/**
 * The flags of a user's journey (docs/journeys.md), in help order (LOAD_FLAGS takes them in). There is
 * no --think: a think time is a step's, so it lives with the steps in the --requests or --flows module.
 */
export const JOURNEY_FLAGS = {
  cookies: {
    type: 'boolean',
    help: 'a cookie jar per journey (a walk of --requests): sessions as a browser keeps them',
  },
  'follow-redirects': {
    type: 'string',
    value: 'N',
    help: 'follow up to N same-origin redirects of each request, timed as the request (default 0)',
  },
  flows: {
    type: 'string',
    value: 'FILE',
    help: 'a module exporting flows: a weighted mix of journeys, each walking its own requests',
  },
  feed: { type: 'string', value: 'FILE', help: 'a CSV or JSONL file: one row per journey, as context.row in hooks' },
  'feed-once': { type: 'boolean', help: '--feed: use each row once, then end the run (default: the rows cycle)' },
} as const;

interface JourneyFlagValues {
  cookies?: boolean;
  'follow-redirects'?: string;
  flows?: string;
  feed?: string;
  'feed-once'?: boolean;
}

/** The runLoad options the journey flags give; a path is resolved from here, as a shell gives it. */
export function journeyFromFlags(
  flags: JourneyFlagValues,
): Pick<LoadOptions, 'cookies' | 'followRedirects' | 'flows' | 'feed'> {
  if (flags['feed-once'] !== undefined && flags.feed === undefined)
    throw new UsageError('--feed-once needs --feed FILE');
  const feed = flags.feed === undefined ? undefined : resolve(flags.feed);
  return {
    cookies: flags.cookies,
    followRedirects:
      flags['follow-redirects'] === undefined
        ? undefined
        : integerFlag('--follow-redirects', flags['follow-redirects'], 0),
    flows: flags.flows === undefined ? undefined : resolve(flags.flows),
    feed: feed === undefined || flags['feed-once'] === undefined ? feed : { file: feed, reuse: !flags['feed-once'] },
  };
}
