import { parseDuration, type LoadOptions } from '../index.js';
import { parseFlags } from './command.js';
import { flagsHelp, LOAD_FLAGS, loadOptionsFromFlags, type Flag } from './load-flags.js';

/** `salvo URL`'s own flags, after the load flags. */
const OUTPUT_FLAGS = {
  json: { type: 'boolean', help: 'print the result as JSON instead of the summary' },
  html: { type: 'string', value: 'FILE', help: 'also write an HTML report of the run to FILE' },
  quiet: { short: 'q', type: 'boolean', help: 'no progress line on stderr' },
  help: { short: 'h', type: 'boolean', help: 'this help' },
  version: { short: 'v', type: 'boolean', help: "salvo's version" },
} as const satisfies Record<string, Flag>;

const FLAGS = { ...LOAD_FLAGS, ...OUTPUT_FLAGS };

const DEFAULT_DURATION_MS = 10_000;

/** What `salvo URL [flags]` asks for. */
export interface RunInvocation {
  /** Options for `runLoad`, validated by it (its errors name the option). */
  options: LoadOptions;
  json: boolean;
  html?: string;
  quiet: boolean;
  help: boolean;
  version: boolean;
  /** What the progress bar measures against: the planned run length, or the number of requests. */
  plannedMs?: number;
  plannedAmount?: number;
}

/** `salvo --help`. */
export const RUN_USAGE = `usage: salvo URL [flags]
       salvo <command> [args]  (salvo <command> --help for its own)

Load-tests URL (http: or https:) and prints a summary; progress goes to stderr, the result alone to
stdout. Exit status: 0 ok, 1 a threshold failed, 2 bad flags or options.

flags:
${flagsHelp(FLAGS)}

examples:
  salvo http://127.0.0.1:3000/ -c 100 -d 30s
  salvo http://127.0.0.1:3000/api -R 2000 -d 1m --threshold 'latency.p99<50' --html report.html
  salvo http://127.0.0.1:3000/ -a 10000 --json > result.json && salvo report result.json -o report.html
`;

/** Parses `salvo URL [flags]`: runLoad's options, what to print, and the planned length for progress. */
export function parseRunFlags(args: string[]): RunInvocation {
  const parsed = parseFlags(args, FLAGS);
  const { values: flags } = parsed;
  const invocation: RunInvocation = {
    options: { url: '' },
    json: flags.json === true,
    html: flags.html,
    quiet: flags.quiet === true,
    help: flags.help === true,
    version: flags.version === true,
  };
  if (invocation.help || invocation.version) return invocation;
  const options = loadOptionsFromFlags(parsed);
  // runLoad's default, made explicit so that the progress bar knows the length.
  if (options.duration === undefined && options.amount === undefined && options.stages === undefined) {
    options.duration = DEFAULT_DURATION_MS;
  }
  invocation.options = options;
  Object.assign(invocation, plannedLength(options));
  return invocation;
}

/** The run's planned length for the progress bar; nothing when runLoad is about to reject the options. */
function plannedLength({ duration, stages, amount }: LoadOptions): Pick<RunInvocation, 'plannedMs' | 'plannedAmount'> {
  try {
    if (duration !== undefined) return { plannedMs: parseDuration(duration) };
    if (stages !== undefined) return { plannedMs: stages.reduce((sum, stage) => sum + parseDuration(stage.duration, 'stages'), 0) };
  } catch {
    return {};
  }
  return typeof amount === 'number' ? { plannedAmount: amount } : {};
}
