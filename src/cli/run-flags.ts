import { parseDuration, type LoadOptions } from '../index.js';
import { parseFlags, UsageError } from './command.js';
import { flagsHelp, LOAD_FLAGS, loadOptionsFromFlags, type Flag } from './load-flags.js';
import { OUTPUTS_FLAGS, outputsFromFlags } from './output-flags.js';
import { isLoadFile } from './load-file.js';
import { withLivePort } from './live-flags.js';

/** `salvo URL`'s own flags, after the load flags. */
const OUTPUT_FLAGS = {
  segment: {
    type: 'string',
    value: 'I/N',
    help: 'run only share I (from 0) of N of this plan, for salvo merge; N processes or machines',
  },
  'start-at': {
    type: 'string',
    value: 'TIME',
    help: 'start measuring at TIME (ISO 8601 or epoch ms): the same on every segment',
  },
  json: { type: 'boolean', help: 'print the result as JSON instead of the summary' },
  html: { type: 'string', value: 'FILE', help: 'also write an HTML report of the run to FILE' },
  'vllm-json': {
    type: 'string',
    value: 'FILE',
    help: "also write the result in vLLM's benchmark JSON field names to FILE (docs/llm.md)",
  },
  junit: { type: 'string', value: 'FILE', help: 'also write the thresholds as JUnit XML to FILE (a test case each)' },
  summary: {
    type: 'string',
    value: 'FILE',
    help: 'also write the verdict as Markdown to FILE (appended when it is $GITHUB_STEP_SUMMARY)',
  },
  quiet: { short: 'q', type: 'boolean', help: 'no progress line on stderr' },
  help: { short: 'h', type: 'boolean', help: 'this help' },
  version: { short: 'v', type: 'boolean', help: "salvo's version" },
} as const satisfies Record<string, Flag>;

const FLAGS = { ...LOAD_FLAGS, ...OUTPUTS_FLAGS, ...OUTPUT_FLAGS };

const DEFAULT_DURATION_MS = 10_000;

/** What `salvo URL [flags]` asks for. */
export interface RunInvocation {
  /** Options for `runLoad`, validated by it (its errors name the option). */
  options: LoadOptions;
  json: boolean;
  html?: string;
  /** `--vllm-json FILE`: the result in `vllm bench serve`'s field names. */
  vllmJson?: string;
  /** `--junit FILE`, `--summary FILE`: the verdict for CI (see docs/ci-gates.md). */
  junit?: string;
  summary?: string;
  quiet: boolean;
  help: boolean;
  version: boolean;
  /** `salvo run load.mjs`: the module whose options the flags (in `options`) override. */
  loadFile?: string;
  /** What the progress bar measures against: the planned run length, or the number of requests. */
  plannedMs?: number;
  plannedAmount?: number;
}

/** `salvo --help`. */
export const RUN_USAGE = `usage: salvo URL [flags]
       salvo --task MODULE[#NAME] [flags]
       salvo <command> [args]  (salvo <command> --help for its own)

Load-tests URL (http: or https:; ws: or wss: a WebSocket run; with --socketio-* flags the origin of
a Socket.IO server), or calls your own async function (--task: a module's default or NAME export,
with its setup and teardown), and prints a summary; progress goes to stderr, the result alone to stdout.
Exit status: 0 ok, 1 a threshold failed, 2 bad flags or options, 4 no request succeeded,
5 most requests failed, 6 a setupRequest/onResponse hook threw, 130 stopped by Ctrl-C
(the partial result is printed).

flags:
${flagsHelp(FLAGS)}

examples:
  salvo http://127.0.0.1:3000/ -c 100 -d 30s
  salvo run load.mjs -d 1m           # the options a module exports (scenarios, hooks, thresholds); flags override
  salvo http://127.0.0.1:3000/api -R 2000 -d 1m --threshold 'latency.p99<50' --html report.html
  salvo http://127.0.0.1:3000/ -a 10000 --json > result.json && salvo report result.json -o report.html
  salvo http://127.0.0.1:3000 -c 100 -d 30s --socketio-emit echo --socketio-data '{"hello":1}' --socketio-ack
  salvo --task ./checkout-task.mjs --concurrency 50 -w 2 -d 30s --threshold 'latency.p99<50'
  salvo http://127.0.0.1:3000/ -R 2000 -d 5m --live 5665   # watch it at http://127.0.0.1:5665/
  salvo http://127.0.0.1:3000/ -R 5000 -d 30m --out prometheus=http://127.0.0.1:9090/api/v1/write --out-label testid=checkout-v2
`;

/** Parses `salvo URL [flags]`: runLoad's options, what to print, and the planned length for progress. */
export function parseRunFlags(args: string[]): RunInvocation {
  const parsed = parseFlags(withLivePort(args), FLAGS);
  const { values: flags } = parsed;
  const invocation: RunInvocation = {
    options: { url: '' },
    json: flags.json === true,
    html: flags.html,
    ...(flags['vllm-json'] !== undefined ? { vllmJson: flags['vllm-json'] } : {}),
    ...(flags.junit !== undefined ? { junit: flags.junit } : {}),
    ...(flags.summary !== undefined ? { summary: flags.summary } : {}),
    quiet: flags.quiet === true,
    help: flags.help === true,
    version: flags.version === true,
  };
  if (invocation.help || invocation.version) return invocation;
  const options = loadOptionsFromFlags(parsed);
  if (flags.segment !== undefined) options.segment = segmentFlag(flags.segment);
  if (flags['start-at'] !== undefined) options.startAt = startAtFlag(flags['start-at']);
  const outputs = outputsFromFlags(flags.out, flags['out-label']);
  if (outputs !== undefined) options.outputs = outputs;
  if (isLoadFile(parsed.positionals[0])) {
    invocation.loadFile = parsed.positionals[0];
    delete (options as Partial<LoadOptions>).url;
    invocation.options = options;
    return invocation;
  }
  invocation.options = options;
  withPlannedLength(invocation);
  return invocation;
}

/**
 * runLoad's default duration, made explicit so that the progress bar knows the length, and that
 * length: for the flags' options, or for a load file's with the flags over them.
 */
export function withPlannedLength(invocation: RunInvocation): void {
  const { options } = invocation;
  if (
    options.duration === undefined &&
    options.amount === undefined &&
    options.stages === undefined &&
    options.scenarios === undefined
  ) {
    options.duration = DEFAULT_DURATION_MS;
  }
  Object.assign(invocation, plannedLength(options));
}

/** The run's planned length for the progress bar; nothing when runLoad is about to reject the options. */
function plannedLength({ duration, stages, amount }: LoadOptions): Pick<RunInvocation, 'plannedMs' | 'plannedAmount'> {
  try {
    if (duration !== undefined) return { plannedMs: parseDuration(duration) };
    if (stages !== undefined)
      return { plannedMs: stages.reduce((sum, stage) => sum + parseDuration(stage.duration, 'stages'), 0) };
  } catch {
    return {};
  }
  return typeof amount === 'number' ? { plannedAmount: amount } : {};
}

/** `--segment 0/4`: runLoad's `segment: { index, count }` (the library checks the ranges). */
function segmentFlag(text: string): { index: number; count: number } {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (match === null)
    throw new UsageError(`--segment must be INDEX/COUNT, such as 0/4 (the first of 4); got ${JSON.stringify(text)}`);
  return { index: Number(match[1]), count: Number(match[2]) };
}

/** `--start-at 2030-01-01T12:00:00Z` or `--start-at 1893499200000`: runLoad's `startAt`, epoch ms. */
function startAtFlag(text: string): number {
  const ms = /^\s*\d+\s*$/.test(text) ? Number(text) : /^\s*\d{4}-\d\d-\d\d/.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new UsageError(
      `--start-at must be an ISO 8601 time (2030-01-01T12:00:00Z) or epoch milliseconds; got ${JSON.stringify(text)}`,
    );
  }
  return ms;
}
