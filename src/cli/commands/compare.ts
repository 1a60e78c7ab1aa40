import { AssertionError } from 'node:assert';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assertNoRegression,
  compareResults,
  DEFAULT_METRICS,
  formatComparison,
  runComparison,
  type Comparison,
  type LoadResult,
} from '../../index.js';
import { renderComparisonReport } from '../../report/index.js';
import { checkWritable, EXIT, parseFlags, UsageError, writeOutput, type Command, type CommandIO } from '../command.js';
import { checkMetric, confidenceFlag, durationFlag, integerFlag, marginFlags } from '../flag-values.js';
import { flagsHelp, LOAD_FLAGS, loadOptionsFromFlags, type Flag } from '../load-flags.js';

const COMPARE_FLAGS = {
  runs: { short: 'n', type: 'string', value: 'N', help: 'runs of each side when comparing URLs (default 6)' },
  alternate: {
    type: 'string',
    value: 'ABBA|ABAB',
    help: 'order of the runs (default ABBA, which cancels linear drift)',
  },
  pause: { type: 'string', value: 'TIME', help: 'pause between runs, to let the server settle (default 0)' },
  metric: {
    type: 'string',
    multiple: true,
    value: 'PATH',
    help: 'a metric to compare (thresholds syntax); repeat (default: req/s, p50, p90, p99, errors.rate)',
  },
  fail: {
    type: 'string',
    multiple: true,
    value: "'PATH=5%'",
    help: 'exit 3 when PATH is significantly worse than this margin; repeat',
  },
  confidence: { type: 'string', value: '*|**|***', help: 'how sure a --fail must be (default **)' },
  json: { type: 'boolean', help: 'print the runs and the comparison as JSON' },
  html: {
    type: 'string',
    value: 'FILE',
    help: 'also write an HTML report (both spectra, each interval, the verdict) to FILE',
  },
  help: { short: 'h', type: 'boolean', help: 'this help' },
} as const satisfies Record<string, Flag>;

const USAGE = `usage: salvo compare BASELINE.json CANDIDATE.json [flags]
       salvo compare BASELINE_URL CANDIDATE_URL -n 6 [load flags] [flags]

Is the candidate faster than the baseline? Compares repeated runs with Welch's t-test, one run one
sample, and prints improvement, confidence (* p<0.05, ** p<0.01, *** p<0.001) and accuracy per metric.
Each side is a saved result (salvo --json), a JSON array of them, a directory of such files, or the
JSON of a previous salvo compare --json. One run a side shows each change but cannot be tested
for significance (exit 0; --fail needs at least 2 a side). Two URLs are load-tested alternately
with the load flags, -n times each.

flags:
${flagsHelp(COMPARE_FLAGS)}

load flags (URLs only):
${flagsHelp(LOAD_FLAGS)}
`;

const isResult = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && 'latency' in value && 'requests' in value;

/**
 * The runs of one side: a saved result, an array of them, one side of `salvo compare --json`, or a
 * directory of such files (its `.json` files in name order), as users keep them.
 */
async function readRuns(path: string, side: 'baseline' | 'candidate'): Promise<LoadResult[]> {
  let files = [path];
  if ((await stat(path).catch(() => undefined))?.isDirectory() === true) {
    files = (await readdir(path))
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => join(path, name));
    if (files.length === 0)
      throw new UsageError(
        `${path} is a directory without .json files; save each run with salvo --json > ${join(path, 'run-1.json')}`,
      );
  }
  const runs: LoadResult[] = [];
  for (const file of files) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new UsageError(`cannot read ${file} as JSON: ${(error as Error).message}`);
    }
    const found = isResult(parsed)
      ? [parsed]
      : Array.isArray(parsed)
        ? parsed
        : (parsed as Record<string, unknown> | null)?.[side];
    if (!Array.isArray(found) || !found.every(isResult)) {
      throw new UsageError(
        `${file} must hold a salvo result (salvo --json), a JSON array of them, or the JSON of salvo compare --json`,
      );
    }
    runs.push(...(found as LoadResult[]));
  }
  if (runs.length === 0) throw new UsageError(`${side} has no runs (${path})`);
  return runs;
}

/**
 * `--metric` (repeated): each checked now, so that a typo fails before any run and the message
 * names the flag. Undefined for the library's default metrics.
 */
function metricFlags(values: string[] | undefined): string[] | undefined {
  for (const metric of values ?? []) checkMetric('--metric', metric, metric);
  return values;
}

/**
 * `--fail 'latency.p99=5%'` (repeated) as assertNoRegression's margins, and `--confidence`, checked
 * before anything runs or is printed: the margin's syntax, its metric against the metrics that will
 * be compared, the level. A fraction (0.05) is taken as well as a percentage.
 */
function failFlags(values: string[] | undefined, confidence: string | undefined, metrics: string[] | undefined) {
  if (values === undefined) {
    if (confidence !== undefined)
      throw new UsageError(
        `--confidence sets how sure a --fail must be; give --fail too, such as --fail 'latency.p99=5%'`,
      );
    return undefined;
  }
  const level = confidence === undefined ? undefined : confidenceFlag(confidence);
  const margins = marginFlags(values, metrics ?? DEFAULT_METRICS);
  return { margins, options: level === undefined ? {} : { confidence: level } };
}

const isUrl = (text: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(text);

/** `salvo compare A B`: stored runs or live URLs, the compare.R table, exit 3 on a regression. */
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
    if (positionals.length !== 2)
      throw new UsageError(`salvo compare takes a baseline and a candidate; got ${positionals.length} arguments`);
    const [first, second] = positionals as [string, string];
    // Everything the comparison and its verdict need is checked before any run or any output.
    const metricList = metricFlags(values.metric);
    const metrics = metricList === undefined ? {} : { metrics: metricList };
    const failOn = failFlags(values.fail, values.confidence, metricList);
    if (values.html !== undefined) await checkWritable('--html', values.html);
    let output: { baseline: LoadResult[]; candidate: LoadResult[]; comparison: Comparison };
    let interrupted = false;
    if (isUrl(first) && isUrl(second)) {
      const runs = values.runs === undefined ? 6 : integerFlag('-n/--runs', values.runs, 2);
      if (values.alternate !== undefined && values.alternate !== 'ABBA' && values.alternate !== 'ABAB') {
        throw new UsageError(`--alternate must be 'ABAB' or 'ABBA'; got ${JSON.stringify(values.alternate)}`);
      }
      const pause = values.pause === undefined ? undefined : durationFlag('--pause', values.pause);
      const baseline = loadOptionsFromFlags({ ...parsed, positionals: [first] });
      const candidate = loadOptionsFromFlags({ ...parsed, positionals: [second] });
      // The finished runs, kept as they come: Ctrl-C ends the run in progress, and these are compared.
      const done: Record<'baseline' | 'candidate', LoadResult[]> = { baseline: [], candidate: [] };
      const controller = new AbortController();
      const interrupt = () => {
        if (controller.signal.aborted) process.exit(EXIT.interrupted);
        io.stderr.write('salvo compare: stopping; the run in progress is dropped (Ctrl-C again to quit at once)\n');
        controller.abort();
      };
      process.on('SIGINT', interrupt);
      try {
        output = await runComparison({
          baseline,
          candidate,
          runs,
          ...(values.alternate === undefined ? {} : { alternate: values.alternate }),
          ...(pause === undefined ? {} : { pause }),
          ...metrics,
          signal: controller.signal,
          onProgress: ({ side, run, index, total, result }) => {
            done[side].push(result);
            io.stderr.write(
              `salvo compare: run ${index}/${total} ${side} #${run}: ${result.requests.perSecond.toFixed(1)} req/s, p99 ${result.latency.p99.toFixed(3)} ms\n`,
            );
          },
        });
      } catch (error) {
        if (!controller.signal.aborted) throw error;
        interrupted = true;
        const finished = `${done.baseline.length} baseline and ${done.candidate.length} candidate runs of ${runs} each finished`;
        if (done.baseline.length < 2 || done.candidate.length < 2) {
          io.stderr.write(`salvo compare: interrupted: ${finished}; comparing needs at least 2 of each\n`);
          return EXIT.interrupted;
        }
        io.stderr.write(`salvo compare: interrupted: ${finished}; comparing those\n`);
        output = { ...done, comparison: compareResults(done.baseline, done.candidate, metrics) };
      } finally {
        process.off('SIGINT', interrupt);
      }
    } else if (!isUrl(first) && !isUrl(second)) {
      const baseline = await readRuns(first, 'baseline');
      const candidate = await readRuns(second, 'candidate');
      const single = baseline.length < 2 || candidate.length < 2;
      if (single && failOn !== undefined) {
        throw new UsageError(
          `--fail needs at least 2 runs a side to judge a change (one run has no spread to test against); got ${baseline.length} baseline and ${candidate.length} candidate; ` +
            'save several runs (salvo URL --json > runs/1.json, ...) and give the folders, or compare two URLs with -n',
        );
      }
      output = {
        baseline,
        candidate,
        comparison: compareResults(baseline, candidate, { ...metrics, allowOneRun: single }),
      };
    } else {
      throw new UsageError('compare two result files or two URLs, not one of each');
    }
    await writeOutput(
      undefined,
      values.json === true ? `${JSON.stringify(output, null, 2)}\n` : `${formatComparison(output.comparison)}\n`,
      io,
    );
    if (values.html !== undefined) {
      await writeOutput(
        values.html,
        renderComparisonReport(output, failOn === undefined ? {} : { margins: failOn.margins, ...failOn.options }),
        io,
      );
      io.stderr.write(`salvo: report written to ${values.html}\n`);
    }
    let verdict: number = EXIT.ok;
    if (failOn !== undefined) {
      try {
        assertNoRegression(output.comparison, failOn.margins, failOn.options);
      } catch (error) {
        if (!(error instanceof AssertionError)) throw error;
        io.stderr.write(`salvo compare: ${error.message}\n`);
        verdict = EXIT.regressed;
      }
    }
    return interrupted ? EXIT.interrupted : verdict;
  },
};
