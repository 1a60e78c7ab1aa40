import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { SalvoOptionError, SalvoTaskSetupError } from '../shared/errors.js';
import type { StartGate } from '../runner/start-gate.js';
import type { Plan, PlanHooks } from '../shared/plan.js';
import type { OnRolledSecond } from '../stats/progress-event.js';
import type { ShardStats } from '../stats/recorder.js';
import { ProgressMerger } from './progress.js';
import { shardPlan } from './shard.js';
import { receivedSetupError } from './setup-error.js';
import type { ShardTask, ToMain, ToWorker } from './messages.js';
import { emptyShardStats } from './worker.js';
import type { RunSteering } from './run-steering.js';

/**
 * How far ahead of the 'go' message the shards start their clocks, together: a message reaches each
 * thread when that thread gets to it (3.8 ms apart measured on a busy 2-core host), and shards whose
 * clocks started apart sent their interleaved slots off their turns (two shards at 200/s landed
 * 1.2 and 8.8 ms apart instead of 5 and 5). A shard that gets the message later starts at once,
 * its clock still from the shared instant.
 */
const GO_LEAD_MS = 10;

/** The `errors.byCode` key under which each crashed worker thread is counted once. */
export const WORKER_CRASHED = 'WORKER_CRASHED';

/**
 * The worker entry next to this module, with this module's own extension: `dist/worker.js` beside
 * `dist/index.js`, `dist/worker.cjs` beside `dist/index.cjs`, `src/workers/worker.ts` under tsx
 * (the threads inherit `--import=tsx` through execArgv).
 */
function workerFilename(): string {
  const here = fileURLToPath(import.meta.url);
  return join(dirname(here), `worker${extname(here)}`);
}

/** What a crashed shard contributes: no measurements (they died with the thread), one error. */
function crashedShardStats(shard: number, error: unknown): ShardStats {
  process.emitWarning(
    `salvo: worker ${shard} crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return { ...emptyShardStats(), errors: 1, errorsByCode: { [WORKER_CRASHED]: 1 } };
}

/**
 * A task thread that failed before it was ready (its module's setup threw, or its import failed):
 * the run's error, thrown once every other thread has torn down.
 */
function setupFailed(error: unknown): SalvoTaskSetupError {
  const sent = receivedSetupError(error);
  if (sent !== undefined) return sent;
  const message = error instanceof Error ? error.message : String(error);
  return new SalvoTaskSetupError(
    message.startsWith('task:')
      ? message
      : `task: a worker thread failed before the run started, so nothing was sent: ${message}`,
    { cause: error },
  );
}

/** Every part of the plan is copied into each thread: say which option cannot be, before starting. */
function assertCopyable(plan: Plan): void {
  for (const [option, value] of Object.entries(plan)) {
    try {
      structuredClone(value);
    } catch (error) {
      throw new SalvoOptionError(
        `${option} cannot be copied into worker threads (workers: ${plan.workers}): ${error instanceof Error ? error.message : String(error)}; use workers: 1`,
        { option, value, mentions: ['workers'], cause: error },
      );
    }
  }
}

/**
 * Runs the plan on `plan.workers` piscina worker threads, one shard each (see `shardPlan`), and
 * resolves with every shard's stats for `mergeShards`.
 *
 * - Start barrier: each shard opens its connections and posts 'ready'; once all have, and
 *   the `startAt` wait is `GO_LEAD_MS` from its end, each gets 'go' with one instant just ahead and
 *   starts its clock then, so the shards' seconds cover the same stretch of time and their
 *   open-loop slots interleave on one schedule.
 * - Progress: shards stream their closed seconds (with the encoded histogram) and this thread calls
 *   `onSecond` (`onProgress`, `outputs`) once per second of the whole run.
 * - Abort: `signal` sends 'stop' to every shard; each resolves with what it measured, `aborted`.
 * - Crash: a shard whose thread throws is counted once under `errors.byCode.WORKER_CRASHED` (the
 *   error goes to `process.emitWarning`), the others are stopped and keep their data.
 */
export async function runWorkers(
  plan: Plan,
  hooks: PlanHooks,
  start: StartGate,
  onSecond: OnRolledSecond | undefined,
  steering?: RunSteering,
): Promise<ShardStats[]> {
  const { signal } = hooks;
  assertCopyable(plan);
  if (signal?.aborted) return [emptyShardStats()];
  const shards = shardPlan(plan);
  const progress = onSecond === undefined ? undefined : new ProgressMerger(shards.length, onSecond);
  const pool = new Piscina<ShardTask, ShardStats>({
    filename: workerFilename(),
    minThreads: shards.length,
    maxThreads: shards.length,
    concurrentTasksPerWorker: 1,
    // piscina's synchronous Atomics wait would block a thread's event loop between tasks; each
    // thread runs a single long task here, so there is nothing to gain from it.
    atomics: 'disabled',
  });
  // A thread that fails with no task running (a hook's timer firing after its shard ended) is
  // reported by piscina as an 'error' event, which would otherwise throw in the user's process.
  pool.on('error', (error: unknown) =>
    process.emitWarning(`salvo: a worker thread failed after its shard ended: ${String(error)}`),
  );
  const ports: MessagePort[] = [];
  const done: Array<Promise<void>> = [];
  let readyCount = 0;
  const ready: boolean[] = [];
  // A task thread may fail at its setup, before the barrier: the others are stopped (not dropped)
  // so that each runs its teardown.
  const taskRun = plan.kind === 'task';
  let setupFailure: unknown;
  let started = false;
  let stopping = false;
  let abandon!: () => void;
  // Stopped before the barrier released: no shard has measured anything, so the threads, perhaps
  // still loading, are not waited for.
  const crashed: Array<ShardStats | undefined> = [];
  const abandoned = new Promise<ShardStats[]>(
    (resolve) => (abandon = () => resolve(shards.map((_, index) => crashed[index] ?? emptyShardStats()))),
  );
  const send = (message: ToWorker) => {
    for (const port of ports) port.postMessage(message);
  };
  const stopAll = () => {
    if (stopping) return;
    stopping = true;
    if (started || taskRun) send({ type: 'stop' });
    else abandon();
  };
  signal?.addEventListener('abort', stopAll, { once: true });

  const runs = shards.map((shard, index) => {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1);
    done.push(
      new Promise<void>((resolve) => {
        port1.on('message', (message: ToMain) => {
          if (message.type === 'ready') {
            ready[index] = true;
            if (++readyCount === shards.length && !stopping) {
              void start.lead(GO_LEAD_MS).then((atMs) => {
                if (stopping) return;
                started = true;
                send({ type: 'go', atMs });
              });
            }
          } else if (message.type === 'second') {
            progress?.add(index, message.summary, message.totals);
          } else {
            resolve();
          }
        });
      }),
    );
    const task: ShardTask = { plan: shard, port: port2, progress: progress !== undefined };
    return pool.run(task, { transferList: [port2] }).then(
      // The result and the shard's messages travel on different ports: wait for its 'done' so
      // that no second is still on the way when progress is flushed.
      async (stats) => {
        // A shard that ends aborted by itself (an abortOnFail threshold) ends the whole run.
        if (stats.aborted) stopAll();
        await done[index];
        progress?.finish(index);
        return stats;
      },
      (error: unknown) => {
        if (taskRun && !ready[index]) {
          setupFailure ??= error;
          stopAll();
          return emptyShardStats();
        }
        // After an early stop, the pool's ending the threads rejects their tasks: no crash.
        if (stopping && !started) return emptyShardStats();
        progress?.finish(index);
        crashed[index] = crashedShardStats(index, error);
        stopAll();
        return crashed[index];
      },
    );
  });
  // Messages queue on each port until its thread takes them: a change made before the start applies from it.
  steering?.onWorkers(shards.length, (index, message) => ports[index]!.postMessage(message));
  try {
    const stats = await Promise.race([Promise.all(runs), abandoned]);
    if (setupFailure !== undefined) throw setupFailed(setupFailure);
    return stats;
  } finally {
    signal?.removeEventListener('abort', stopAll);
    progress?.flush();
    for (const port of ports) port.close();
    await pool.destroy();
  }
}
