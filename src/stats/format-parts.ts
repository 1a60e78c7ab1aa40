import type { LoadResult } from '../shared/load-result.js';

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const TWO_DECIMALS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** The numbers of one row: a name's or a scenario's (a scenario's target rate, when it has one). */
interface Part {
  rate?: number | undefined;
  requests: { sent: number; completed: number; perSecond: number };
  latency: { p50: number; p99: number };
  errors: { total: number };
  statusCodes: Record<string, number>;
}

const ms = (value: number) => `${TWO_DECIMALS.format(value)} ms`;

function statuses(codes: Record<string, number>): string {
  const entries = Object.entries(codes);
  return entries.length === 0 ? '-' : entries.map(([code, count]) => `${code}: ${COUNT.format(count)}`).join(', ');
}

/**
 * Whether the run's target rate is a target of all of it: a run of scenarios some of which are
 * closed loops has none (its open-loop scenarios' targets are theirs, in the table of scenarios).
 */
export function wholeTarget(result: Pick<LoadResult, 'byScenario'>): boolean {
  return result.byScenario === undefined || Object.values(result.byScenario).every((part) => part.rate !== undefined);
}

/** One table, a row per part: requests/s (the target, when a part has one), p50, p99, sent, completed, errors, statuses. */
function table(heading: string, parts: Record<string, Part>): string[] {
  const targets = Object.values(parts).some((part) => part.rate !== undefined);
  const target = targets ? ['Target/s'] : [];
  const header = [heading, 'Req/s', ...target, 'p50', 'p99', 'Sent', 'Completed', 'Errors', 'Status codes'];
  const rows = Object.entries(parts).map(([key, part]) => [
    key,
    TWO_DECIMALS.format(part.requests.perSecond),
    ...(targets ? [part.rate === undefined ? '-' : COUNT.format(part.rate)] : []),
    ms(part.latency.p50),
    ms(part.latency.p99),
    COUNT.format(part.requests.sent),
    COUNT.format(part.requests.completed),
    COUNT.format(part.errors.total),
    statuses(part.statusCodes),
  ]);
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)));
  // Names left-aligned, numbers right-aligned; the last column runs free.
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[0]!) : column === cells.length - 1 ? cell : cell.padStart(widths[column]!),
      )
      .join('  ');
  return [line(header), ...rows.map(line)];
}

/**
 * The summary's tables of a run's parts: one row per scenario (`byScenario`), and one per request
 * name (`byName`) when there are several (a single name is the run itself).
 */
export function partTables(result: LoadResult): string[] {
  const lines: string[] = [];
  if (result.byScenario !== undefined) lines.push('', ...table('Scenario', result.byScenario));
  if (result.byName !== undefined && Object.keys(result.byName).length > 1)
    lines.push('', ...table('Name', result.byName));
  return lines.length === 0 ? lines : [...lines, ''];
}
