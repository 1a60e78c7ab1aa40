import { hostname } from 'node:os';
import { gateChecks, type GateCheck, type GateOutcome } from './outcome.js';

/** Text as XML 1.0 allows it in attributes and elements: markup escaped, characters it forbids dropped. */
function xml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

function testcase(check: GateCheck, classname: string): string {
  const open = `    <testcase name="${xml(check.name)}" classname="${xml(classname)}" time="0"`;
  if (check.skipped === true) return `${open}>\n      <skipped message="${xml(check.message)}"/>\n    </testcase>`;
  if (check.passed) return `${open}>\n      <system-out>${xml(check.message)}</system-out>\n    </testcase>`;
  const type = check.failure ?? (check.kind === 'thresholds' ? 'threshold' : 'regression');
  return `${open}>\n      <failure message="${xml(check.message)}" type="${type}">${xml(check.message)}</failure>\n    </testcase>`;
}

/**
 * The gate's outcome as JUnit XML, the format GitLab, Jenkins, Azure DevOps and GitHub's test
 * reporters read: per test id a `thresholds` suite (one test case per threshold of each run) and a
 * `regression` suite (one per compared metric; with no baseline, one skipped case whose message
 * starts `warning:` and says why, or a failure of type `baseline` when one was required), each
 * failure with its numbers in the message.
 */
export function formatJUnit(outcomes: GateOutcome | readonly GateOutcome[], timestamp = new Date()): string {
  const list = Array.isArray(outcomes) ? (outcomes as readonly GateOutcome[]) : [outcomes as GateOutcome];
  const suites: string[] = [];
  const totals = { tests: 0, failures: 0, skipped: 0, time: 0 };
  for (const outcome of list) {
    const checks = gateChecks(outcome);
    const seconds = (outcome.results ?? []).reduce((sum, result) => sum + result.durationMs / 1000, 0);
    for (const kind of ['thresholds', 'regression'] as const) {
      const cases = checks.filter((check) => check.kind === kind);
      if (cases.length === 0) continue;
      const failures = cases.filter((check) => !check.passed).length;
      const skipped = cases.filter((check) => check.skipped === true).length;
      const time = kind === 'thresholds' ? seconds : 0;
      totals.tests += cases.length;
      totals.failures += failures;
      totals.skipped += skipped;
      totals.time += time;
      const baseline = kind === 'regression' ? (outcome.comparison?.baseline ?? []) : [];
      const properties =
        baseline.length === 0
          ? ''
          : `    <properties>\n${baseline.map((entry) => `      <property name="baseline" value="${xml([entry.id, entry.commit, entry.branch].filter(Boolean).join(' '))}"/>`).join('\n')}\n    </properties>\n`;
      suites.push(
        `  <testsuite name="${xml(`${outcome.testId} ${kind}`)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" ` +
          `time="${time.toFixed(3)}" timestamp="${timestamp.toISOString().slice(0, 19)}" hostname="${xml(hostname())}">\n` +
          properties +
          `${cases.map((check) => testcase(check, `salvo.${outcome.testId}.${kind}`)).join('\n')}\n  </testsuite>`,
      );
    }
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="salvo" tests="${totals.tests}" failures="${totals.failures}" errors="0" skipped="${totals.skipped}" time="${totals.time.toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
