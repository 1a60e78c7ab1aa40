import type { ChartSpec } from './chart-spec.js';
import { CLIENT_SCRIPT } from './client-script.js';
import { escapeHtml } from './html.js';
import { uplotAsset } from './uplot-asset.js';

const STYLE = `
:root { --fg: #111827; --muted: #6b7280; --line: #e5e7eb; --bg: #f9fafb; --pass: #15803d; --fail: #b91c1c; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1280px; margin: 0 auto; }
header h1 { font-size: 20px; margin: 0 0 4px; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
header .url { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 500; word-break: break-all; }
.badge { font-size: 12px; padding: 2px 10px; border-radius: 999px; color: #fff; }
.badge.passed { background: var(--pass); } .badge.failed { background: var(--fail); } .badge.aborted { background: #a16207; } .badge.neutral { background: #64748b; }
.meta { color: var(--muted); margin: 0 0 16px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 12px; margin-bottom: 16px; }
.card, section, .chart { background: #fff; border: 1px solid var(--line); border-radius: 8px; }
.card { padding: 10px 14px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .note { color: var(--muted); font-size: 12px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 520px), 1fr)); gap: 16px; margin-bottom: 16px; }
.chart { padding: 12px 12px 4px; min-width: 0; margin: 0; }
.chart h2, section h2 { font-size: 15px; margin: 0 0 8px; }
.chart .plot { width: 100%; }
section { padding: 12px 16px; margin-bottom: 16px; overflow-x: auto; }
section p { margin: 4px 0 8px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
caption { text-align: left; color: var(--muted); padding-bottom: 4px; }
th, td { padding: 4px 12px 4px 0; text-align: left; border-bottom: 1px solid var(--line); white-space: nowrap; }
thead th { color: var(--muted); font-weight: 500; }
tbody th { font-weight: 500; }
table.numbers td, table.numbers thead th:not(:first-child) { text-align: right; }
table.numbers td.text, table.numbers thead th.text { text-align: left; white-space: normal; min-width: 14em; }
table.bars { width: 100%; } table.bars td:last-child { width: 50%; }
.bar { height: 12px; border-radius: 3px; min-width: 2px; background: #2563eb; }
.bar.s1xx, .bar.s3xx { background: #6b7280; } .bar.s2xx, .bar.ok { background: #16a34a; } .bar.s4xx { background: #d97706; }
.bar.s5xx, .bar.error { background: #dc2626; } .bar.close { background: #7c3aed; }
.pass, .better { color: var(--pass); font-weight: 600; } .fail, .worse { color: var(--fail); font-weight: 600; }
ul.warnings { margin: 0; padding-left: 20px; } ul.warnings li { margin: 4px 0; }
#warnings { border-color: #f59e0b; background: #fffbeb; }
.interval { display: block; }
.ci { display: block; position: relative; height: 10px; min-width: 100px; background: #f3f4f6; border-radius: 2px; }
.ci-zero { position: absolute; left: 50%; top: -2px; bottom: -2px; width: 1px; background: var(--fg); }
.ci-bar { position: absolute; top: 1px; bottom: 1px; border-radius: 2px; min-width: 2px; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
footer { color: var(--muted); font-size: 12px; text-align: center; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@media (max-width: 600px) {
  body { padding: 12px; }
  .cards { grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 8px; }
  .card .value { font-size: 18px; }
  section { padding: 10px; }
}
@media print {
  body { background: #fff; padding: 0; }
  .charts { display: block; }
  .chart, section { break-inside: avoid; margin-bottom: 12px; }
  section { overflow: visible; }
  .u-legend { font-size: 11px; }
}
`;

/** What every page kind gives the shell: its header and body HTML, and the charts its body places. */
export interface PageParts {
  title: string;
  /** `<header>` content, HTML. */
  header: string;
  /** Everything between the header and the footer, HTML; charts go where `chartGrid` put them. */
  body: string;
  charts: ChartSpec[];
  footer: string;
  /** A script run after the charts are drawn (the live page's, which redraws them). */
  script?: string;
}

/**
 * A grid of chart boxes. Each is a `<figure>` whose `<h2>` names it; the tables beside the charts
 * carry the same numbers for screen readers, so the canvas is hidden from them.
 */
export function chartGrid(charts: readonly ChartSpec[]): string {
  if (charts.length === 0) return '';
  const boxes = charts
    .map(
      (chart) =>
        `<figure class="chart" aria-labelledby="${chart.id}-title"><h2 id="${chart.id}-title">${escapeHtml(chart.title)}</h2><div class="plot" id="${chart.id}" aria-hidden="true"></div></figure>`,
    )
    .join('');
  return `<div class="charts">${boxes}</div>`;
}

/**
 * One self-contained page: uPlot, the styles, the chart data and the drawing script inlined, so it
 * opens offline from a file, an e-mail or a CI artifact.
 */
export function renderPage(parts: PageParts): string {
  const uplot = uplotAsset();
  // '<' escaped so that no string in the data can close the script element early.
  const data = JSON.stringify({ charts: parts.charts }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(parts.title)}</title>
<style>${uplot.css}</style>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>${parts.header}</header>
${parts.body}
<footer>${escapeHtml(parts.footer)}</footer>
</main>
<script type="application/json" id="salvo-data">${data}</script>
<script>${uplot.script}</script>
<script>${CLIENT_SCRIPT}</script>
${parts.script === undefined ? '' : `<script>${parts.script}</script>\n`}</body>
</html>
`;
}
