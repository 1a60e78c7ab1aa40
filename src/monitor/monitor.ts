import { wallClockMs } from '../runner/start-gate.js';
import type { ServerReadingSecond, ServerSecond, ServerSeries } from '../shared/load-result.js';
import { addWarning, type Warning } from '../shared/warnings.js';
import type { PlannedMonitor } from '../shared/plan.js';
import { ProcessSource } from './process-source.js';
import { PrometheusSource } from './prometheus-source.js';
import type { ByteCounts, MonitorSource, Reading } from './reading.js';
import { serverSecond } from '../stats/server.js';
import { sameProcess } from './same-process.js';

/** The `result.warnings` code raised when a monitored source did not answer. */
export const MONITOR_UNAVAILABLE = 'MONITOR_UNAVAILABLE';
/** A read not back by then is abandoned (the next second's is due): a monitor never waits on a slow source. */
const READ_TIMEOUT_MS = 800;
/** A run that ends this close to its last sample ends on that sample. */
const END_SLACK_MS = 20;

interface Watched {
  source: MonitorSource;
  /** One reading per sample, from the run's start: undefined where the source did not answer. */
  readings: Array<Reading | undefined>;
  error?: { sample: number; message: string };
}

/**
 * `monitor`: reads every source once a second in this (the main) thread, on the timeline's grid
 * (`startedAt` + k seconds), and once more at the end. Reads run beside the load, never on its path:
 * each is an asynchronous read that is abandoned after `READ_TIMEOUT_MS`.
 */
export class ServerMonitor {
  readonly #watched: Watched[];
  #startMs: number | undefined;
  #endMs = Infinity;
  #timer: NodeJS.Timeout | undefined;
  #samples = 0;
  readonly #inFlight = new Set<Promise<void>>();
  /** Who waits for sample i to settle (onProgress), by sample. */
  readonly #waiting = new Map<number, Array<() => void>>();
  readonly #settled = new Set<number>();
  #finished = false;

  constructor(planned: PlannedMonitor) {
    this.#watched = [
      ...planned.processes.map((pid) => new ProcessSource(pid)),
      ...planned.prometheus.map(({ url, devices }) => new PrometheusSource(url, devices)),
    ].map((source) => ({ source, readings: [] }));
  }

  /** Starts sampling at `startMs` (wall clock, epoch ms: the measured run's start); the first call wins. */
  start(startMs: number, durationMs: number | undefined): void {
    if (this.#startMs !== undefined || this.#finished) return;
    this.#startMs = startMs;
    if (durationMs !== undefined) this.#endMs = startMs + durationMs;
    this.#schedule();
  }

  #schedule(): void {
    const at = Math.min(this.#startMs! + this.#samples * 1000, this.#endMs);
    this.#timer = setTimeout(
      () => {
        this.#sample();
        if (at < this.#endMs) this.#schedule();
      },
      Math.max(0, at - wallClockMs()),
    );
  }

  #sample(): void {
    const index = this.#samples++;
    const reads = this.#watched.map(async (watched) => {
      const atMs = wallClockMs();
      try {
        const reading = await watched.source.read(READ_TIMEOUT_MS);
        watched.readings[index] = { atMs, ...reading, readMs: [atMs, wallClockMs()] };
      } catch (error) {
        watched.error ??= { sample: index, message: error instanceof Error ? error.message : String(error) };
      }
    });
    const settled = Promise.all(reads).then(() => {
      this.#inFlight.delete(settled);
      this.#settled.add(index);
      for (const resolve of this.#waiting.get(index) ?? []) resolve();
      this.#waiting.delete(index);
    });
    this.#inFlight.add(settled);
  }

  /**
   * Second `second` of the run as far as the sources answered for it, once its closing sample is
   * read (or the monitor finished): for `onProgress`, off the load's path.
   */
  async second(second: number): Promise<ServerSecond | undefined> {
    const closing = second + 1;
    if (!this.#finished && !this.#settled.has(closing)) {
      await new Promise<void>((resolve) => {
        const list = this.#waiting.get(closing) ?? [];
        list.push(resolve);
        this.#waiting.set(closing, list);
      });
    }
    return serverSecond(this.#series(), second);
  }

  /**
   * Stops sampling: a run that ended before its last planned sample (`amount`, an abort) is read
   * once more now. Waits for reads in flight (at most `READ_TIMEOUT_MS`), then gives each source's
   * seconds and adds `MONITOR_UNAVAILABLE` to `warnings` for a source that did not always answer.
   */
  async finish(warnings: Warning[]): Promise<ServerSeries[] | undefined> {
    clearTimeout(this.#timer);
    if (this.#startMs !== undefined && !this.#finished) {
      // The planned end was sampled already unless the run ended early (an abort) or had no set length.
      const lastAt = Math.min(this.#startMs + (this.#samples - 1) * 1000, this.#endMs);
      if (this.#samples === 0 || (lastAt < this.#endMs && wallClockMs() - lastAt > END_SLACK_MS)) this.#sample();
    }
    this.#finished = true;
    await Promise.all(this.#inFlight);
    for (const list of this.#waiting.values()) for (const resolve of list) resolve();
    this.#waiting.clear();
    for (const { source } of this.#watched) source.close();
    if (this.#startMs === undefined) return undefined;
    const series = this.#series();
    const failed = series.filter((s) => s.error !== undefined);
    if (failed.length > 0)
      addWarning(warnings, MONITOR_UNAVAILABLE, unavailableMessage(this.#watched.filter((w) => w.error !== undefined)));
    return series;
  }

  #series(): ServerSeries[] {
    return this.#watched.map((watched) => ({
      source: watched.source.name,
      scope: watched.source.scope,
      ...coresOf(watched.readings),
      ...this.#sameProcess(watched),
      ...(watched.error !== undefined ? { error: watched.error.message } : {}),
      startedAt: this.#startMs ?? 0,
      seconds: Array.from({ length: Math.max(0, this.#samples - 1) }, (_, i) =>
        difference(watched.readings[i], watched.readings[i + 1]),
      ),
    }));
  }

  /**
   * A pid that is also a metrics page's process (prom-client's): the page's source, which is counted
   * and this one not (see `sameProcess` for the rule).
   */
  #sameProcess({ source, readings }: Watched): { sameProcessAs?: string } {
    if (!(source instanceof ProcessSource)) return {};
    const cores = coresOf(readings).cores ?? 1;
    for (const other of this.#watched) {
      if (other.source instanceof ProcessSource || other.source.scope !== 'process') continue;
      if (sameProcess(readings, other.readings, cores)) return { sameProcessAs: other.source.name };
    }
    return {};
  }
}

function coresOf(readings: ReadonlyArray<Reading | undefined>): { cores?: number } {
  const cores = readings.find((reading) => reading?.cores !== undefined)?.cores;
  return cores === undefined ? {} : { cores };
}

/** What a source said over the second between two readings; null when either is missing. */
function difference(from: Reading | undefined, to: Reading | undefined): ServerReadingSecond | null {
  if (from === undefined || to === undefined) return null;
  const second: ServerReadingSecond = { wallMs: to.atMs - from.atMs };
  if (from.cpuSeconds !== undefined && to.cpuSeconds !== undefined)
    second.cpuMs = Math.max(0, (to.cpuSeconds - from.cpuSeconds) * 1000);
  if (to.rssBytes !== undefined) second.rssBytes = to.rssBytes;
  // A counter that went down was reset (an exporter restarted): that second is unknown, not negative.
  // The monitor's own scrapes in between: the response to the first, the request of the second.
  const own = (field: keyof ByteCounts) => (from.ownBytes?.after[field] ?? 0) + (to.ownBytes?.before[field] ?? 0);
  if (from.receivedBytes !== undefined && to.receivedBytes !== undefined && to.receivedBytes >= from.receivedBytes) {
    second.receivedBytes = Math.max(0, to.receivedBytes - from.receivedBytes - own('received'));
  }
  if (from.sentBytes !== undefined && to.sentBytes !== undefined && to.sentBytes >= from.sentBytes) {
    second.sentBytes = Math.max(0, to.sentBytes - from.sentBytes - own('sent'));
  }
  if (to.eventLoopLagMs !== undefined) second.eventLoopLagMs = to.eventLoopLagMs;
  return second;
}

function unavailableMessage(failed: Watched[]): string {
  const parts = failed.map(({ source, readings, error }) => {
    const answered = readings.some((reading) => reading !== undefined);
    const when = !answered
      ? 'never answered'
      : error!.sample === 0
        ? 'did not answer at the start'
        : `stopped answering at second ${error!.sample}`;
    return `${source.name} ${when} (${error!.message})`;
  });
  return (
    `monitor: ${parts.join('; ')}. result.server covers only the seconds each source answered (see result.server.sources); ` +
    'the run itself went on. Check that the process is alive and the metrics URL answers within 800 ms.'
  );
}
