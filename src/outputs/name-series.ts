import type { LoadResult } from '../shared/load-result.js';
import type { SecondSummary } from '../stats/recorder.js';
import { nameSeconds } from '../stats/progress-event.js';
import { addWarning } from '../shared/warnings.js';
import type { Point } from './series.js';

/** Distinct `name` label values a run writes; the names past them share one. */
export const MAX_NAME_LABELS = 100;
export const OTHER_NAME = 'other';

interface Counts {
  sent: number;
  completed: number;
  errors: number;
}

/**
 * The per-name series (`salvo_name_*`, each with a `name` label), kept to `MAX_NAME_LABELS` names:
 * a URL with ids in its path must not explode a time-series database. The first names keep their
 * own; the rest fall under `other`, counted together, and the run gets a `TOO_MANY_NAMES` warning.
 */
export class NameSeries {
  readonly #labels = new Map<string, string>();
  readonly #totals = new Map<string, Counts>();
  #overflow = 0;

  #label(name: string): string {
    let label = this.#labels.get(name);
    if (label === undefined) {
      label = this.#labels.size - this.#overflow < MAX_NAME_LABELS || name === OTHER_NAME ? name : OTHER_NAME;
      if (label === OTHER_NAME && name !== OTHER_NAME) this.#overflow++;
      this.#labels.set(name, label);
    }
    return label;
  }

  /** One closed second's samples: each name's counters so far, and its p50 and p99 when it timed anything. */
  secondPoints(byName: SecondSummary['byName']): Point[] {
    if (byName === undefined) return [];
    const points: Point[] = [];
    for (const [name, second] of Object.entries(nameSeconds(byName))) {
      const label = this.#label(name);
      const totals = this.#totals.get(label) ?? { sent: 0, completed: 0, errors: 0 };
      totals.sent += second.sent;
      totals.completed += second.completed;
      totals.errors += second.errors;
      this.#totals.set(label, totals);
      // `other` mixes names: a percentile of theirs is none of theirs.
      if (second.p99 > 0 && label !== OTHER_NAME) {
        points.push(
          { name: 'salvo_name_latency_p50_seconds', label: ['name', label], value: second.p50 / 1000 },
          { name: 'salvo_name_latency_p99_seconds', label: ['name', label], value: second.p99 / 1000 },
        );
      }
    }
    return [...this.#counters(), ...points];
  }

  /** The exact totals from the merged result, at the end; adds `TOO_MANY_NAMES` when names were folded. */
  resultPoints(result: LoadResult): Point[] {
    if (result.byName === undefined) return [];
    this.#totals.clear();
    for (const [name, stats] of Object.entries(result.byName)) {
      const label = this.#label(name);
      const totals = this.#totals.get(label) ?? { sent: 0, completed: 0, errors: 0 };
      totals.sent += stats.requests.sent;
      totals.completed += stats.requests.completed;
      totals.errors += stats.errors.total;
      this.#totals.set(label, totals);
    }
    if (this.#overflow > 0) {
      addWarning(
        result.warnings,
        'TOO_MANY_NAMES',
        `the run had ${MAX_NAME_LABELS + this.#overflow} request names; outputs wrote the first ${MAX_NAME_LABELS} as name labels and the other ${this.#overflow} together as name="${OTHER_NAME}", ` +
          "so that the time-series database gets a bounded number of series. Give requests whose path carries ids a name of their own (requests[i].name), or set one in setupRequest's step.",
      );
    }
    return this.#counters();
  }

  #counters(): Point[] {
    const points: Point[] = [];
    for (const [label, totals] of this.#totals) {
      points.push(
        { name: 'salvo_name_requests_sent_total', label: ['name', label], value: totals.sent },
        { name: 'salvo_name_responses_total', label: ['name', label], value: totals.completed },
        { name: 'salvo_name_errors_total', label: ['name', label], value: totals.errors },
      );
    }
    return points;
  }
}
