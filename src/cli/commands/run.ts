import { createRequire } from 'node:module';
import { formatResult, runLoad, toVllmJson } from '../../index.js';
import { formatJUnit, formatSummary, writeSummary } from '../../gate/index.js';
import { renderReport } from '../../report/index.js';
import { checkWritable, EXIT, runExitStatus, writeOutput, type Command } from '../command.js';
import { ProgressLine } from '../progress-line.js';
import { parseRunFlags, RUN_USAGE, withPlannedLength } from '../run-flags.js';
import { importLoadFile, overrideWithFlags } from '../load-file.js';
import { usableStepSummary } from '../step-summary.js';

function version(): string {
  // The package's own package.json, by self-reference: the same from src/ under tsx and from dist/.
  return (createRequire(import.meta.url)('salvo/package.json') as { version: string }).version;
}

/**
 * `salvo URL [flags]` (also `salvo run URL`): one load test, progress on stderr, the summary or the
 * JSON result on stdout. Ctrl-C ends the run early and prints the partial result, exit 130 (so that a
 * script tells it from a complete run); a second one exits at once.
 */
export const runCommand: Command = {
  name: 'run',
  summary: 'load-test a URL (the default: salvo URL [flags])',
  usage: RUN_USAGE,
  async run(args, io) {
    const invocation = parseRunFlags(args);
    if (invocation.help) {
      io.stdout.write(RUN_USAGE);
      return EXIT.ok;
    }
    if (invocation.version) {
      io.stdout.write(`${version()}\n`);
      return EXIT.ok;
    }
    if (invocation.loadFile !== undefined) {
      invocation.options = overrideWithFlags(await importLoadFile(invocation.loadFile), invocation.options);
      withPlannedLength(invocation);
    }
    for (const [flag, path] of [
      ['--html', invocation.html],
      ['--vllm-json', invocation.vllmJson],
      ['--junit', invocation.junit],
      ['--summary', invocation.summary],
    ] as const) {
      if (path !== undefined) await checkWritable(flag, path);
    }
    // In a GitHub Actions step the verdict goes to the step's summary page whether or not --summary is given.
    const stepSummary = await usableStepSummary(invocation.summary, io);
    const progress = invocation.quiet ? undefined : new ProgressLine(io.stderr, invocation);
    const controller = new AbortController();
    const interrupt = () => {
      if (controller.signal.aborted) process.exit(130);
      progress?.end();
      io.stderr.write('salvo: stopping (Ctrl-C again to quit at once)\n');
      controller.abort();
    };
    process.on('SIGINT', interrupt);
    let result;
    try {
      const { live } = invocation.options;
      // The page's address before the first progress line: the user opens it while the run goes.
      const onLive = ({ url }: { url: string }) => void io.stderr.write(`salvo: live page at ${url}\n`);
      result = await runLoad({
        ...invocation.options,
        ...(live === undefined ? {} : { live: { ...live, onLive } }),
        signal: controller.signal,
        onProgress: progress?.update,
      });
    } finally {
      process.off('SIGINT', interrupt);
      progress?.end();
    }
    // The result first: a report that cannot be written after all must not take the run with it.
    io.stdout.write(invocation.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatResult(result)}\n`);
    if (invocation.html !== undefined) {
      await writeOutput(invocation.html, renderReport(result), io);
      io.stderr.write(`salvo: report written to ${invocation.html}\n`);
    }
    if (invocation.vllmJson !== undefined) {
      await writeOutput(invocation.vllmJson, `${JSON.stringify(toVllmJson(result), null, 2)}\n`, io);
      io.stderr.write(`salvo: vLLM JSON written to ${invocation.vllmJson}\n`);
    }
    const outcome = {
      testId: result.url,
      results: [result],
      ...(invocation.html === undefined ? {} : { reports: [{ title: 'report', href: invocation.html }] }),
    };
    if (invocation.junit !== undefined) await writeOutput(invocation.junit, formatJUnit(outcome), io);
    if (invocation.summary !== undefined || stepSummary) await writeSummary(formatSummary(outcome), invocation.summary);
    if (controller.signal.aborted) {
      io.stderr.write(
        `salvo: interrupted: the result above covers ${(result.durationMs / 1000).toFixed(1)} s of the run, not all of it\n`,
      );
      return EXIT.interrupted;
    }
    return runExitStatus(result);
  },
};
