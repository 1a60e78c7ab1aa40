import type { LoadResult } from '../shared/load-result.js';
import { reportCharts } from './charts.js';
import { serverCharts } from './server-charts.js';
import { CLIENT_SCRIPT } from './client-script.js';
import {
  checksSection,
  escapeHtml,
  generatorSection,
  latencySection,
  phasesSection,
  responsesSection,
  summaryCards,
  thresholdsSection,
  warningsSection,
} from './sections.js';
import { uplotAsset } from './uplot-asset.js';

const STYLE = `
:root { --fg: #111827; --muted: #6b7280; --line: #e5e7eb; --bg: #f9fafb; --pass: #15803d; --fail: #b91c1c; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1280px; margin: 0 auto; }
header h1 { font-size: 20px; margin: 0 0 4px; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
header .url { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 500; word-break: break-all; }
.badge { font-size: 12px; padding: 2px 10px; border-radius: 999px; color: #fff; }
.badge.passed { background: var(--pass); } .badge.failed { background: var(--fail); } .badge.aborted { background: #a16207; }
.meta { color: var(--muted); margin: 0 0 16px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 12px; margin-bottom: 16px; }
.card, section, .chart { background: #fff; border: 1px solid var(--line); border-radius: 8px; }
.card { padding: 10px 14px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .note { color: var(--muted); font-size: 12px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 16px; margin-bottom: 16px; }
.chart { padding: 12px 12px 4px; min-width: 0; }
.chart h2, section h2 { font-size: 15px; margin: 0 0 8px; }
.chart .plot { width: 100%; }
section { padding: 12px 16px; margin-bottom: 16px; overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 12px 4px 0; text-align: left; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { color: var(--muted); font-weight: 500; }
table.numbers td:not(:first-child), table.numbers th:not(:first-child) { text-align: right; }
table.bars { width: 100%; } table.bars td:last-child { width: 50%; }
.bar { height: 12px; border-radius: 3px; min-width: 2px; background: #2563eb; }
.bar.s1xx, .bar.s3xx { background: #6b7280; } .bar.s2xx { background: #16a34a; } .bar.s4xx { background: #d97706; }
.bar.s5xx, .bar.error { background: #dc2626; }
.pass { color: var(--pass); font-weight: 600; } .fail { color: var(--fail); font-weight: 600; }
ul.warnings { margin: 0; padding-left: 20px; } ul.warnings li { margin: 4px 0; }
#warnings { border-color: #f59e0b; background: #fffbeb; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
footer { color: var(--muted); font-size: 12px; text-align: center; }
`;

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function header(result: LoadResult): string {
  let badge = '';
  if (result.aborted) badge = '<span class="badge aborted">aborted</span>';
  else if (result.thresholds !== undefined && result.thresholds.length > 0) {
    badge = result.ok ? '<span class="badge passed">thresholds passed</span>' : '<span class="badge failed">thresholds failed</span>';
  }
  const meta = [
    `transport ${result.transport}`,
    plural(result.connections, 'connection'),
    plural(result.workers, 'worker'),
    `${(result.durationMs / 1000).toFixed(2)} s measured`,
  ];
  if (result.rate !== undefined) meta.push(`target rate ${result.rate}/s`);
  return `<header><h1>salvo <span class="url">${escapeHtml(result.url)}</span>${badge}</h1><p class="meta">${escapeHtml(meta.join(' · '))}</p></header>`;
}

/**
 * An HTML report of a run: one self-contained page (uPlot and the data inlined, no network access)
 * with the headline numbers, charts of requests/s, latency, errors and open connections over time,
 * the latency percentile spectrum from the histograms, status codes and errors, thresholds and
 * checks, and the phases, generator and warnings sections when the result has them. Works on a
 * result read back from JSON.
 */
export function renderReport(result: LoadResult): string {
  // The server's charts (`monitor`) under the load's, on the same time axis.
  const charts = [...reportCharts(result), ...serverCharts(result)];
  const uplot = uplotAsset();
  // '<' escaped so that no string in the data can close the script element early.
  const data = JSON.stringify({ charts }).replace(/</g, '\\u003c');
  const chartBoxes = charts
    .map((chart) => `<div class="chart"><h2>${escapeHtml(chart.title)}</h2><div class="plot" id="${chart.id}"></div></div>`)
    .join('');
  const shortRun = result.timeline.length < 2 ? '<p class="meta" id="no-timeline">The run was shorter than two seconds: no charts over time.</p>' : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>salvo: ${escapeHtml(result.url)}</title>
<style>${uplot.css}</style>
<style>${STYLE}</style>
</head>
<body>
<main>
${header(result)}
${summaryCards(result)}
${warningsSection(result)}
${thresholdsSection(result)}
${shortRun}<div class="charts">${chartBoxes}</div>
${responsesSection(result)}
${latencySection(result)}
${phasesSection(result)}
${generatorSection(result)}
${checksSection(result)}
<footer>salvo load test report</footer>
</main>
<script type="application/json" id="salvo-data">${data}</script>
<script>${uplot.script}</script>
<script>${CLIENT_SCRIPT}</script>
</body>
</html>
`;
}
