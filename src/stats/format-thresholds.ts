// The text of checks and thresholds: the summary's sections, and the words the gate, the reports and
// capacity search use for a threshold.
import type { CheckStats, ThresholdResult } from '../shared/load-result.js';
import { COUNT, formatMs, passedFailed, RATIO, row, TWO_DECIMALS } from './format-numbers.js';

/** A threshold as written, with its window when it has one: `latency.p99 < 50 (every 10 s window)`. */
export function thresholdLabel(t: ThresholdResult): string {
  return `${t.metric} ${t.expression}${t.windows === undefined ? '' : ` (every ${t.windows.durationMs / 1000} s window)`}`;
}

/** How a windowed threshold's windows fared: `worst window; 7 of 21 windows failed, the first seconds 8-18`. */
export function formatThresholdWindows(t: ThresholdResult): string {
  const windows = t.windows;
  if (windows === undefined) return '';
  const first = windows.failed[0];
  return first === undefined
    ? `worst of ${windows.judged} window${windows.judged === 1 ? '' : 's'}`
    : `worst window; ${windows.failed.length} of ${windows.judged} window${windows.judged === 1 ? '' : 's'} failed, the first seconds ${first.from}-${first.to}`;
}

/**
 * A threshold's actual value as the summary and `assertThresholds` print it: latencies and
 * durations in ms, rates with up to 4 decimals, counts with thousands separators, `no data` when the
 * metric had no value.
 */
export function formatThresholdActual(metric: string, actual: number | null): string {
  // NaN in memory, null from JSON: the metric had no value (nothing timed, a rate over nothing).
  if (actual === null || Number.isNaN(actual)) return 'no data';
  if (
    metric.startsWith('latency') ||
    (/^stream\.\w+\.\w+$/.test(metric) && !metric.startsWith('stream.subscriptions.')) ||
    metric === 'durationMs' ||
    metric === 'server.cpuPerRequestMs' ||
    metric === 'server.eventLoopLagMs'
  ) {
    return `${formatMs(actual)} ms`;
  }
  if (metric.endsWith('.rate')) {
    // A tiny error rate must not print as 0 next to a threshold such as '< 0.00001'.
    return actual !== 0 && Math.abs(actual) < 0.0001 ? actual.toPrecision(3) : RATIO.format(actual);
  }
  return Number.isInteger(actual) ? COUNT.format(actual) : TWO_DECIMALS.format(actual);
}

export function checks(stats: CheckStats): string[] {
  const total = stats.passed + stats.failed;
  const share = total === 0 ? '' : ` (${TWO_DECIMALS.format((stats.passed / total) * 100)}% passed)`;
  const lines = [row('Checks', `${passedFailed(stats)}${share}`)];
  const names = Object.keys(stats.byName);
  const nameWidth = Math.max(0, ...names.map((n) => n.length));
  for (const name of names) {
    const counts = stats.byName[name]!;
    lines.push(`  ${name.padEnd(nameWidth)}  ${passedFailed(counts)}`);
  }
  for (const example of stats.examples) lines.push(`  ✗ ${example.message}`);
  return lines;
}

export function thresholds(results: ThresholdResult[]): string[] {
  const failed = results.filter((t) => !t.passed).length;
  const lines = [
    row('Thresholds', failed === 0 ? `all ${results.length} passed` : `${failed} of ${results.length} failed`),
  ];
  const labels = results.map(thresholdLabel);
  const width = Math.max(...labels.map((l) => l.length));
  results.forEach((t, i) => {
    const actual = formatThresholdActual(t.metric, t.actual);
    const windows = formatThresholdWindows(t);
    const detail = t.message ?? `actual ${actual}${windows === '' ? '' : ` (${windows})`}`;
    lines.push(`  ${t.passed ? '✓' : '✗'} ${labels[i]!.padEnd(width)}  ${detail}`);
  });
  return lines;
}
