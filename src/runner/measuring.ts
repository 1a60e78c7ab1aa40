import { performance } from 'node:perf_hooks';
import type { Plan } from '../shared/plan.js';
import { GeneratorMonitor } from '../stats/generator.js';
import { Recorder, type Gauges, type RunningTotals, type SecondSummary } from '../stats/recorder.js';

/** The warm-up recorder's generator gauge: the thread's own is read by the measured recorder only. */
const NO_GENERATOR = { cpuPercent: 0, eventLoopUtilization: 0 };

/** What a thread's runner reports each second: the second, and its totals so far. */
export type OnSecond = (summary: SecondSummary, totals: RunningTotals) => void;

/** One thread's measured run, from its clock's start: shared by the HTTP engine and the WebSocket runner. */
export interface Measuring {
  /** When the clock started (the warm-up begins), performance.now() ms. */
  startAt: number;
  /** When measuring starts (after the warm-up), performance.now() ms. */
  measureAt: number;
  /** When the run ends (`duration`), or Infinity when only `amount` ends it. */
  endAt: number;
  monitor: GeneratorMonitor;
  recorder: Recorder;
  /**
   * With a warm-up: where its exchanges are recorded, never read. Built as `recorder` is (same
   * class, shape and names), so that the warm-up runs the record path as measuring will.
   */
  warmupRecorder: Recorder | undefined;
  /** Stops the end and warm-up timers. */
  cancelTimers(): void;
}

/** What `prepareMeasuring` needs from a thread's runner. */
export interface MeasuringHooks {
  openLoop: boolean;
  gauges: Omit<Gauges, 'generator'>;
  onSecond: OnSecond | undefined;
  onEnd: () => void;
}

/**
 * Builds a thread's recorder and generator monitor, and returns what starts its clock: the warm-up
 * (after which the monitor starts again), the recorder from the end of the warm-up, and a timer that
 * calls `onEnd` at the end of the run. Built before the runner waits for its start (`startAt`) and
 * started after: the first of them in a thread costs 3-6 ms here (histograms, the event-loop delay
 * monitor, code run for the first time), which would otherwise make the start late, the first
 * open-loop slots late, and the first latencies longer.
 */
export function prepareMeasuring(
  plan: Plan,
  { openLoop, gauges, onSecond, onEnd }: MeasuringHooks,
): (clockFrom?: number) => Measuring {
  const recorder: Recorder = new Recorder(
    0,
    { ...gauges, generator: () => monitor.closeSecond() },
    onSecond && ((summary) => onSecond(summary, recorder.totals())),
    plan.expect?.status?.allowed,
  );
  recorder.nameRequests(plan.names);
  const warmupRecorder =
    plan.warmupMs > 0
      ? new Recorder(
          0,
          { ...gauges, generator: () => NO_GENERATOR },
          onSecond && (() => {}),
          plan.expect?.status?.allowed,
        )
      : undefined;
  warmupRecorder?.nameRequests(plan.names);
  const monitor = new GeneratorMonitor(openLoop, plan.warmupMs > 0);
  return (clockFrom?: number) => {
    let endAt = Infinity;
    // libuv's clock is coarser than performance.now(): a timer can fire a fraction of a ms early.
    let endTimer: NodeJS.Timeout | undefined;
    const onEndTimer = (): void => {
      const left = endAt - performance.now();
      if (left <= 0) onEnd();
      else endTimer = setTimeout(onEndTimer, Math.max(1, Math.ceil(left)));
    };
    // Its window opens here, a few microseconds before the clock (warm by now: tens of microseconds).
    monitor.restart();
    // A clock shared with other threads (`clockFrom`) that this one reached late starts where it
    // was due, so that the threads' schedules stay on one grid; the first slots then go out late.
    const current = performance.now();
    const now = Math.min(current, clockFrom ?? Infinity);
    const late = current - now;
    const measureAt = now + plan.warmupMs;
    if (plan.durationMs !== undefined) endAt = measureAt + plan.durationMs;
    if (plan.durationMs !== undefined) endTimer = setTimeout(onEndTimer, plan.warmupMs + plan.durationMs - late);
    const warmupTimer = plan.warmupMs > 0 ? setTimeout(() => monitor.restart(), plan.warmupMs - late) : undefined;
    recorder.start(measureAt);
    warmupRecorder?.start(now);
    return {
      startAt: now,
      measureAt,
      endAt,
      monitor,
      recorder,
      warmupRecorder,
      cancelTimers: () => {
        clearTimeout(warmupTimer);
        clearTimeout(endTimer);
      },
    };
  };
}

/**
 * Where a run stopped at `now` ends and how long it measured: exact when it reached its end
 * (endAt - measureAt would carry float noise, 1299.999...).
 */
export function measuredSpan(plan: Plan, measuring: Measuring, now: number): { endAt: number; durationMs: number } {
  const endAt = Math.max(measuring.measureAt, Math.min(now, measuring.endAt));
  return { endAt, durationMs: endAt === measuring.endAt ? plan.durationMs! : endAt - measuring.measureAt };
}
