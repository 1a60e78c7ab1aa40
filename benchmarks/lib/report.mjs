// Ranked tables (plain text for stdout, Markdown for the README) and the README itself.
import { KNOWN_DELAY_MS } from './scenarios.mjs';

const dash = '–';
const fmt = {
  int: (v) => (v === undefined ? dash : Math.round(v).toLocaleString('en-US')),
  ms: (v) => (v === undefined ? dash : v < 100 ? v.toFixed(3) : v.toFixed(1)),
  signedMs: (v) => (v === undefined ? dash : `${v >= 0 ? '+' : ''}${v.toFixed(3)}`),
  pct: (v) => (v === undefined ? dash : `${v.toFixed(1)}%`),
  signedPct: (v) => (v === undefined ? dash : `${v >= 0 ? '+' : ''}${v.toFixed(1)}%`),
  ratio: (v) => (v === undefined ? dash : `${v.toFixed(2)}×`),
  us: (v) => (v === undefined ? dash : v.toFixed(1)),
};

function range(line) {
  return line.reqPerSecMin === undefined ? dash : `${fmt.int(line.reqPerSecMin)}${dash}${fmt.int(line.reqPerSecMax)}`;
}

function problems(line) {
  const parts = [];
  if (line.errors) parts.push(`${fmt.int(line.errors)} errors`);
  if (line.non2xx) parts.push(`${fmt.int(line.non2xx)} non-2xx`);
  if (line.failures.length) parts.push(`${line.failures.length}/${line.rounds} runs failed: ${line.failures[0]}`);
  return parts.join('; ') || '';
}

const byThroughput = (a, b) => (b.reqPerSec ?? -1) - (a.reqPerSec ?? -1);
const byAbs = (key) => (a, b) => Math.abs(a[key] ?? Infinity) - Math.abs(b[key] ?? Infinity);

/** Columns and sorted rows of one scenario's table. */
function tableOf({ scenario, lines }) {
  if (scenario.group === 'rate') {
    const rows = lines
      .map((line) => ({ ...line, rateErrorPct: line.reqPerSec === undefined ? undefined : ((line.reqPerSec - scenario.rate) / scenario.rate) * 100 }))
      .sort(byAbs('rateErrorPct'));
    return {
      head: ['#', 'contender', 'target req/s', 'achieved (median)', 'min–max', 'off target', 'p50 ms', 'p99 ms', 'CPU µs/req', 'core %', 'problems'],
      rows: rows.map((line, i) => [
        String(i + 1), line.name, fmt.int(scenario.rate), fmt.int(line.reqPerSec), range(line), fmt.signedPct(line.rateErrorPct),
        fmt.ms(line.p50Ms), fmt.ms(line.p99Ms), fmt.us(line.cpuUsPerReq), fmt.int(line.corePct), problems(line),
      ]),
    };
  }
  if (scenario.group === 'latency') {
    const rows = lines
      .map((line) => ({
        ...line,
        p50ErrorMs: line.p50Ms === undefined ? undefined : line.p50Ms - KNOWN_DELAY_MS,
        p99ErrorMs: line.p99Ms === undefined ? undefined : line.p99Ms - KNOWN_DELAY_MS,
      }))
      .sort(byAbs('p50ErrorMs'));
    return {
      head: ['#', 'contender', 'resolution', 'req/s', 'p50 ms', `p50 − ${KNOWN_DELAY_MS} ms`, 'p99 ms', `p99 − ${KNOWN_DELAY_MS} ms`, 'problems'],
      rows: rows.map((line, i) => [
        String(i + 1), line.name, line.resolution ?? dash, fmt.int(line.reqPerSec), fmt.ms(line.p50Ms), fmt.signedMs(line.p50ErrorMs),
        fmt.ms(line.p99Ms), fmt.signedMs(line.p99ErrorMs), problems(line),
      ]),
    };
  }
  return {
    head: ['#', 'contender', 'req/s (median)', 'min–max', 'spread', '× wrk', '× autocannon', 'p50 ms', 'p99 ms', 'CPU µs/req', 'core %', 'problems'],
    rows: [...lines].sort(byThroughput).map((line, i) => [
      String(i + 1), line.name, fmt.int(line.reqPerSec), range(line), fmt.pct(line.spreadPct), fmt.ratio(line.vsWrk),
      fmt.ratio(line.vsAutocannon), fmt.ms(line.p50Ms), fmt.ms(line.p99Ms), fmt.us(line.cpuUsPerReq), fmt.int(line.corePct), problems(line),
    ]),
  };
}

const numeric = (cell) => /^[+−-]?[\d,.]+(%|×)?$|^[\d,]+–[\d,]+$/.test(cell);

function textTable({ head, rows }) {
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const render = (row) =>
    row.map((cell, c) => (numeric(cell) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd();
  return [render(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(render)].join('\n');
}

function markdownTable({ head, rows }) {
  const align = head.map((_, c) => (rows.some((row) => numeric(row[c])) && c > 1 ? '---:' : '---'));
  const line = (cells) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(head), line(align), ...rows.map(line)].join('\n');
}

function satOutNote(satOut) {
  return satOut.length ? `sat out: ${satOut.map(({ name, reason }) => `${name} (${reason})`).join('; ')}` : '';
}

/** The whole report as plain text for stdout. */
export function renderText(results) {
  return results.scenarios
    .map((entry) => {
      const note = satOutNote(entry.satOut);
      return [`== ${entry.scenario.title} [${entry.scenario.id}] @ ${entry.targetName}`, textTable(tableOf(entry)), note]
        .filter(Boolean)
        .join('\n');
    })
    .join('\n\n');
}

/** Sections of the README written by the single-purpose scripts' authors, kept when it is regenerated. */
const KEPT_SECTIONS = [
  '## New connection per request',
  '## Pacing cost',
  '## Outputs',
  '## A server that closes connections on purpose (issue 29, 2026-11-25)',
  '## WebSocket',
  '## Socket.IO',
  '## Socket.IO packet codec (issue 32, 2026-11-25)',
  '## Request names (issue 41, 2026-11-27)',
  '## Before and after refactors',
  '## Monitor',
  '## Measurements behind the code',
];

/** The kept sections of `readme` (each from its heading to the next `## ` heading), joined. */
export function keptSections(readme) {
  return KEPT_SECTIONS.map((heading) => {
    const start = readme.indexOf(`\n${heading}\n`);
    if (start === -1) return '';
    const end = readme.indexOf('\n## ', start + heading.length + 2);
    return readme.slice(start + 1, end === -1 ? undefined : end + 1).trimEnd();
  })
    .filter(Boolean)
    .join('\n\n');
}

/** The README of benchmarks/, regenerated from a full run, with `kept` (hand-written sections) before the run. */
export function renderReadme(results, kept = '') {
  const { machine, settings } = results;
  const sections = results.scenarios.map((entry) => {
    const note = satOutNote(entry.satOut);
    return [`### ${entry.scenario.title}`, `\`${entry.scenario.id}\`, target: ${entry.targetName}`, markdownTable(tableOf(entry)), note && `_${note}_`]
      .filter(Boolean)
      .join('\n\n');
  });
  const unavailable = results.unavailable.length
    ? results.unavailable.map(({ name, reason }) => `- ${name}: ${reason}`).join('\n')
    : '- none';
  return `# salvo benchmarks

salvo's three transports (\`net\`, \`undici\`, \`http\`) against autocannon, loadtest and wrk on the same
machine, the same target and the same workload. This file is generated by \`npm run bench\`; edit
\`lib/report.mjs\`, not the tables.

## Running

\`\`\`sh
npm run build                 # at the repository root: the salvo contenders import ../dist/index.js
cd benchmarks && npm install
npm run bench                 # full run, rewrites this README and writes results/<date>.json (not committed)
npm run bench -- --quick      # about two minutes; add --write-readme to rewrite this README too
npm run bench -- --only c100,rate --contenders salvo,wrk --rounds 5 --duration 5
\`\`\`

Optional system tools: \`nginx\` (the target; without it salvo's test server is the target) and
\`wrk\`; a \`wrk2\` binary on PATH is used for the rate scenarios. Missing tools are skipped and listed.

Single-purpose scripts next to it, each documented in its header: \`overhead.mjs\` (salvo against a
bare node:http / undici loop), \`rate.mjs\` (open-loop accuracy and coordinated omission, measured
at the server), \`workers.mjs\` (worker threads), \`memory.mjs\` (peak RSS of 10,000 connections on
one thread), \`newconn.mjs\` (a new connection per request, http and https, before/after builds),
\`websocket.mjs\` (WebSocket broadcast and echo against a bare \`ws\` client loop; see WebSocket below),
\`socketio.mjs\` (Socket.IO broadcast and acknowledged echo against a bare \`socket.io-client\` loop; see
Socket.IO below),
\`h2.mjs\` (the \`h2\` transport against h2load on nginx with http2; last run in
[h2.md](h2.md)).

## Method

- **Target**: nginx with one worker serving static 2 B, 1 KiB and 64 KiB files (keep-alive requests
  unlimited, no access log), or salvo's \`createTestServer\` in its own process when nginx is missing.
  The latency scenario always uses salvo's test server with a fixed ${KNOWN_DELAY_MS} ms delay.
- **Pinning**: with \`taskset\` and two or more cores the target runs on core 1 and every load
  generator on core 0: each tool has exactly one core, single-threaded (\`wrk -t1\`, no autocannon
  workers, salvo \`workers: 1\`, one loadtest process).
- **Runs**: every run is a new process: a discarded warm-up of the same settings, then the measured
  run. Rounds alternate the contenders (A B C … A B C …); tables show the median over rounds, the
  min–max range, and the spread ((max − min) / median), which is the noise of this machine.
- **req/s** is responses received divided by the tool's own measured duration; errors and non-2xx
  responses are listed, never hidden. **CPU µs/req** is the generator's user + system CPU in the
  measured run (\`process.resourceUsage()\` in the Node runners, bash \`times\` around wrk) divided by
  responses; **core %** is that CPU time over the measured duration (it counts connecting and
  closing, which the tools keep out of their duration, so it can pass 100%). A closed-loop
  generator well below 100% waited on the target or lost its core to other processes: on a shared
  machine CPU µs/req is the steadier number, req/s the noisier one. Ratios (× wrk, × autocannon) are
  the median over rounds of the two tools' req/s in the same round: the two runs of a round are
  next to each other in time, so a stall of the whole machine that hits both leaves their ratio
  alone.
- **Rate scenarios** use salvo's \`rate\`, autocannon's \`overallRate\`, loadtest's \`requestsPerSecond\`
  (http mode) and wrk2's \`-R\`; "off target" is achieved minus target, relative to the target.
- **Latency accuracy**: p50 and p99 reported by each tool minus the server's true delay; the
  remainder is client + loopback overhead plus the tool's own rounding. The true latency is a
  little over the delay, so a tool that reports whole milliseconds (resolution 1 ms) truncates it to
  exactly the delay and looks perfect at p50: read its row with that in mind.
- Caveats: autocannon has no keep-alive switch, so "keep-alive off" sends \`Connection: close\` to it
  (as to wrk); wrk pipelines through a Lua script that writes 10 requests per batch (and sometimes
  prints a p99 of 0 there, which is dropped); loadtest's http mode uses its keep-alive agent except
  in the keep-alive-off scenario.
${kept ? `\n${kept}\n` : ''}
## Latest ${settings.quick ? 'quick' : 'full'} run

- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}
- Node ${machine.node}; ${results.toolVersions}; salvo ${results.salvo}
- Date: ${results.date}
- Command: \`${results.command}\`
- Settings: ${settings.rounds} round(s), ${settings.warmupS} s warm-up + ${settings.durationS} s measured per run; pinning: ${results.pinning}

Unavailable here:

${unavailable}

${sections.join('\n\n')}
${kept.map((section) => `\n${section}\n`).join('')}`;
}
