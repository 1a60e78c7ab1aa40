import type { Plan, PlannedOutput } from '../shared/plan.js';
import type { OnRolledSecond } from '../stats/progress-event.js';
import { addWarning } from '../shared/warnings.js';
import type { LoadResult, ServerSecond } from '../shared/load-result.js';
import { PrometheusWriter } from './prometheus.js';
import { resultPoints, secondPoints, serverPoints, type Point, type SeriesKind } from './series.js';
import { announceTestId, generatedTestId } from './test-id.js';

/** How long the run waits after its end for the final totals to be written: a hung endpoint costs no more. */
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
  const kind: SeriesKind = { webSocket: plan.transport === 'websocket' };
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

  return {
    onSecond(summary, totals) {
      try {
        anchorMs ??= Date.now() - (summary.second + 1) * 1000;
        const timestampMs = stamp(anchorMs + (summary.second + 1) * 1000);
        stamps.set(summary.second, timestampMs);
        if (stamps.size > 60) stamps.delete(stamps.keys().next().value!);
        write(timestampMs, secondPoints(kind, summary, totals));
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
      write(stamp(Date.now()), resultPoints(kind, result));
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
