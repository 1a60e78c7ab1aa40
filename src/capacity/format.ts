import type { CapacityResult, CapacityStep } from './types.js';

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const ONE_DECIMAL = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const MS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** A step that timed nothing (no response) has no latency: NaN, shown as n/a, never as 0. */
const ms = (value: number): string => (Number.isFinite(value) ? MS.format(value) : 'n/a');

const COLUMNS = [
  'step',
  'phase',
  'target/s',
  'sent/s',
  'done/s',
  'p50 ms',
  'p99 ms',
  'p99 write',
  'errors',
  'missed',
  'verdict',
];

function verdict(step: CapacityStep): string {
  if (step.passed) return 'pass';
  if (step.limitedBy === undefined) return `stopped: ${step.failures.join('; ')}`;
  return `fail (${step.limitedBy}): ${step.failures.join('; ')}`;
}

/**
 * One step in a line, for progress as the search goes (`onStep`):
 * `step 3 bisect 1,500 req/s: pass (completed 1,491.0/s, p50 11.24 ms, p99 26.82 ms)`.
 */
export function formatCapacityStep(step: CapacityStep, index: number): string {
  return (
    `step ${index + 1} ${step.phase} ${COUNT.format(step.rate)} req/s: ${verdict(step)} ` +
    `(completed ${ONE_DECIMAL.format(step.achievedRate)}/s, p50 ${ms(step.p50)} ms, p99 ${ms(step.p99)} ms)`
  );
}

/**
 * A capacity search as plain text: the objective, one row per step (target, sent and completed
 * rate, corrected p50/p99, p99 from the write, error rate, missed slots, verdict and why), then the
 * answer in words. No colours, so it can go into a log.
 */
export function formatCapacity(result: CapacityResult): string {
  const objective = Object.entries(result.slo)
    .map(([metric, spec]) => {
      const expressions = typeof spec === 'object' && !Array.isArray(spec) ? spec.threshold : spec;
      return `${metric} ${[expressions].flat().join(` and ${metric} `)}`;
    })
    .join(', ');
  const rows = result.steps.map((step, index) => [
    String(index + 1),
    step.phase,
    COUNT.format(step.rate),
    ONE_DECIMAL.format(step.sentRate),
    ONE_DECIMAL.format(step.achievedRate),
    ms(step.p50),
    ms(step.p99),
    ms(step.p99Uncorrected),
    step.errorRate === 0 ? '0' : `${MS.format(step.errorRate * 100)}%`,
    COUNT.format(step.missed),
    verdict(step),
  ]);
  const table = [COLUMNS, ...rows];
  const widths = COLUMNS.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  const lines = [
    `Capacity search ${result.url}: SLO ${objective}, precision ${+(result.precision * 100).toFixed(2)}%`,
    '',
    ...table.map((row) =>
      row
        .map((cell, column) => {
          if (column === row.length - 1) return cell;
          return column === 1 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!);
        })
        .join('  '),
    ),
    '',
  ];
  const answer =
    result.capacity === undefined
      ? 'none found'
      : `${COUNT.format(result.capacity)} req/s${result.confirmed ? ', confirmed' : ', not confirmed'}`;
  lines.push(`Capacity      ${answer} (limited by ${result.limitedBy})`, result.message);
  return lines.join('\n');
}
