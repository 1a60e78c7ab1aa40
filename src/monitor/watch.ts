import type { StartGate } from '../runner/start-gate.js';
import type { Plan } from '../shared/plan.js';
import type { LoadResult, ServerSecond, ServerSeries } from '../shared/load-result.js';
import { addWarning, type Warning } from '../shared/warnings.js';
import { ServerMonitor } from './monitor.js';
import { attachServer } from '../stats/server.js';

/** What `runLoad` does with `monitor`: start it with the run's clock, and fold its readings into the result. */
export interface ServerWatch {
  /**
   * Calls `then` with the server's reading of `second` (undefined without `monitor` or a reading):
   * at once without `monitor`, else once its closing sample is read, off the load's path, in order.
   */
  withServer(second: number, then: (server: ServerSecond | undefined) => void): void;
  /** Takes the last sample and stops sampling: called as soon as the load ends (or throws). */
  stop(): void;
  /** Finishes the monitor and puts `server` (and any `MONITOR_UNAVAILABLE`) into `result`. */
  attach(result: LoadResult): Promise<void>;
}

/** A second's listeners (`onProgress`) may throw: a warning, and the run goes on. */
function warnThrew(error: unknown): void {
  process.emitWarning(`salvo: onProgress threw: ${String(error)}`);
}

/** Watches the server of a run of `plan` in this thread, or does nothing without `monitor`. */
export function watchServer(plan: Plan, start: StartGate): ServerWatch {
  if (plan.monitor === undefined) {
    const withServer: ServerWatch['withServer'] = (_, then) => {
      try {
        then(undefined);
      } catch (error) {
        warnThrew(error);
      }
    };
    return { withServer, stop() {}, attach: async () => {} };
  }
  const monitor = new ServerMonitor(plan.monitor);
  start.onGo = (atMs) => monitor.start(atMs + plan.warmupMs, plan.durationMs);
  let delivered = Promise.resolve();
  let finished: Promise<ServerSeries[] | undefined> | undefined;
  const warnings: Warning[] = [];
  const stop = () => (finished ??= monitor.finish(warnings));
  return {
    withServer(second, then) {
      delivered = delivered
        .then(() => monitor.second(second))
        .then(then)
        .catch(warnThrew);
    },
    stop() {
      void stop();
    },
    async attach(result) {
      const series = await stop();
      for (const warning of warnings) addWarning(result.warnings, warning.code, warning.message);
      if (series !== undefined) attachServer(result, series);
      await delivered;
    },
  };
}
