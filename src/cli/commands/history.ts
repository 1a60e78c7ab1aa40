import type { LoadResult } from '../../index.js';
import {
  acceptInHistory,
  addToHistory,
  baselineEntries,
  ciLabels,
  compareWithHistory,
  DEFAULT_MARGINS,
  formatJUnit,
  formatSummary,
  historyTestIds,
  readHistory,
  renderTrendReport,
  writeSummary,
  type GateOutcome,
} from '../../gate/index.js';
import {
  checkWritable,
  EXIT,
  parseFlags,
  readResultFile,
  UsageError,
  writeOutput,
  type Command,
  type CommandIO,
  type ParsedFlags,
} from '../command.js';
import { confidenceFlag, integerFlag, marginFlags } from '../flag-values.js';
import { usableStepSummary } from '../step-summary.js';
import { flagsHelp, type Flag } from '../load-flags.js';

const HISTORY_FLAGS = {
  dir: { type: 'string', value: 'DIR', help: 'the history folder (default .salvo-history)' },
  id: { type: 'string', value: 'TEST', help: 'the test id the runs belong to (required but for list)' },
  fail: {
    type: 'string',
    multiple: true,
    value: "'PATH=5%'",
    help: 'compare: a metric and the worsening it may show; repeat (default p50, p90 5%, p99 10%, req/s 5%)',
  },
  confidence: { type: 'string', value: '*|**|***', help: 'compare: how sure a regression must be (default **)' },
  entries: { type: 'string', value: 'N', help: 'compare: baseline entries to compare with (default 10)' },
  add: { type: 'boolean', help: 'compare: also add the runs (to the baseline only when they passed)' },
  'require-baseline': {
    type: 'boolean',
    help: 'compare: exit 7 when there is nothing to compare with (no folder, no such --id, < 2 runs) instead of passing with a warning',
  },
  keep: { type: 'string', value: 'N', help: 'add: entries kept per test id, the oldest deleted (default 100)' },
  label: { type: 'string', value: 'TEXT', help: 'add: a label for the entry (a version, a pull request)' },
  commit: { type: 'string', value: 'SHA', help: 'add: the commit (default $GITHUB_SHA, $CI_COMMIT_SHA, ...)' },
  branch: {
    type: 'string',
    value: 'NAME',
    help: 'add: the branch (default $GITHUB_HEAD_REF/$GITHUB_REF_NAME, $CI_COMMIT_REF_NAME, ...)',
  },
  junit: {
    type: 'string',
    value: 'FILE',
    help: 'compare: write the verdict as JUnit XML (a case per threshold and metric)',
  },
  summary: {
    type: 'string',
    value: 'FILE',
    help: 'compare: write the verdict as Markdown (default: append to $GITHUB_STEP_SUMMARY when set)',
  },
  report: {
    type: 'string',
    multiple: true,
    value: 'TITLE=HREF',
    help: 'compare: an HTML report for the summary to link; repeat',
  },
  html: { type: 'string', value: 'FILE', help: 'trend: write the HTML trend report to FILE' },
  json: { type: 'boolean', help: 'print the comparison, or list, as JSON' },
  help: { short: 'h', type: 'boolean', help: 'this help' },
} as const satisfies Record<string, Flag>;

const USAGE = `usage: salvo history add     --id TEST [--dir DIR] RESULT.json ... [--label TEXT] [--keep N]
       salvo history compare --id TEST [--dir DIR] RESULT.json ... [--fail 'PATH=5%'] [--add] [--junit FILE] [--summary FILE]
       salvo history accept  --id TEST [--dir DIR] [ENTRY_ID | COMMIT]
       salvo history list    [--id TEST] [--dir DIR]
       salvo history trend   --id TEST [--dir DIR] --html FILE [--fail 'PATH=5%']

A baseline history for CI gates: each build's repeated runs (salvo --json > run-N.json) stored as one
plain-JSON file per build under DIR/TEST/, labelled with the commit and branch. compare tests a build's
runs against the latest baseline entries (Welch's t-test, one run one sample): a metric regresses when
it is significantly worse (at --confidence) by more than its margin. accept moves the baseline forward
to an entry (a slowdown that was meant): older entries no longer count. trend draws every build's
metrics, the baseline and the builds that regressed.

With no baseline (no DIR, no TEST in it, fewer than 2 baseline runs) compare passes with a warning
that says which (on stderr, in the summary and in the JUnit file); --require-baseline makes it fail.
A history of another target or load shape (path, requests, scenarios, transport, connections, rate,
duration or amount) is not compared: exit 2, saying what differs.

exit status: 0 passed; 1 a threshold of a run failed; 3 a metric regressed; 7 no baseline and
--require-baseline; 2 bad flags or files, or a history of something else.

flags:
${flagsHelp(HISTORY_FLAGS)}
`;

type HistoryFlags = ParsedFlags<typeof HISTORY_FLAGS>['values'];

function testId(values: HistoryFlags, action: string): string {
  if (values.id === undefined)
    throw new UsageError(`salvo history ${action} needs --id TEST: the test the runs belong to`);
  return values.id;
}

/** `--fail 'latency.p99=10%'` (repeated) as margins; the defaults when none is given. */
function margins(values: string[] | undefined): Record<string, string | number> {
  return values === undefined ? { ...DEFAULT_MARGINS } : marginFlags(values);
}

async function results(paths: string[], action: string): Promise<LoadResult[]> {
  if (paths.length === 0)
    throw new UsageError(
      `salvo history ${action} takes the result files of the build's runs (salvo --json > run.json)`,
    );
  return Promise.all(paths.map((path) => readResultFile(path)));
}

function labels(values: HistoryFlags) {
  const ci = ciLabels();
  return {
    ...ci,
    ...(values.commit !== undefined ? { commit: values.commit } : {}),
    ...(values.branch !== undefined ? { branch: values.branch } : {}),
    ...(values.label !== undefined ? { label: values.label } : {}),
    ...(values.keep !== undefined ? { keep: integerFlag('--keep', values.keep, 1) } : {}),
  };
}

async function compare(values: HistoryFlags, positionals: string[], io: CommandIO): Promise<number> {
  const id = testId(values, 'compare');
  const dir = values.dir ?? '.salvo-history';
  const confidence = values.confidence === undefined ? {} : { confidence: confidenceFlag(values.confidence) };
  const reports = (values.report ?? []).map((report) => {
    const equals = report.indexOf('=');
    if (equals <= 0)
      throw new UsageError(
        `--report must look like TITLE=HREF, such as 'run 1=report-1.html'; got ${JSON.stringify(report)}`,
      );
    return { title: report.slice(0, equals), href: report.slice(equals + 1) };
  });
  for (const [flag, path] of [
    ['--junit', values.junit],
    ['--summary', values.summary],
  ] as const)
    if (path !== undefined) await checkWritable(flag, path);
  const stepSummary = await usableStepSummary(values.summary, io);
  const entries = values.entries === undefined ? {} : { entries: integerFlag('--entries', values.entries, 1) };
  const gated = margins(values.fail);
  const candidate = await results(positionals, 'compare');
  if (candidate.length < 2)
    throw new UsageError(
      `salvo history compare needs at least 2 runs of the build (one run has no variance to test); got ${candidate.length}`,
    );
  const comparison = await compareWithHistory(dir, id, candidate, {
    margins: gated,
    ...entries,
    ...confidence,
    ...(values['require-baseline'] === true ? { requireBaseline: true } : {}),
  });
  if (comparison.noBaseline !== undefined) {
    io.stderr.write(
      `salvo history: ${comparison.requireBaseline === true ? 'error' : 'warning'}: ${comparison.noBaseline.message}\n`,
    );
  }
  const outcome: GateOutcome = { testId: id, results: candidate, comparison, reports };
  const thresholdsFailed = candidate.some((result) => !result.ok);
  if (values.add === true) {
    // A build with nothing to compare with did not regress: it joins the baseline (else a required one never starts).
    const regressed = !comparison.ok && comparison.noBaseline === undefined;
    const entry = await addToHistory(dir, id, candidate, {
      ...labels(values),
      baseline: !regressed && !thresholdsFailed,
    });
    io.stderr.write(
      `salvo history: added ${entry.id}${entry.baseline ? '' : ' (not to the baseline: it failed; salvo history accept takes it in)'}\n`,
    );
  }
  if (values.junit !== undefined) await writeOutput(values.junit, formatJUnit(outcome), io);
  const summary = formatSummary(outcome);
  if (values.summary !== undefined || stepSummary) {
    const written = await writeSummary(summary, values.summary);
    if (written !== undefined) io.stderr.write(`salvo history: summary written to ${written}\n`);
  }
  io.stdout.write(values.json === true ? `${JSON.stringify(comparison, null, 2)}\n` : summary);
  if (thresholdsFailed) return EXIT.failed;
  if (comparison.noBaseline !== undefined && comparison.requireBaseline === true) return EXIT.noBaseline;
  return comparison.ok ? EXIT.ok : EXIT.regressed;
}

async function list(values: HistoryFlags, io: CommandIO): Promise<number> {
  const dir = values.dir ?? '.salvo-history';
  const ids = values.id === undefined ? await historyTestIds(dir) : [values.id];
  const all = await Promise.all(ids.map(async (id) => ({ id, entries: await readHistory(dir, id) })));
  if (values.json === true) {
    io.stdout.write(
      `${JSON.stringify(
        all.map(({ id, entries }) => ({
          testId: id,
          entries: entries.map(({ runs, ...entry }) => ({ ...entry, runs: runs.length })),
        })),
        null,
        2,
      )}\n`,
    );
    return EXIT.ok;
  }
  for (const { id, entries } of all) {
    const pool = new Set(baselineEntries(entries, Number.POSITIVE_INFINITY).map((entry) => entry.id));
    io.stdout.write(`${id}: ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}\n`);
    for (const entry of entries) {
      const p50 = entry.runs.reduce((sum, run) => sum + run.latency.p50, 0) / entry.runs.length;
      const mark =
        entry.acceptedAt !== undefined
          ? 'accepted'
          : pool.has(entry.id)
            ? 'baseline'
            : entry.baseline
              ? 'before accepted'
              : 'failed';
      io.stdout.write(
        `  ${entry.id}  ${[entry.branch, entry.label].filter(Boolean).join(' ') || '-'}  ${entry.runs.length} runs  p50 ${p50.toFixed(3)} ms  ${mark}\n`,
      );
    }
  }
  return EXIT.ok;
}

/** `salvo history add|compare|accept|list`: a baseline history for CI gates. */
export const historyCommand: Command = {
  name: 'history',
  summary: 'a baseline history for CI: add builds, gate a build on it (JUnit, Markdown), accept a change',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, HISTORY_FLAGS);
    const [action, ...rest] = positionals;
    if (values.help === true || action === undefined) {
      io.stdout.write(USAGE);
      return values.help === true ? EXIT.ok : EXIT.usage;
    }
    switch (action) {
      case 'add': {
        const entry = await addToHistory(
          values.dir ?? '.salvo-history',
          testId(values, 'add'),
          await results(rest, 'add'),
          labels(values),
        );
        io.stdout.write(`${entry.id}\n`);
        return EXIT.ok;
      }
      case 'compare':
        return compare(values, rest, io);
      case 'accept': {
        if (rest.length > 1)
          throw new UsageError(`salvo history accept takes one entry id or commit; got ${rest.length}`);
        const entry = await acceptInHistory(values.dir ?? '.salvo-history', testId(values, 'accept'), rest[0]);
        io.stdout.write(`accepted ${entry.id}: the baseline starts there\n`);
        return EXIT.ok;
      }
      case 'list':
        return list(values, io);
      case 'trend': {
        const id = testId(values, 'trend');
        if (values.html === undefined)
          throw new UsageError('salvo history trend needs --html FILE: where the trend report goes');
        await checkWritable('--html', values.html);
        const gated = margins(values.fail);
        await writeOutput(
          values.html,
          renderTrendReport(id, await readHistory(values.dir ?? '.salvo-history', id), { margins: gated }),
          io,
        );
        io.stderr.write(`salvo: trend report written to ${values.html}\n`);
        return EXIT.ok;
      }
      default:
        throw new UsageError(
          `salvo history ${JSON.stringify(action)}: the actions are add, compare, accept, list and trend`,
        );
    }
  },
};
