// The numbers, units and aligned rows of the text summary (`formatResult`) and its threshold lines.

// A fixed locale: a summary pasted in a CI log or an issue must read the same on every machine.
export const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export const TWO_DECIMALS = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

const THREE_DECIMALS = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 3,
  maximumFractionDigits: 3,
});

const ONE_DECIMAL = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

export const RATIO = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 });

const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];

/** Width of the label column of the summary, so values line up. */
const LABEL_WIDTH = 14;

/** The first column left-aligned, the others right-aligned, two spaces apart. */
export function alignColumns(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((r) => r[column]!.length)));
  return rows.map((r) =>
    r.map((cell, column) => (column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!))).join('  '),
  );
}

export function formatPercent(percent: number): string {
  return `${percent < 10 ? ONE_DECIMAL.format(percent) : COUNT.format(percent)}%`;
}

export function passedFailed(counts: { passed: number; failed: number }): string {
  return `${COUNT.format(counts.passed)} passed, ${COUNT.format(counts.failed)} failed`;
}

export function row(label: string, value: string): string {
  return `${label.padEnd(LABEL_WIDTH)}${value}`;
}

/** Milliseconds: 3 decimals below 10 ms (where microseconds matter), 2 above. */
export function formatMs(ms: number | null): string {
  if (ms === null || Number.isNaN(ms)) return 'n/a';
  return Math.abs(ms) < 10 ? THREE_DECIMALS.format(ms) : TWO_DECIMALS.format(ms);
}

export function formatDuration(ms: number): string {
  return ms >= 1000 ? `${TWO_DECIMALS.format(ms / 1000)} s` : `${formatMs(ms)} ms`;
}

/** Decimal (SI) units, as network throughput is usually quoted. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 999.995 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${COUNT.format(value)} B` : `${TWO_DECIMALS.format(value)} ${BYTE_UNITS[unit]}`;
}

export function plural(count: number, noun: string): string {
  return `${COUNT.format(count)} ${noun}${count === 1 ? '' : 's'}`;
}
