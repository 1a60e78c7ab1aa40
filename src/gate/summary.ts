import { appendFile, writeFile } from 'node:fs/promises';
import { SalvoOptionError } from '../shared/errors.js';
import { gateChecks, type GateOutcome } from './outcome.js';

/** A table cell: pipes and line breaks would end the cell or the row. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/**
 * The gate's verdict as Markdown, as a CI job's summary page shows it: per test a heading with the
 * verdict, a table of every check (threshold or compared metric) with its numbers, and links to the
 * HTML reports.
 */
export function formatSummary(outcomes: GateOutcome | readonly GateOutcome[]): string {
  const list = Array.isArray(outcomes) ? (outcomes as readonly GateOutcome[]) : [outcomes as GateOutcome];
  const sections = list.map((outcome) => {
    const checks = gateChecks(outcome);
    const metrics = new Set((outcome.comparison?.metrics ?? []).map((metric) => metric.metric));
    const failed = checks.filter((check) => !check.passed);
    const warned = checks.filter((check) => check.warning === true);
    const what = failed.some((check) => check.failure === 'baseline')
      ? 'no baseline'
      : failed.some((check) => check.kind === 'regression')
        ? 'regressed'
        : 'threshold failed';
    const verdict =
      failed.length === 0
        ? warned.length === 0
          ? '✅ passed'
          : '⚠️ passed without a baseline'
        : `❌ ${what}: ${failed.map((check) => check.name).join(', ')}`;
    const lines = [`### salvo: ${cell(outcome.testId)} ${verdict}`, ''];
    for (const check of warned) lines.push(`> ⚠️ ${cell(check.message)}`, '');
    if (checks.length > 0) {
      lines.push('| check | verdict | numbers |', '|---|---|---|');
      for (const check of checks) {
        const mark =
          check.skipped === true
            ? check.warning === true
              ? '⚠️ skipped'
              : '⏭️ skipped'
            : check.passed
              ? '✅ passed'
              : '❌ failed';
        const what = metrics.has(check.name) ? `${check.name} against the history` : check.name;
        lines.push(`| \`${cell(what)}\` | ${mark} | ${cell(check.message)} |`);
      }
      lines.push('');
    }
    if (outcome.reports !== undefined && outcome.reports.length > 0) {
      lines.push(
        `Reports: ${outcome.reports.map((report) => `[${cell(report.title)}](${encodeURI(report.href)})`).join(' · ')}`,
        '',
      );
    }
    return lines.join('\n');
  });
  return `${sections.join('\n')}\n`;
}

/**
 * Writes the summary to `file`, or else appends it to `$GITHUB_STEP_SUMMARY` (GitHub Actions shows
 * that file on the run's page; other steps append to it too, so `file` is appended to as well when it
 * is that one). Resolves with where it went, or undefined when there was neither.
 * @throws SalvoOptionError naming the file and where it came from (`file` or `GITHUB_STEP_SUMMARY`)
 * when it cannot be written (a missing folder, no permission), with the system's reason.
 */
export async function writeSummary(
  markdown: string,
  file?: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const step = env.GITHUB_STEP_SUMMARY === '' ? undefined : env.GITHUB_STEP_SUMMARY;
  const target = file ?? step;
  if (target === undefined) return undefined;
  const append = target === step;
  try {
    await (append ? appendFile(target, markdown) : writeFile(target, markdown));
  } catch (error) {
    const from = file === undefined ? 'GITHUB_STEP_SUMMARY' : 'file';
    throw new SalvoOptionError(
      `cannot write the summary to ${target} (${from === 'file' ? 'the file given' : '$GITHUB_STEP_SUMMARY'}): ${(error as Error).message}`,
      { option: from, value: target, cause: error },
    );
  }
  return target;
}
