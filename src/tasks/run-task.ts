import type { Plan } from '../shared/plan.js';
import type { TaskFunctions } from '../shared/task.js';
import { SalvoTaskSetupError } from '../shared/errors.js';
import { addWarning, type Warning } from '../shared/warnings.js';
import type { ShardStats } from '../stats/recorder.js';
import { TaskRunner, type TaskRunHooks } from './runner.js';

export type { TaskRunHooks };

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * `setup`'s state, awaited before the clock starts, for at most `setupTimeout`. A setup that throws
 * rejects the run with a SalvoTaskSetupError whose `cause` is what it threw, before anything is
 * sent; one that has not finished in time rejects it with code `SALVO_TASK_SETUP_TIMEOUT`, its signal
 * aborted. An abort while it runs stops the wait (undefined: the run then ends at once, aborted). A
 * setup that finishes after either is torn down when it does.
 */
async function runSetup(
  functions: TaskFunctions,
  plan: Plan,
  signal: AbortSignal | undefined,
): Promise<{ state: unknown } | undefined> {
  if (functions.setup === undefined) return { state: undefined };
  const limitMs = plan.task!.setupTimeoutMs;
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const running = (async () => functions.setup!({ concurrency: plan.connections, signal: controller.signal }))();
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<typeof ABORTED | typeof TIMED_OUT>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
    timer = setTimeout(resolve, limitMs, TIMED_OUT);
  });
  let state: unknown;
  try {
    state = await Promise.race([running, cut]);
  } catch (error) {
    throw new SalvoTaskSetupError(`task: setup threw before the run started, so nothing was sent: ${message(error)}`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
  if (state !== ABORTED && state !== TIMED_OUT) {
    controller.abort();
    return { state };
  }
  running.then(
    (late) => teardown(functions, late, plan.timeoutMs, []),
    () => undefined,
  );
  if (state === ABORTED) return undefined;
  controller.abort(new DOMException(`setup took longer than setupTimeout (${limitMs} ms)`, 'TimeoutError'));
  throw new SalvoTaskSetupError(
    `task: setup had not finished within setupTimeout (${limitMs} ms), so nothing was sent; its ctx.signal was aborted. ` +
      'A client connecting to a server that accepts and never answers looks like this; give a longer setupTimeout if setup is only slow.',
    { code: 'SALVO_TASK_SETUP_TIMEOUT' },
  );
}
const TIMED_OUT = Symbol('timed out');
const ABORTED = Symbol('aborted');

/**
 * Runs `teardown(state)`, for at most `timeoutMs` (a run ends on time); what goes wrong is a
 * warning, never the run's numbers.
 */
async function teardown(
  functions: TaskFunctions,
  state: unknown,
  timeoutMs: number,
  warnings: Warning[],
): Promise<void> {
  if (functions.teardown === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, timeoutMs, 'late')));
  try {
    const outcome = await Promise.race([(async () => functions.teardown!(state))(), late]);
    if (outcome === 'late') {
      addWarning(
        warnings,
        'TASK_TEARDOWN_TIMEOUT',
        `task: teardown had not finished ${timeoutMs} ms (timeout) after the run ended; the run did not wait longer for it.`,
      );
    }
  } catch (error) {
    addWarning(
      warnings,
      'TASK_TEARDOWN_FAILED',
      `task: teardown threw: ${message(error)}. The run's numbers are unaffected.`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One thread's task run: `setup` before the clock (its state is every call's `ctx.state`), the
 * calls on the runner's lifecycle, then `teardown`, also after an abort.
 */
export async function runTask(plan: Plan, hooks: TaskRunHooks): Promise<ShardStats> {
  const functions = hooks.task;
  if (functions === undefined) throw new Error('a task plan runs with its task functions (hooks.task)');
  const setup = await runSetup(functions, plan, hooks.signal);
  const stats = await new TaskRunner(plan, { ...hooks, state: setup?.state }).run();
  if (setup !== undefined) await teardown(functions, setup.state, plan.timeoutMs, stats.warnings);
  return stats;
}
