import type { CheckStats } from '../shared/load-result.js';
import { MAX_CHECK_EXAMPLES } from '../stats/checks.js';

/** `ctx.check(name, passed)` counted per name, in `expect`'s `CheckStats` shape so that both merge and judge alike. */
export class TaskChecks {
  readonly #byName = new Map<string, { passed: number; failed: number }>();
  readonly #examples: CheckStats['examples'] = [];
  #passed = 0;
  #failed = 0;

  record(name: string, passed: boolean, message: string | undefined): void {
    let counts = this.#byName.get(name);
    if (counts === undefined) this.#byName.set(name, (counts = { passed: 0, failed: 0 }));
    if (passed) {
      counts.passed++;
      this.#passed++;
      return;
    }
    counts.failed++;
    this.#failed++;
    if (this.#examples.length < MAX_CHECK_EXAMPLES && !this.#examples.some((example) => example.name === name)) {
      this.#examples.push({ name, message: message ?? `${name} failed` });
    }
  }

  /** Undefined until some call checked something: a run without checks has no `checks`. */
  stats(): CheckStats | undefined {
    if (this.#byName.size === 0) return undefined;
    return {
      passed: this.#passed,
      failed: this.#failed,
      byName: Object.fromEntries([...this.#byName].map(([name, counts]) => [name, { ...counts }])),
      examples: [...this.#examples],
    };
  }
}
