import { AssertionError } from 'node:assert';
import { readFile } from 'node:fs/promises';
import { assertNoRegression, compareResults, formatComparison, runComparison, type Comparison, type LoadResult } from '../../index.js';
import { EXIT, parseFlags, UsageError, writeOutput, type Command, type CommandIO } from '../command.js';
import { flagsHelp, LOAD_FLAGS, loadOptionsFromFlags, type Flag } from '../load-flags.js';

const COMPARE_FLAGS = {
  runs: { short: 'n', type: 'string', value: 'N', help: 'runs of each side when comparing URLs (default 6)' },
  alternate: { type: 'string', value: 'ABBA|ABAB', help: 'order of the runs (default ABBA, which cancels linear drift)' },
  pause: { type: 'string', value: 'TIME', help: 'pause between runs, to let the server settle (default 0)' },
  metric: { type: 'string', multiple: true, value: 'PATH', help: 'a metric to compare (thresholds syntax); repeat (default: req/s, p50, p90, p99, errors.rate)' },
  fail: { type: 'string', multiple: true, value: "'PATH=5%'", help: 'exit 1 when PATH is significantly worse than this margin; repeat' },
  confidence: { type: 'string', value: '*|**|***', help: 'how sure a --fail must be (default **)' },
  json: { type: 'boolean', help: 'print the runs and the comparison as JSON' },
  help: { short: 'h', type: 'boolean', help: 'this help' },
} as const satisfies Record<string, Flag>;

const USAGE = `usage: salvo compare BASELINE.json CANDIDATE.json [flags]
       salvo compare BASELINE_URL CANDIDATE_URL -n 6 [load flags] [flags]

Is the candidate faster than the baseline? Compares repeated runs with Welch's t-test, one run one
sample, and prints improvement, confidence (* p<0.05, ** p<0.01, *** p<0.001) and accuracy per metric.
A file holds a JSON array of results (or the JSON of a previous salvo compare --json); two URLs are
load-tested alternately with the load flags, -n times each.

flags:
${flagsHelp(COMPARE_FLAGS)}

load flags (URLs only):
${flagsHelp(LOAD_FLAGS)}
`;

/** Results of one side from a file: an array of results, or one side of `salvo compare --json`. */
async function readRuns(path: string, side: 'baseline' | 'candidate'): Promise<LoadResult[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read ${path} as JSON: ${(error as Error).message}`);
  }
  const runs = Array.isArray(parsed) ? parsed : (parsed as Record<string, unknown> | null)?.[side];
  if (!Array.isArray(runs) || !runs.every((run) => typeof run === 'object' && run !== null && 'latency' in run)) {
    throw new UsageError(`${path} must hold a JSON array of salvo results (one per run), or the JSON of salvo compare --json`);
  }
  return runs as LoadResult[];
}

function margins(values: string[] | undefined): Record<string, string> | undefined {
  if (values === undefined) return undefined;
  const result: Record<string, string> = {};
  for (const value of values) {
    const equals = value.lastIndexOf('=');
    if (equals <= 0) throw new UsageError(`--fail ${JSON.stringify(value)} must look like 'latency.p99=5%'`);
    result[value.slice(0, equals).trim()] = value.slice(equals + 1).trim();
  }
  return result;
}

const isUrl = (text: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(text);

/** `salvo compare A B`: stored runs or live URLs, the compare.R table, exit 1 on a regression. */
export const compareCommand: Command = {
  name: 'compare',
  summary: 'is B faster than A? repeated runs compared with statistical confidence',
  usage: USAGE,
  async run(args, io: CommandIO) {
    const parsed = parseFlags(args, { ...LOAD_FLAGS, ...COMPARE_FLAGS });
    const { values, positionals } = parsed;
    if (values.help === true) {
      io.stdout.write(USAGE);
      return EXIT.ok;
    }
    if (positionals.length !== 2) throw new UsageError(`salvo compare takes a baseline and a candidate; got ${positionals.length} arguments`);
    const [first, second] = positionals as [string, string];
    const metrics = values.metric === undefined ? {} : { metrics: values.metric };
    let output: { baseline: LoadResult[]; candidate: LoadResult[]; comparison: Comparison };
    if (isUrl(first) && isUrl(second)) {
      output = await runComparison({
        baseline: loadOptionsFromFlags({ ...parsed, positionals: [first] }),
        candidate: loadOptionsFromFlags({ ...parsed, positionals: [second] }),
        runs: values.runs === undefined ? 6 : Number(values.runs),
        ...(values.alternate === undefined ? {} : { alternate: values.alternate as 'ABBA' }),
        ...(values.pause === undefined ? {} : { pause: values.pause }),
        ...metrics,
        onProgress: ({ side, run, index, total, result }) =>
          io.stderr.write(`salvo compare: run ${index}/${total} ${side} #${run}: ${result.requests.perSecond.toFixed(1)} req/s, p99 ${result.latency.p99.toFixed(3)} ms\n`),
      });
    } else if (!isUrl(first) && !isUrl(second)) {
      const baseline = await readRuns(first, 'baseline');
      const candidate = await readRuns(second, 'candidate');
      output = { baseline, candidate, comparison: compareResults(baseline, candidate, metrics) };
    } else {
      throw new UsageError('compare two result files or two URLs, not one of each');
    }
    await writeOutput(undefined, values.json === true ? `${JSON.stringify(output, null, 2)}\n` : `${formatComparison(output.comparison)}\n`, io);
    const failOn = margins(values.fail);
    if (failOn === undefined) return EXIT.ok;
    try {
      assertNoRegression(output.comparison, failOn, values.confidence === undefined ? {} : { confidence: values.confidence as '**' });
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof AssertionError)) throw error;
      io.stderr.write(`salvo compare: ${error.message}\n`);
      return EXIT.failed;
    }
  },
};
