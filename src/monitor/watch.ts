import type { StartGate } from '../runner/start-gate.js';
import type { Plan, PlanHooks } from '../shared/plan.js';
import type { LoadResult, ServerSeries } from '../shared/load-result.js';
import { addWarning, type Warning } from '../shared/warnings.js';
import { ServerMonitor } from './monitor.js';
import { attachServer } from '../stats/server.js';

/** What `runLoad` does with `monitor`: start it with the run's clock, and fold its readings into the result. */
export interface ServerWatch {
  /** The hooks to run with: `onProgress` events carry the server's second. */
  hooks: PlanHooks;
  /** Takes the last sample and stops sampling: called as soon as the load ends (or throws). */
  stop(): void;
  /** Finishes the monitor and puts `server` (and any `MONITOR_UNAVAILABLE`) into `result`. */
  attach(result: LoadResult): Promise<void>;
}

/** Watches the server of a run of `plan` in this thread, or does nothing without `monitor`. */
export function watchServer(plan: Plan, hooks: PlanHooks, start: StartGate): ServerWatch {
  if (plan.monitor === undefined) return { hooks, stop() {}, attach: async () => {} };
  const monitor = new ServerMonitor(plan.monitor);
  start.onGo = (atMs) => monitor.start(atMs + plan.warmupMs, plan.durationMs);
  const { onProgress } = hooks;
  let delivered = Promise.resolve();
  const withServer: PlanHooks['onProgress'] =
    typeof onProgress === 'function'
      ? (event) => {
          // Each event waits for its second's closing sample off the load's path, in order.
          delivered = delivered
            .then(() => monitor.second(event.second))
            .then((server) => onProgress(server === undefined ? event : { ...event, server }))
            .catch((error: unknown) => process.emitWarning(`salvo: onProgress threw: ${String(error)}`));
        }
      : onProgress;
  let finished: Promise<ServerSeries[] | undefined> | undefined;
  const warnings: Warning[] = [];
  const stop = () => (finished ??= monitor.finish(warnings));
  return {
    hooks: { ...hooks, onProgress: withServer },
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
