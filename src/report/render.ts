import { rateStagesText, targetRateRange } from '../stats/format-rate.js';
import { socketIoExchange } from '../stats/socketio-words.js';
import type { LoadResult } from '../shared/load-result.js';
import { partialLastSecond, reportCharts } from './charts.js';
import { escapeHtml, number, plural } from './html.js';
import { chartGrid, renderPage } from './page.js';
import { serverCharts } from './server-charts.js';
import { serverSection } from './server-section.js';
import {
  checksSection,
  errorSamplesSection,
  generatorSection,
  latencySection,
  phasesSection,
  responsesSection,
  summaryCards,
  thresholdsSection,
  warningsSection,
} from './sections.js';
import { stepCharts, stepsSection } from './step-figures.js';
import { streamCards, streamCharts, streamSection } from './stream-section.js';
import { partsCharts, partsSections } from './parts.js';
import { stepFigures } from './steps.js';
import { concurrencyPerConnection, protocolName, runWords } from './words.js';

/**
 * The run's verdict as a badge: red when a threshold failed, nothing succeeded or most requests
 * failed; green only when thresholds passed; grey with no thresholds to judge by.
 */
function badge(result: LoadResult): string {
  const codes = new Set((Array.isArray(result.warnings) ? result.warnings : []).map((warning) => warning.code));
  const judged = result.thresholds !== undefined && result.thresholds.length > 0;
  const failedThreshold = judged && result.thresholds!.some((threshold) => !threshold.passed);
  const [tone, text] = result.aborted
    ? ['aborted', 'aborted']
    : failedThreshold
      ? ['failed', 'thresholds failed']
      : codes.has('NO_SUCCESS') || result.ok === false
        ? ['failed', 'no request succeeded']
        : codes.has('MOSTLY_FAILED')
          ? ['failed', 'most requests failed']
          : judged
            ? ['passed', 'thresholds passed']
            : ['neutral', 'no thresholds'];
  return `<span class="badge ${tone}">${text}</span>`;
}

function header(result: LoadResult): string {
  const words = runWords(result);
  const meta = [protocolName(result)];
  const exchange = socketIoExchange(result);
  if (exchange !== undefined) meta.push(exchange);
  const noun = words.handshakes ? 'client' : 'connection';
  const most = Math.max(...(result.merge?.plan?.stages ?? []).map((stage) => stage.connections ?? 0));
  meta.push(
    most > result.connections
      ? `${number(result.connections)} to ${plural(most, noun)} in stages`
      : plural(result.connections, noun),
  );
  const depth = concurrencyPerConnection(result);
  if (depth !== undefined) meta.push(depth);
  meta.push(plural(result.workers, 'worker'), `${(result.durationMs / 1000).toFixed(2)} s measured`);
  const range = result.timeline === undefined ? undefined : targetRateRange(result);
  const stages = rateStagesText(result);
  if (stages !== undefined) meta.push(`target rate ${stages} (${number(range![0])} to ${number(range![1])}/s)`);
  else if (range !== undefined)
    meta.push(
      range[0] === range[1]
        ? `target rate ${number(range[0])}/s`
        : `target rate ${number(range[0])} to ${number(range[1])}/s in stages`,
    );
  const segment = result.merge?.segment;
  if (segment !== undefined) meta.push(`segment ${segment.index + 1} of ${segment.count}`);
  return `<h1>salvo <span class="url">${escapeHtml(result.url)}</span>${badge(result)}</h1><p class="meta">${escapeHtml(meta.join(' · '))}</p>`;
}

/**
 * An HTML report of a run: one self-contained page (uPlot and the data inlined, no network access)
 * in the run's own words (requests, or messages and handshakes): the headline numbers; for a run
 * with stages, a table and charts with one point per step (x = the step's clients or target rate);
 * charts of throughput, latency, errors and open connections over time and the latency percentile
 * spectrum; for a `stream` run its events per second, time to first event and gap spectra, and
 * table; status codes (or handshakes and close codes) and errors; thresholds, checks, phases,
 * the generator and warnings when the result has them. Works on a result read back from JSON,
 * a merged one included, and on results saved by earlier versions (what they lack is left out).
 */
export function renderReport(result: LoadResult): string {
  const figures = stepFigures(result);
  const steps = stepCharts(result, figures);
  // The server's charts (`monitor`) under the load's, on the same time axis.
  const charts = [...reportCharts(result), ...streamCharts(result), ...partsCharts(result), ...serverCharts(result)];
  const share = partialLastSecond(result);
  const shortRun =
    (result.timeline ?? []).length < 2
      ? '<p class="meta" id="no-timeline">The run was shorter than two seconds: no charts over time.</p>'
      : share === undefined
        ? ''
        : `<p class="meta" id="partial-second">The run ended ${number(share * 1000)} ms into its last second: the charts' last point is at ${number(result.durationMs / 1000)} s, its counts per second of that part.</p>`;
  const body = [
    summaryCards(result),
    streamCards(result),
    warningsSection(result),
    thresholdsSection(result),
    errorSamplesSection(result),
    // Failed checks are a verdict: near the top, with the thresholds.
    (result.checks?.failed ?? 0) > 0 ? checksSection(result) : '',
    chartGrid(steps),
    stepsSection(result, figures),
    shortRun + chartGrid(charts),
    partsSections(result),
    responsesSection(result),
    latencySection(result),
    streamSection(result),
    phasesSection(result),
    serverSection(result),
    generatorSection(result),
    (result.checks?.failed ?? 0) > 0 ? '' : checksSection(result),
  ];
  return renderPage({
    title: `salvo: ${result.url}`,
    header: header(result),
    body: body.filter((part) => part !== '').join('\n'),
    charts: [...steps, ...charts],
    footer: 'salvo load test report',
  });
}
