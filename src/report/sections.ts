import { formatThresholdActual } from '../stats/format.js';
import type { LatencyStats, LoadResult } from '../shared/load-result.js';

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const DECIMAL = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const FINE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function ms(value: number): string {
  return Number.isFinite(value) ? `${(Math.abs(value) < 10 ? FINE : DECIMAL).format(value)} ms` : 'n/a';
}

function number(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return Number.isInteger(value) ? COUNT.format(value) : (Math.abs(value) < 10 ? FINE : DECIMAL).format(value);
}

function bytes(value: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) [value, unit] = [value / 1000, unit + 1];
  return `${(unit === 0 ? COUNT : DECIMAL).format(value)} ${units[unit]}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function table(head: string[], rows: string[][], className = ''): string {
  const cells = (row: string[], tag: string) => row.map((cell) => `<${tag}>${cell}</${tag}>`).join('');
  return `<table class="${className}"><thead><tr>${cells(head, 'th')}</tr></thead><tbody>${rows
    .map((row) => `<tr>${cells(row, 'td')}</tr>`)
    .join('')}</tbody></table>`;
}

function section(title: string, body: string, id: string): string {
  return `<section id="${id}"><h2>${escapeHtml(title)}</h2>${body}</section>`;
}

/** Network errors are not responses: a card that reads 0 says how many responses were not 2xx. */
function errorsNote(result: LoadResult, errorRate: number): string | undefined {
  const notOk = Object.entries(result.statusCodes).reduce((sum, [code, count]) => (code.startsWith('2') ? sum : sum + count), 0);
  const notes = [];
  if (result.errors.total > 0) notes.push(`${DECIMAL.format(errorRate * 100)}% of requests`);
  if (notOk > 0) notes.push(`${number(notOk)} non-2xx responses`);
  return notes.length === 0 ? undefined : notes.join(', ');
}

/** The headline numbers, as cards. */
export function summaryCards(result: LoadResult): string {
  const completed = result.requests.completed;
  const errorRate = completed + result.errors.total === 0 ? 0 : result.errors.total / (completed + result.errors.total);
  const seconds = result.durationMs / 1000;
  const cards: Array<[string, string, string?]> = [
    ['requests/s', number(result.requests.perSecond)],
    ['p50', ms(result.latency.p50)],
    ['p99', ms(result.latency.p99)],
    ['max', ms(result.latency.max)],
    ['errors', number(result.errors.total), errorsNote(result, errorRate)],
    ['completed', number(completed), `of ${number(result.requests.sent)} sent${(result.requests.retried ?? 0) > 0 ? `, ${number(result.requests.retried)} retried` : ''}`],
    ['received', bytes(result.bytes.received), seconds > 0 ? `${bytes(result.bytes.received / seconds)}/s` : undefined],
  ];
  return `<div class="cards">${cards
    .map(([label, value, note]) => `<div class="card"><div class="label">${label}</div><div class="value">${escapeHtml(value)}</div>${note === undefined ? '' : `<div class="note">${escapeHtml(note)}</div>`}</div>`)
    .join('')}</div>`;
}

/** `result.warnings`, first on the page when there are any. */
export function warningsSection(result: LoadResult): string {
  const warnings = Array.isArray(result.warnings) ? result.warnings : [];
  if (warnings.length === 0) return '';
  const items = warnings.map((w) => `<li><code>${escapeHtml(String(w.code))}</code> ${escapeHtml(String(w.message))}</li>`);
  return section('Warnings', `<ul class="warnings">${items.join('')}</ul>`, 'warnings');
}

export function thresholdsSection(result: LoadResult): string {
  if (result.thresholds === undefined || result.thresholds.length === 0) return '';
  const rows = result.thresholds.map((t) => [
    t.passed ? '<span class="pass">✓ passed</span>' : '<span class="fail">✗ failed</span>',
    `<code>${escapeHtml(`${t.metric} ${t.expression}`)}</code>`,
    formatThresholdActual(t.metric, t.actual),
  ]);
  return section('Thresholds', table(['', 'threshold', 'actual'], rows), 'thresholds');
}

/** Status codes and errors by code, each with a bar proportional to its share of the responses. */
export function responsesSection(result: LoadResult): string {
  const entries: Array<[string, number, string]> = [
    ...Object.entries(result.statusCodes)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([code, count]): [string, number, string] => [code, count, `s${code[0]}xx`]),
    ...Object.entries(result.errors.byCode)
      .sort(([, a], [, b]) => b - a)
      .map(([code, count]): [string, number, string] => [code, count, 'error']),
  ];
  if (entries.length === 0) return section('Responses', '<p>No responses and no errors.</p>', 'responses');
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  const rows = entries.map(([label, count, kind]) => [
    `<code>${escapeHtml(label)}</code>`,
    number(count),
    `${DECIMAL.format((count / total) * 100)}%`,
    `<div class="bar ${kind}" style="width:${((count / total) * 100).toFixed(2)}%"></div>`,
  ]);
  return section('Status codes and errors', table(['code', 'count', 'share', ''], rows, 'bars'), 'responses');
}

const LATENCY_FIELDS: ReadonlyArray<keyof LatencyStats> = ['min', 'p50', 'p75', 'p90', 'p95', 'p99', 'p999', 'max', 'mean', 'stddev'];

export function latencySection(result: LoadResult): string {
  const row = (label: string, stats: LatencyStats) => [label, ...LATENCY_FIELDS.map((f) => ms(stats[f]))];
  const rows = [row(result.rate === undefined ? 'latency' : 'corrected', result.latency)];
  if (LATENCY_FIELDS.some((f) => result.latencyUncorrected[f] !== result.latency[f])) {
    rows.push(row('uncorrected', result.latencyUncorrected));
  }
  return section('Latency', table(['', ...LATENCY_FIELDS.map((f) => (f === 'p999' ? 'p99.9' : f))], rows, 'numbers'), 'latency');
}

const PHASE_ORDER = ['connect', 'tls', 'ttfb', 'receive'];
const PHASE_FIELDS = ['count', 'min', 'mean', 'p50', 'p90', 'p99', 'max'];

/** `result.phases` (connect, tls, ttfb, receive), when the run recorded them. */
export function phasesSection(result: LoadResult): string {
  const phases = (result as { phases?: unknown }).phases;
  if (!isRecord(phases)) return '';
  const names = Object.keys(phases)
    // A phase measured zero times (tls on http:) would only be a row of zeros.
    .filter((name) => isRecord(phases[name]) && (phases[name] as Record<string, unknown>).count !== 0)
    .sort((a, b) => (PHASE_ORDER.indexOf(a) + 1 || 99) - (PHASE_ORDER.indexOf(b) + 1 || 99));
  if (names.length === 0) return '';
  const fields = PHASE_FIELDS.filter((f) => names.some((name) => typeof (phases[name] as Record<string, unknown>)[f] === 'number'));
  const rows = names.map((name) => {
    const phase = phases[name] as Record<string, unknown>;
    return [name, ...fields.map((f) => (typeof phase[f] !== 'number' ? '' : f === 'count' ? number(phase[f]) : ms(phase[f])))];
  });
  return section('Phases', table(['phase', ...fields], rows, 'numbers'), 'phases');
}

/** Flattens `{ sendLag: { p99: 1 } }` into `['sendLag.p99', 1]` rows. */
function flatten(prefix: string, value: unknown, out: Array<[string, unknown]>): void {
  if (isRecord(value)) for (const [key, inner] of Object.entries(value)) flatten(prefix === '' ? key : `${prefix}.${key}`, inner, out);
  else out.push([prefix, value]);
}

/** `result.generator` (the load generator's own CPU and event loop), when the run measured it. */
export function generatorSection(result: LoadResult): string {
  const generator = (result as { generator?: unknown }).generator;
  if (!isRecord(generator)) return '';
  const fields: Array<[string, unknown]> = [];
  flatten('', generator, fields);
  const rows = fields.map(([name, value]) => {
    let shown: string;
    if (typeof value === 'boolean') shown = value ? `<span class="${name === 'saturated' ? 'fail' : 'pass'}">yes</span>` : 'no';
    else if (typeof value === 'number') shown = /Ms$|^sendLag\./.test(name) ? ms(value) : number(value);
    else shown = escapeHtml(JSON.stringify(value) ?? '');
    return [`<code>${escapeHtml(name)}</code>`, shown];
  });
  return section('Load generator', table(['', ''], rows, 'keyvalue'), 'generator');
}

export function checksSection(result: LoadResult): string {
  const checks = result.checks;
  if (checks === undefined) return '';
  const rows = Object.entries(checks.byName).map(([name, counts]) => [
    `<code>${escapeHtml(name)}</code>`,
    number(counts.passed),
    counts.failed > 0 ? `<span class="fail">${number(counts.failed)}</span>` : '0',
  ]);
  const examples = checks.examples.map((e) => `<li>${escapeHtml(e.message)}</li>`).join('');
  return section('Checks', table(['check', 'passed', 'failed'], rows, 'numbers') + (examples === '' ? '' : `<ul class="examples">${examples}</ul>`), 'checks');
}
