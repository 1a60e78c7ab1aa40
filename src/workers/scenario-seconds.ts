import type { ProgressEvent } from '../shared/load-result.js';
import { createHistogram, encodeHistogram } from '../stats/histogram.js';
import { progressEvent, type OnRolledSecond } from '../stats/progress-event.js';
import type { RunningTotals, SecondSummary } from '../stats/recorder.js';
import { noTotals, ProgressMerger } from './progress.js';

/** A scenario's part of a second of the run (`ProgressEvent.byScenario`). */
type ScenarioSecond = NonNullable<ProgressEvent['byScenario']>[string];

/** A second of the whole run, with each scenario's part of it. */
type OnScenariosSecond = (
  summary: Omit<SecondSummary, 'histogram'>,
  totals: RunningTotals,
  byScenario: Record<string, ScenarioSecond>,
) => void;

/** One scenario of the run: its name, and how many whole seconds after the run's start its own second 0 is. */
export interface ScenarioClock {
  name: string;
  offsetSeconds: number;
}

/** What a scenario that has not started yet contributes to a second of the run: nothing. */
function idleSecond(second: number, histogram: string): SecondSummary {
  return {
    second,
    sent: 0,
    completed: 0,
    errors: 0,
    retried: 0,
    p50: Number.NaN,
    p90: Number.NaN,
    p99: Number.NaN,
    connections: 0,
    targetRate: undefined,
    cpuPercent: 0,
    eventLoopUtilization: 0,
    histogram,
  };
}

/**
 * The seconds of a run of several scenarios, rolled into seconds of the whole run: each scenario's
 * second `k` is the run's second `k + offsetSeconds`, summed over the scenarios as worker threads'
 * seconds are (the one `ProgressMerger`); each scenario's own part rides along as `byScenario`.
 * A scenario that starts later counts as idle until then, so that it holds no second back.
 */
export class ScenarioSeconds {
  readonly #clocks: readonly ScenarioClock[];
  readonly #merger: ProgressMerger;
  /** The scenarios' own events of the seconds not yet reported, by the run's second. */
  readonly #parts = new Map<number, Record<string, ScenarioSecond>>();
  /** Per scenario: the run's next second it has not reported, idle or real. */
  readonly #next: number[];
  #idleHistogram: string | undefined;

  constructor(clocks: readonly ScenarioClock[], onSecond: OnScenariosSecond) {
    this.#clocks = clocks;
    this.#next = clocks.map(() => 0);
    this.#merger = new ProgressMerger(clocks.length, (summary, totals) => {
      const byScenario = this.#parts.get(summary.second) ?? {};
      this.#parts.delete(summary.second);
      onSecond(summary, totals, byScenario);
    });
  }

  /** Where scenario `index`'s threads report each second they close. */
  scenario(index: number): OnRolledSecond {
    const { name, offsetSeconds } = this.#clocks[index]!;
    return (summary, totals) => {
      const second = summary.second + offsetSeconds;
      this.#idleUntil(second);
      const { second: _own, ...part } = progressEvent(summary, totals);
      let parts = this.#parts.get(second);
      if (parts === undefined) this.#parts.set(second, (parts = {}));
      parts[name] = part;
      this.#next[index] = second + 1;
      // The merger reads the histogram only to add it up: a rolled second has handed it over already.
      const histogram = (summary as Partial<SecondSummary>).histogram ?? this.#idle();
      this.#merger.add(index, { ...summary, second, histogram }, totals);
    };
  }

  /** Scenario `index` has ended: later seconds no longer wait for it. */
  finish(index: number): void {
    this.#merger.finish(index);
  }

  /** Reports every second still held back, at the end of the run. */
  flush(): void {
    this.#merger.flush();
  }

  /** Marks the scenarios that have not started by `second` as idle through it. */
  #idleUntil(second: number): void {
    this.#clocks.forEach(({ offsetSeconds }, index) => {
      while (this.#next[index]! <= second && this.#next[index]! < offsetSeconds) {
        this.#merger.add(index, idleSecond(this.#next[index]!, this.#idle()), noTotals());
        this.#next[index]!++;
      }
    });
  }

  #idle(): string {
    if (this.#idleHistogram === undefined) {
      const empty = createHistogram();
      this.#idleHistogram = encodeHistogram(empty);
      empty.destroy();
    }
    return this.#idleHistogram;
  }
}
