import { formatThresholdActual, formatThresholdWindows, thresholdLabel, noLatencyReason } from '../stats/format.js';
import { socketIoNothingSent } from '../stats/socketio-words.js';
import type { LatencyStats, LoadResult } from '../shared/load-result.js';
import { bytes, cards, escapeHtml, isRecord, ms, number, percent, section, table } from './html.js';
import { runWords, successfulStatus, type RunWords } from './words.js';
import { resultKind } from '../shared/run-kind.js';

/** Responses that are not a success in the run's protocol (a `101` handshake is one). */
function unsuccessful(result: LoadResult, words: RunWords): number {
  return Object.entries(result.statusCodes ?? {}).reduce(
    (sum, [code, count]) => (successfulStatus(code, words) ? sum : sum + count),
    0,
  );
}

/** Network errors are not responses: the errors card says how many responses or handshakes failed too. */
function errorsNote(result: LoadResult, words: RunWords): string | undefined {
  const completed = result.requests.completed;
  const notes = [];
  if (result.errors.total > 0 && !words.handshakes)
    notes.push(`${percent(result.errors.total / (completed + result.errors.total))} of requests`);
  const failed = unsuccessful(result, words);
  if (failed > 0)
    notes.push(words.handshakes ? `${number(failed)} handshakes refused` : `${number(failed)} non-2xx responses`);
  return notes.length === 0 ? undefined : notes.join(', ');
}

function completedNote(result: LoadResult): string {
  const notes = [`of ${number(result.requests.sent)} sent`];
  if ((result.requests.retried ?? 0) > 0) notes.push(`${number(result.requests.retried)} retried`);
  if ((result.requests.missed ?? 0) > 0) notes.push(`${number(result.requests.missed)} missed`);
  if ((result.requests.unfinished ?? 0) > 0)
    notes.push(`${number(result.requests.unfinished)} unfinished (no answer by the end)`);
  if (result.requests.warmup !== undefined)
    notes.push(`${number(result.requests.warmup)} more in the warm-up, not measured`);
  return notes.join(', ');
}

/** Failed requests (errors and statuses the run does not accept), k6's http_req_failed, beside errors. */
function failedCard(result: LoadResult): [string, string, string?] {
  // A result saved before `failed` existed.
  if (result.failed === undefined) return ['failed', 'n/a'];
  const ended = result.requests.completed + result.errors.total;
  return [
    'failed',
    number(result.failed.total),
    ended > 0 ? `${percent(result.failed.total / ended)} of requests` : undefined,
  ];
}

/** The headline numbers, as cards, in the run's words. */
export function summaryCards(result: LoadResult): string {
  const words = runWords(result);
  const seconds = result.durationMs / 1000;
  const received: [string, string, string?] = [
    'bytes received',
    bytes(result.bytes.received),
    seconds > 0 ? `${bytes(result.bytes.received / seconds)}/s` : undefined,
  ];
  const latency: Array<[string, string]> = [
    ['p50', ms(result.latency.p50)],
    ['p99', ms(result.latency.p99)],
    ['max', ms(result.latency.max)],
  ];
  const errors: [string, string, string?] = ['errors', number(result.errors.total), errorsNote(result, words)];
  // SSE subscriptions: each request is a stream held for the run, so no requests/s or latency of
  // them means anything; the stream cards below have the run's figures.
  if (result.stream?.subscriptions != null) return cards([errors, received]);
  if (!words.handshakes) {
    return cards([
      ['requests/s', number(result.requests.perSecond)],
      ...latency,
      failedCard(result),
      errors,
      ['completed', number(result.requests.completed), completedNote(result)],
      received,
    ]);
  }
  const messages = result.messages ?? {
    sent: result.requests.sent,
    received: result.requests.completed,
    perSecond: result.requests.perSecond,
  };
  const accepted = result.statusCodes?.['101'] ?? 0;
  const closes = Object.values(result.websocket?.closeCodes ?? {}).reduce((sum, count) => sum + count, 0);
  const socketIo = resultKind(result) === 'socketio';
  return cards([
    ['messages/s', number(messages.perSecond), 'received'],
    ...latency,
    errors,
    [
      'received',
      number(messages.received),
      messages.sent > 0
        ? `${number(messages.sent)} messages sent`
        : (socketIoNothingSent(result) ?? 'listen only: none sent'),
    ],
    // A Socket.IO connection counts as opened (101) once its namespace accepted it.
    [
      socketIo ? 'connects' : 'handshakes',
      number(accepted),
      closes > 0
        ? `accepted; ${number(closes)} closed by the server or network`
        : socketIo
          ? 'accepted by the namespace'
          : 'accepted (101)',
    ],
    received,
  ]);
}

/** `errors.samples`: the exceptions the user's own hooks threw, near the top (a bug in a hook is not the server's). */
export function errorSamplesSection(result: LoadResult): string {
  const samples = Array.isArray(result.errors?.samples) ? result.errors.samples : [];
  if (samples.length === 0) return '';
  const items = samples.map(
    (sample) =>
      `<li><code>${escapeHtml(sample.where ?? sample.code)}</code> <code>${escapeHtml(sample.message)}</code> (${escapeHtml(sample.code)})` +
      (sample.stack ? `<pre>${escapeHtml(sample.stack)}</pre>` : '') +
      '</li>',
  );
  return section('Errors with a message', `<ul class="warnings">${items.join('')}</ul>`, 'error-samples');
}

/** `result.warnings`, first on the page when there are any. */
export function warningsSection(result: LoadResult): string {
  const warnings = Array.isArray(result.warnings) ? result.warnings : [];
  if (warnings.length === 0) return '';
  const items = warnings.map(
    (w) => `<li><code>${escapeHtml(String(w.code))}</code> ${escapeHtml(String(w.message))}</li>`,
  );
  return section('Warnings', `<ul class="warnings">${items.join('')}</ul>`, 'warnings');
}

export function thresholdsSection(result: LoadResult): string {
  if (result.thresholds === undefined || result.thresholds.length === 0) return '';
  const rows = result.thresholds.map((t) => [
    `<code>${escapeHtml(thresholdLabel(t))}</code>`,
    t.passed ? '<span class="pass">✓ passed</span>' : '<span class="fail">✗ failed</span>',
    escapeHtml([formatThresholdActual(t.metric, t.actual), formatThresholdWindows(t)].filter(Boolean).join(', ')),
  ]);
  return section('Thresholds', table(['threshold', 'outcome', 'actual'], rows), 'thresholds');
}

type Row = [label: string, count: number, kind: string];

/** Status codes (a message protocol's: handshakes, `101` accepted), its close codes, then errors by code. */
function responseRows(result: LoadResult, words: RunWords): Row[] {
  const status = Object.entries(result.statusCodes ?? {})
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([code, count]): Row =>
      words.handshakes
        ? [
            code === '101' ? '101 handshake accepted' : `${code} handshake refused`,
            count,
            code === '101' ? 'ok' : 'error',
          ]
        : [code, count, `s${code[0]}xx`],
    );
  const closes = Object.entries(result.websocket?.closeCodes ?? {})
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([code, count]): Row => [`close ${code}`, count, 'close']);
  const errors = Object.entries(result.errors.byCode)
    .sort(([, a], [, b]) => b - a)
    .map(([code, count]): Row => [code, count, 'error']);
  return [...status, ...closes, ...errors];
}

/** Status codes (or handshakes and close codes) and errors, each with a bar of its share. */
export function responsesSection(result: LoadResult): string {
  const words = runWords(result);
  const title = words.handshakes ? 'Handshakes, closes and errors' : 'Status codes and errors';
  const entries = responseRows(result, words);
  if (entries.length === 0)
    return section(title, `<p>No ${words.handshakes ? 'handshakes' : 'responses'} and no errors.</p>`, 'responses');
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  const rows = entries.map(([label, count, kind]) => [
    `<code>${escapeHtml(label)}</code>`,
    number(count),
    percent(count / total),
    `<div class="bar ${kind}" style="width:${((count / total) * 100).toFixed(2)}%"></div>`,
  ]);
  return section(
    title,
    table([words.handshakes ? 'what' : 'code', 'count', 'share', '<span class="visually-hidden">bar</span>'], rows, {
      className: 'bars',
    }),
    'responses',
  );
}

const LATENCY_FIELDS: ReadonlyArray<keyof LatencyStats> = [
  'min',
  'p50',
  'p75',
  'p90',
  'p95',
  'p99',
  'p999',
  'max',
  'mean',
  'stddev',
];

export function latencySection(result: LoadResult): string {
  // Nothing timed (count 0; a result saved before count existed with every field 0 or null): say why, no zero rows.
  if (!(result.latency.count > 0) && !(result.latency.p50 > 0))
    return section('Latency', `<p id="no-latency">${escapeHtml(noLatencyReason(result))}</p>`, 'latency');
  const row = (label: string, stats: LatencyStats) => [label, ...LATENCY_FIELDS.map((f) => ms(stats[f]))];
  const words = runWords(result);
  const rows = [
    row(result.rate === undefined ? (words.handshakes ? 'per message' : 'per request') : 'corrected', result.latency),
  ];
  if (
    result.latencyUncorrected !== undefined &&
    LATENCY_FIELDS.some((f) => result.latencyUncorrected[f] !== result.latency[f])
  ) {
    rows.push(row('uncorrected', result.latencyUncorrected));
  }
  const head = [
    '<span class="visually-hidden">latency</span>',
    ...LATENCY_FIELDS.map((f) => (f === 'p999' ? 'p99.9' : f)),
  ];
  return section('Latency', table(head, rows, { className: 'numbers' }), 'latency');
}

const PHASE_ORDER = ['connect', 'tls', 'handshake', 'ttfb', 'receive'];
const PHASE_FIELDS = ['count', 'min', 'mean', 'p50', 'p90', 'p99', 'max'];

/** `result.phases` (connect, tls, handshake, ttfb, receive), when the run recorded them. */
export function phasesSection(result: LoadResult): string {
  const phases = (result as { phases?: unknown }).phases;
  if (!isRecord(phases)) return '';
  const names = Object.keys(phases)
    // A phase measured zero times (tls on http:) would only be a row of zeros.
    .filter((name) => isRecord(phases[name]) && (phases[name] as Record<string, unknown>).count !== 0)
    .sort((a, b) => (PHASE_ORDER.indexOf(a) + 1 || 99) - (PHASE_ORDER.indexOf(b) + 1 || 99));
  if (names.length === 0) return '';
  const fields = PHASE_FIELDS.filter((f) =>
    names.some((name) => typeof (phases[name] as Record<string, unknown>)[f] === 'number'),
  );
  const rows = names.map((name) => {
    const phase = phases[name] as Record<string, unknown>;
    return [
      name,
      ...fields.map((f) => (typeof phase[f] !== 'number' ? '' : f === 'count' ? number(phase[f]) : ms(phase[f]))),
    ];
  });
  return section('Phases', table(['phase', ...fields], rows, { className: 'numbers' }), 'phases');
}

/** Flattens `{ sendLag: { p99: 1 } }` into `['sendLag.p99', 1]` rows. */
function flatten(prefix: string, value: unknown, out: Array<[string, unknown]>): void {
  if (isRecord(value))
    for (const [key, inner] of Object.entries(value)) flatten(prefix === '' ? key : `${prefix}.${key}`, inner, out);
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
    if (typeof value === 'boolean')
      shown = value ? `<span class="${name === 'saturated' ? 'fail' : 'pass'}">yes</span>` : 'no';
    else if (typeof value === 'number') shown = /Ms$|^sendLag\./.test(name) ? ms(value) : number(value);
    else shown = escapeHtml(JSON.stringify(value) ?? '');
    return [`<code>${escapeHtml(name)}</code>`, shown];
  });
  return section('Load generator', table(['measure', 'value'], rows, { className: 'keyvalue' }), 'generator');
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
  return section(
    'Checks',
    table(['check', 'passed', 'failed'], rows, { className: 'numbers' }) +
      (examples === '' ? '' : `<ul class="examples">${examples}</ul>`),
    'checks',
  );
}
