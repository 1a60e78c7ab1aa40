// The live page's content while a run goes: the report's charts and cards, drawn from the seconds so far.
import type { LoadResult, ProgressEvent, TimelineEntry } from '../shared/load-result.js';
import type { RunKind } from '../shared/run-kind.js';
import type { ChartSpec } from '../report/chart-spec.js';
import { reportCharts } from '../report/charts.js';
import { cards, escapeHtml, ms, number, percent, plural } from '../report/html.js';
import { chartGrid } from '../report/page.js';
import { partsCharts } from '../report/parts.js';
import { serverCharts } from '../report/server-charts.js';
import { streamCharts } from '../report/stream-section.js';
import { runWords } from '../report/words.js';

/** What the live page is told about the run before its first second. */
export interface LiveRun {
  /** The url, or `task` for a task run. */
  url: string;
  kind: RunKind;
  transport: string;
}

/** One redraw of the page: its header, its body and the charts the body places. */
export interface LiveView {
  header: string;
  body: string;
  charts: ChartSpec[];
}

type Part = Omit<ProgressEvent, 'second' | 'byScenario' | 'server'>;

/** A second without its totals and parts: a timeline entry, as the report's charts read it. */
function entry(event: Part & { second: number; server?: ProgressEvent['server'] }): TimelineEntry {
  const { totals, ...rest } = event;
  delete (rest as { byScenario?: unknown }).byScenario;
  return rest;
}

/**
 * The run so far as the report's chart functions read a result: the timeline, the names, each
 * scenario's own seconds (indexed by the run's second, its start 0) and the monitor's and streams'
 * presence. Numbers only the end knows (histograms, status codes) are absent, so charts of them are not drawn.
 */
function resultSoFar(run: LiveRun, seconds: readonly ProgressEvent[]): LoadResult {
  const timeline = seconds.map(entry);
  const names = new Set(seconds.flatMap((second) => Object.keys(second.byName ?? {})));
  const scenarios = new Map<string, { rate?: number; startedAt: number; timeline: TimelineEntry[] }>();
  for (const second of seconds) {
    for (const [name, part] of Object.entries(second.byScenario ?? {})) {
      const own = scenarios.get(name) ?? { startedAt: 0, timeline: [] };
      own.timeline[second.second] = entry({ ...part, second: second.second });
      if (part.targetRate !== undefined) own.rate = part.targetRate;
      scenarios.set(name, own);
    }
  }
  const streamed = timeline.filter((second) => second.stream !== undefined);
  const last = seconds.at(-1);
  return {
    url: run.url,
    transport: run.transport,
    startedAt: 0,
    durationMs: last === undefined ? 0 : (last.second + 1) * 1000,
    timeline,
    merge: { plan: { kind: run.kind } },
    ...(names.size > 0 ? { byName: Object.fromEntries([...names].map((name) => [name, {}])) } : {}),
    ...(scenarios.size > 0 ? { byScenario: Object.fromEntries(scenarios) } : {}),
    ...(timeline.some((second) => second.server !== undefined) ? { server: {} } : {}),
    ...(streamed.length > 0
      ? {
          stream: {
            events: streamed.reduce((sum, second) => sum + second.stream!.events, 0),
            ttft: streamed.some((second) => second.stream!.ttftP99 !== undefined) ? {} : undefined,
          },
        }
      : {}),
  } as unknown as LoadResult;
}

/** The headline numbers of the last second and of the run so far, in the report's cards. */
function liveCards(result: LoadResult, last: ProgressEvent | undefined): string {
  const words = runWords(result);
  if (last === undefined) return cards([['elapsed', '0 s', 'waiting for the first second']]);
  const ended = last.totals.completed + last.totals.errors;
  return cards([
    [`${words.units}/s`, number(last.completed), 'the last second'],
    ['p50', ms(last.completed > 0 ? last.p50 : Number.NaN), 'the last second'],
    ['p99', ms(last.completed > 0 ? last.p99 : Number.NaN), 'the last second'],
    ['errors', number(last.totals.errors), ended > 0 ? `so far, ${percent(last.totals.errors / ended)}` : 'so far'],
    [words.completed, number(last.totals.completed), `of ${number(last.totals.sent)} sent so far`],
    [
      'connections',
      number(last.connections),
      last.targetRate === undefined ? 'open' : `target ${number(last.targetRate)}/s`,
    ],
  ]);
}

/** The page's content for the seconds so far: a header that says the run is going, cards and charts. */
export function liveView(run: LiveRun, seconds: readonly ProgressEvent[]): LiveView {
  const result = resultSoFar(run, seconds);
  const charts = [...reportCharts(result), ...streamCharts(result), ...partsCharts(result), ...serverCharts(result)];
  const elapsed = seconds.length === 0 ? 'starting' : `${plural(seconds.at(-1)!.second + 1, 'second')} so far`;
  const header = `<h1>salvo <span class="url">${escapeHtml(run.url)}</span><span class="badge neutral">live</span></h1><p class="meta" id="live-status">${escapeHtml(`running · ${elapsed}`)}</p>`;
  const waiting =
    seconds.length < 2 ? '<p class="meta" id="no-timeline">The charts start after the second second.</p>' : '';
  return { header, body: liveCards(result, seconds.at(-1)) + waiting + chartGrid(charts), charts };
}
