import { SalvoOptionError } from '../shared/errors.js';
import type { LoadResult, SteerStep } from '../shared/load-result.js';
import type { Thresholds } from '../shared/terms.js';
import { mergeStats, type ResultHeader } from './merge.js';
import { failedByDefault, type ShardStats } from './recorder.js';
import { judgeThresholds, parseThresholds } from './thresholds.js';
import { addWarning } from '../shared/warnings.js';
import { resultWebSocket } from './websocket-merge.js';
import { streamAsShard } from './stream-merge.js';
import { attachServer, mergeSeries } from './server.js';
import { nameAsShard } from './merge-names.js';

/** Options of `mergeResults`. */
export interface MergeResultsOptions {
  /**
   * Merge results that do not belong together (different URLs or plans, a segment missing or twice,
   * counts that disagree) instead of throwing; what was wrong is kept as a `MERGE_MISMATCH` warning.
   */
  force?: boolean;
  /** Thresholds to judge the merged result by, instead of the ones the results carry. */
  thresholds?: Thresholds;
}

const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** Why these results should not be merged, one line each; empty when they are one run's parts. */
function mismatches(results: readonly LoadResult[]): string[] {
  const problems: string[] = [];
  const differing = (name: string, read: (result: LoadResult) => unknown) => {
    const values = [...new Set(results.map((result) => show(read(result))))];
    if (values.length > 1) problems.push(`${name} differ: ${values.join(' vs ')}`);
  };
  differing('URLs', (result) => result.url);
  differing('plans (merge.plan)', (result) => result.merge.plan);
  differing('thresholds', (result) => result.merge.thresholds);
  const segments = results.map((result) => result.merge.segment);
  const segmented = segments.filter((segment) => segment !== undefined);
  if (segmented.length > 0 && segmented.length < results.length) {
    problems.push(
      `${results.length - segmented.length} of ${results.length} results are whole runs and the others segments`,
    );
  }
  const counts = [...new Set(segmented.map((segment) => segment.count))];
  if (counts.length > 1) problems.push(`segment counts disagree: ${counts.join(', ')}`);
  if (segmented.length > 0 && counts.length === 1) {
    const count = counts[0]!;
    const seen = new Map<number, number>();
    for (const { index } of segmented) seen.set(index, (seen.get(index) ?? 0) + 1);
    const twice = [...seen].filter(([, times]) => times > 1).map(([index]) => index);
    const missing = Array.from({ length: count }, (_, index) => index).filter((index) => !seen.has(index));
    if (twice.length > 0)
      problems.push(`segment${twice.length > 1 ? 's' : ''} ${twice.join(', ')} of ${count} given more than once`);
    if (missing.length > 0)
      problems.push(`segment${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${count} missing`);
  }
  return problems;
}

/**
 * A result as the shard it came from, moved `offsetMs` later (its start after the earliest one): its
 * seconds go to the merged second they overlap most, and its duration reaches as far as it ran.
 */
function resultAsShard(result: LoadResult, offsetMs: number): ShardStats {
  const secondShift = Math.round(offsetMs / 1000);
  return {
    sent: result.requests.sent,
    completed: result.requests.completed,
    missed: result.requests.missed,
    // Results saved before requests.retried existed have none.
    retried: result.requests.retried ?? 0,
    errors: result.errors.total,
    errorsByCode: result.errors.byCode,
    ...(result.errors.samples !== undefined ? { errorSamples: result.errors.samples } : {}),
    statusCodes: result.statusCodes,
    // Results saved before these existed: nothing was counted unfinished, and the default statuses failed.
    unfinished: result.requests.unfinished ?? 0,
    ...(result.requests.warmup !== undefined ? { warmupSent: result.requests.warmup } : {}),
    ...(result.requests.redirects !== undefined ? { redirects: result.requests.redirects } : {}),
    failedByStatus: result.failed?.byStatus ?? failedByDefault(result.statusCodes),
    bytesSent: result.bytes.sent,
    bytesReceived: result.bytes.received,
    durationMs: offsetMs + result.durationMs,
    startedAt: result.startedAt,
    aborted: result.aborted,
    histogram: result.histogram,
    histogramUncorrected: result.histogramUncorrected,
    timeline: result.timeline.map((entry, index) => ({
      second: entry.second + secondShift,
      sent: entry.sent,
      completed: entry.completed,
      errors: entry.errors,
      retried: entry.retried ?? 0,
      connections: entry.connections,
      targetRate: entry.targetRate,
      cpuPercent: entry.cpuPercent,
      eventLoopUtilization: entry.eventLoopUtilization,
      histogram: result.merge.timeline[index] ?? '',
    })),
    checks: result.checks,
    warnings: result.warnings,
    phases: result.phaseHistograms,
    generator: { ...result.generator, sendLag: result.merge.sendLag },
    websocket: resultWebSocket(result),
    stream: streamAsShard(result.stream, result.merge.stream, result.timeline, secondShift),
    ...(result.byName !== undefined
      ? {
          byName: Object.fromEntries(
            Object.entries(result.byName).map(([name, stats]) => [
              name,
              nameAsShard(result, name, stats, offsetMs + result.durationMs, secondShift),
            ]),
          ),
        }
      : {}),
  };
}

/**
 * The steps of segments of one steered run: every result has the same changes (the whole run's
 * rate or connections, in order), each taking effect where the earliest segment saw it, on the
 * merged clock. Undefined otherwise: steps of different runs or none in some, no one sequence to keep.
 */
export function mergeSteps(results: readonly LoadResult[], startedAt: number): SteerStep[] | undefined {
  const values = (result: LoadResult) => show(result.steps?.map(({ rate, connections }) => [rate, connections]));
  const first = results[0]!.steps;
  if (first === undefined || first.length === 0 || results.some((result) => values(result) !== values(results[0]!)))
    return undefined;
  return first.map((step, index) => {
    const atMs = Math.min(...results.map((result) => result.startedAt - startedAt + result.steps![index]!.atMs));
    return { ...step, atMs: Math.round(atMs * 1000) / 1000 };
  });
}

function assertMergeable(results: unknown): asserts results is LoadResult[] {
  if (!Array.isArray(results) || results.length === 0) {
    throw new SalvoOptionError(
      `mergeResults: results must be a non-empty array of LoadResult; got ${show(results)?.slice(0, 80)}`,
      { option: 'results', value: results },
    );
  }
  results.forEach((result: unknown, index) => {
    const value = result as Partial<LoadResult> | null;
    if (
      typeof value !== 'object' ||
      value === null ||
      typeof value.histogram !== 'string' ||
      typeof value.startedAt !== 'number' ||
      typeof value.merge !== 'object'
    ) {
      throw new SalvoOptionError(
        `mergeResults: results[${index}] is not a mergeable LoadResult (it needs histogram, startedAt and merge, as runLoad gives them); got ${show(result)?.slice(0, 80)}`,
        { option: `results[${index}]`, value: result },
      );
    }
  });
}

/**
 * Adds up results of parts that ran on one clock (segments, machines, a run's scenarios), aligned on
 * wall-clock seconds from the earliest `startedAt`: the one merge, with nothing judged.
 */
export function sumResults(results: readonly LoadResult[], header: ResultHeader): LoadResult {
  const startedAt = Math.min(...results.map((result) => result.startedAt));
  const merged = mergeStats(
    header,
    results.map((result) => resultAsShard(result, result.startedAt - startedAt)),
    false,
  );
  // A source that several segments watched (the one server behind them all) is counted once.
  if (results.some((result) => result.merge.server !== undefined))
    attachServer(
      merged,
      mergeSeries(
        results.map((result) => result.merge.server),
        startedAt,
      ),
    );
  return merged;
}

/**
 * Merges the results of one run's segments (or of whole runs of one plan, on several machines)
 * exactly, as if one generator had run them: counts, status codes, errors, bytes and checks added up;
 * latency merged from the histograms; the timeline aligned on wall-clock seconds from the earliest
 * `startedAt`; `durationMs` the span the results cover; thresholds judged again on the merged numbers.
 * @throws SalvoOptionError when the results do not belong together (different URLs or plans,
 *   a segment missing or given twice, counts that disagree), unless `force` is set.
 */
export function mergeResults(results: readonly LoadResult[], options: MergeResultsOptions = {}): LoadResult {
  assertMergeable(results);
  const problems = mismatches(results);
  if (problems.length > 0 && options.force !== true) {
    throw new SalvoOptionError(
      `mergeResults: these results are not one run's parts: ${problems.join('; ')}. Pass { force: true } to merge them anyway`,
      { option: 'results', value: results, mentions: ['force'] },
    );
  }
  const thresholds = options.thresholds ?? results[0]!.merge.thresholds;
  const compiled = thresholds === undefined ? undefined : parseThresholds(thresholds);
  const rates = results.filter((result) => result.rate !== undefined);
  const header: ResultHeader = {
    url: results[0]!.url,
    transport: results[0]!.transport,
    connections: results.reduce((sum, result) => sum + result.connections, 0),
    workers: results.reduce((sum, result) => sum + result.workers, 0),
    // Segments' rates are shares of the whole (1000/s over 3 segments is 333.33... each): summed to
    // the micro-request, so that they add back up to the whole's rate.
    rate: rates.length === 0 ? undefined : Math.round(rates.reduce((sum, result) => sum + result.rate!, 0) * 1e6) / 1e6,
    merge: { plan: results[0]!.merge.plan, ...(thresholds !== undefined ? { thresholds } : {}) },
  };
  const merged = sumResults(results, header);
  const steps = mergeSteps(results, merged.startedAt);
  if (steps !== undefined) merged.steps = steps;
  if (results.some((result) => result.byScenario !== undefined)) {
    const scenarios = [...new Set(results.flatMap((result) => Object.keys(result.byScenario ?? {})))];
    merged.byScenario = Object.fromEntries(
      scenarios.map((scenario) => [
        scenario,
        mergeResults(
          results.flatMap((result) => result.byScenario?.[scenario] ?? []),
          { force: options.force ?? false },
        ),
      ]),
    );
  }
  if (problems.length > 0) {
    addWarning(
      merged.warnings,
      'MERGE_MISMATCH',
      `merged with force although ${problems.join('; ')}: the numbers add up parts of different runs or miss some; read them with that in mind.`,
    );
  }
  judgeThresholds(merged, compiled);
  return merged;
}
