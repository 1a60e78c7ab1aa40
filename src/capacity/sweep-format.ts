import type { SweepPoint, SweepResult } from './sweep-types.js';

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const ONE_DECIMAL = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const MS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** A point that timed nothing has no latency: NaN, shown as n/a, never as 0. */
const ms = (value: number | undefined): string =>
  value !== undefined && Number.isFinite(value) ? MS.format(value) : 'n/a';

function unit(result: Pick<SweepResult, 'over'>): string {
  return result.over === 'rate' ? 'req/s' : 'connections';
}

/**
 * One point in a line, for progress as the sweep goes (`onPoint`):
 * `point 3 400 req/s: 351.2/s, p50 1.20 ms, p99 310.44 ms, saturated (completed 351.2/s, under 90% of the target)`.
 */
export function formatSweepPoint(point: SweepPoint, index: number, over: SweepResult['over']): string {
  const goodput = point.goodput === undefined ? '' : `, goodput ${ONE_DECIMAL.format(point.goodput)}/s`;
  return (
    `point ${index + 1} ${COUNT.format(point.load)} ${unit({ over })}: ${ONE_DECIMAL.format(point.throughput)}/s${goodput}, ` +
    `p50 ${ms(point.p50)} ms, p99 ${ms(point.p99)} ms${point.saturated ? `, saturated (${point.why ?? ''})` : ''}`
  );
}

/**
 * A sweep as plain text: one row per point (load, sent and successful rate, goodput with an `slo`,
 * p50/p90/p99, TTFT p99 and TPOT p50 when the responses were token streams, errors), the knee marked
 * with `<- knee`, then the outcome in words. No colours, so it can go into a log.
 */
export function formatSweep(result: SweepResult): string {
  const goodput = result.points.some((point) => point.goodput !== undefined);
  const tokens = result.points.some((point) => point.result.stream?.ttft != null);
  const head = [
    result.over === 'rate' ? 'target/s' : 'conns',
    'sent/s',
    'ok/s',
    ...(goodput ? ['goodput/s'] : []),
    'p50 ms',
    'p90 ms',
    'p99 ms',
    ...(tokens ? ['TTFT p99', 'TPOT p50'] : []),
    'errors',
    '',
  ];
  const rows = result.points.map((point, index) => [
    COUNT.format(point.load),
    ONE_DECIMAL.format(point.sentRate),
    ONE_DECIMAL.format(point.throughput),
    ...(goodput ? [point.goodput === undefined ? 'n/a' : ONE_DECIMAL.format(point.goodput)] : []),
    ms(point.p50),
    ms(point.p90),
    ms(point.p99),
    ...(tokens ? [ms(point.result.stream?.ttft?.p99), ms(point.result.stream?.tpot?.p50)] : []),
    point.errorRate === 0 ? '0' : `${MS.format(point.errorRate * 100)}%`,
    index === result.knee ? '<- knee' : point.saturated ? 'saturated' : '',
  ]);
  const table = [head, ...rows];
  const widths = head.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  const lines = [
    `Sweep ${result.url} over ${result.over === 'rate' ? 'rates' : 'connections'}: ${result.loads.map((load) => COUNT.format(load)).join(', ')} ${unit(result)}`,
    '',
    ...table.map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padStart(widths[column]!)))
        .join('  ')
        .trimEnd(),
    ),
    '',
    result.message,
  ];
  return lines.join('\n');
}
