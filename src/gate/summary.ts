import { appendFile, writeFile } from 'node:fs/promises';
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
    const failed = checks.filter((check) => !check.passed);
    const verdict = failed.length === 0
      ? '✅ passed'
      : `❌ ${failed.some((check) => check.kind === 'regression') ? 'regressed' : 'threshold failed'}: ${failed.map((check) => check.name).join(', ')}`;
    const lines = [`### salvo: ${cell(outcome.testId)} ${verdict}`, ''];
    if (checks.length > 0) {
      lines.push('| check | verdict | numbers |', '|---|---|---|');
      for (const check of checks) {
        const mark = check.skipped === true ? '⏭️ skipped' : check.passed ? '✅ passed' : '❌ failed';
        const what = check.kind === 'regression' && check.skipped !== true ? `${check.name} against the history` : check.name;
        lines.push(`| \`${cell(what)}\` | ${mark} | ${cell(check.message)} |`);
      }
      lines.push('');
    }
    if (outcome.reports !== undefined && outcome.reports.length > 0) {
      lines.push(`Reports: ${outcome.reports.map((report) => `[${cell(report.title)}](${encodeURI(report.href)})`).join(' · ')}`, '');
    }
    return lines.join('\n');
  });
  return `${sections.join('\n')}\n`;
}

/**
 * Writes the summary to `file`, or else appends it to `$GITHUB_STEP_SUMMARY` (GitHub Actions shows
 * that file on the run's page; other steps append to it too, so `file` is appended to as well when it
 * is that one). Resolves with where it went, or undefined when there was neither.
 */
export async function writeSummary(markdown: string, file?: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (file !== undefined && file !== env.GITHUB_STEP_SUMMARY) {
    await writeFile(file, markdown);
    return file;
  }
  const step = file ?? env.GITHUB_STEP_SUMMARY;
  if (step === undefined || step === '') return undefined;
  await appendFile(step, markdown);
  return step;
}

