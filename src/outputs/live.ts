import type { Plan, PlannedOutput } from '../shared/plan.js';
import { countsMessages } from '../shared/run-kind.js';
import type { OnRolledSecond } from '../stats/progress-event.js';
import { addWarning } from '../shared/warnings.js';
import { type LoadResult, type ServerSecond } from '../shared/load-result.js';
import { PrometheusWriter } from './prometheus.js';
import { isCounter, resultPoints, secondPoints, serverPoints, type Point, type SeriesKind } from './series.js';
import { announceTestId, generatedTestId } from './test-id.js';
import { NameSeries } from './name-series.js';
import { StreamSeries } from './stream-series.js';

/**
 * The most a failing output lengthens a run: how long a hung endpoint has to answer the final
 * writes. One that refuses or fails costs a single try (one 200 ms retry if it was answering until then).
 */
export const FINAL_FLUSH_MS = 2000;

/** The outputs of one run, fed from the main thread's per-second roll-up. */
export interface LiveOutputs {
  onSecond: OnRolledSecond;
  /** The server's reading of a second already given to `onSecond` (`monitor`), stamped as that second. */
  onServer(second: number, server: ServerSecond): void;
  /** Writes the final totals from the merged result (bounded by `FINAL_FLUSH_MS`) and adds `OUTPUT_FAILED` to it. */
  finish(result: LoadResult): Promise<void>;
  /** Stops without a result (the run threw). */
  abandon(): Promise<void>;
}

/**
 * Starts the run's outputs. Loads snappyjs here, only when outputs are configured. Each second is
 * stamped with its wall-clock end (the segments' seconds line up when they share `startAt`), never
 * later than now and always after the previous stamp, as Prometheus accepts a series' samples only
 * in time order; the final totals get the instant after the run.
 */
export async function startOutputs(outputs: PlannedOutput[], plan: Plan): Promise<LiveOutputs> {
  const { compress } = (await import('snappyjs')).default;
  const kind: SeriesKind = { messages: countsMessages(plan.kind), ...(plan.kind === 'task' ? { calls: true } : {}) };
  if (plan.stream !== undefined)
    kind.stream = {
      tokens: plan.stream.tokensPath !== undefined || plan.stream.tokensFunction,
      delivery: plan.stream.timestampField !== undefined,
      goodput: plan.stream.slo !== undefined,
    };
  let generated: string | undefined;
  const writers = outputs.map((output) => {
    let testid = output.labels['testid'];
    if (testid === undefined) {
      generated ??= generatedTestId(plan.startAtMs);
      testid = generated;
    }
    const labels: Record<string, string> = { ...output.labels, testid };
    if (plan.segment !== undefined) labels['segment'] = String(plan.segment.index);
    return new PrometheusWriter(output, labels, compress);
  });
  if (generated !== undefined) announceTestId(generated);

  // The measured run's wall-clock start: known with startAt, else read off the first second to arrive.
  let anchorMs = plan.startAtMs === undefined ? undefined : plan.startAtMs + plan.warmupMs;
  let lastMs = 0;
  /** Each second's stamp until its server reading (which comes after it) has been written. */
  const stamps = new Map<number, number>();
  const stamp = (atMs: number): number => (lastMs = Math.max(Math.round(Math.min(atMs, Date.now())), lastMs + 1));
  const write = (timestampMs: number, points: Point[]) => {
    for (const writer of writers) writer.push(timestampMs, points);
  };
  const names = new NameSeries();
  const streams = kind.stream === undefined ? undefined : new StreamSeries(kind.stream);
  /** Counter series written so far, by name and label value. */
  const counted = new Set<string>();
  /** The stamp of the last counters written: where a counter that first appears later was still 0. */
  let countedMs: number | undefined;
  /**
   * Writes the counters (with the second's other samples), each new one preceded by a zero at the
   * previous stamp, or at the measured run's start: without it `increase()` and `rate()` lose
   * everything counted before a series' first sample (the whole first second).
   */
  const writeCounters = (timestampMs: number, points: Point[], startMs: number) => {
    const zeroes: Point[] = [];
    for (const point of points) {
      const key = point.label === undefined ? point.name : `${point.name}\u0000${point.label[1]}`;
      if (!isCounter(point) || counted.has(key)) continue;
      counted.add(key);
      zeroes.push({ ...point, value: 0 });
    }
    if (zeroes.length > 0) write(countedMs ?? Math.min(Math.round(startMs), timestampMs - 1), zeroes);
    write(timestampMs, points);
    countedMs = timestampMs;
  };

  return {
    onSecond(summary, totals) {
      try {
        anchorMs ??= Date.now() - (summary.second + 1) * 1000;
        const timestampMs = stamp(anchorMs + (summary.second + 1) * 1000);
        stamps.set(summary.second, timestampMs);
        if (stamps.size > 60) stamps.delete(stamps.keys().next().value!);
        writeCounters(
          timestampMs,
          [
            ...secondPoints(kind, summary, totals),
            ...names.secondPoints(summary.byName),
            ...(streams?.secondPoints(summary.stream) ?? []),
          ],
          anchorMs,
        );
      } catch (error) {
        process.emitWarning(`salvo: outputs failed to take a second: ${String(error)}`);
      }
    },
    onServer(second, server) {
      const timestampMs = stamps.get(second);
      stamps.delete(second);
      if (timestampMs !== undefined) write(timestampMs, serverPoints(server));
    },
    async finish(result) {
      writeCounters(
        stamp(Date.now()),
        [
          ...resultPoints(kind, result),
          ...names.resultPoints(result),
          ...(streams?.resultPoints(result.stream, result.goodput) ?? []),
        ],
        result.startedAt,
      );
      const deadline = Date.now() + FINAL_FLUSH_MS;
      await Promise.all(writers.map((writer) => writer.close(deadline)));
      const failures = writers.map((writer) => writer.failure()).filter((failure) => failure !== undefined);
      if (failures.length > 0) addWarning(result.warnings, 'OUTPUT_FAILED', failures.join('; '));
    },
    async abandon() {
      await Promise.all(writers.map((writer) => writer.close(Date.now())));
    },
  };
}
