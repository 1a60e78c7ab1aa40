import { performance } from 'node:perf_hooks';
import { StartGate } from '../runner/start-gate.js';
import { ThreadSteering } from '../runner/steering.js';
import { runThread } from './run-thread.js';
import type { Plan } from '../shared/plan.js';
import { Recorder, type ShardStats } from '../stats/recorder.js';
import type { RequestSpec } from '../shared/load-options.js';
import { importExport } from './modules.js';
import type { ShardTask, ToMain, ToWorker } from './messages.js';
import { loadTaskFunctions } from './task-module.js';
import { SalvoTaskSetupError } from '../shared/errors.js';
import { sendSetupError } from './setup-error.js';

async function importRequestHooks(plan: Plan): Promise<RequestSpec[] | undefined> {
  if (plan.requestsModule === undefined) return undefined;
  // A plan from `flows` (its flows have names) has its steps from a flows module, flattened in order.
  const flows = plan.journey?.flows.some((flow) => flow.name !== '') === true;
  const exported = await importExport(flows ? 'flows' : 'requests', plan.requestsModule, [
    'default',
    flows ? 'flows' : 'requests',
  ]);
  const specs =
    flows && Array.isArray(exported)
      ? exported.flatMap((flow: { requests?: unknown }) => flow?.requests ?? [])
      : exported;
  // The main thread planned the requests from its own import; the hooks must line up with them.
  if (!Array.isArray(specs) || specs.length !== plan.requests.length) {
    throw new Error(
      `requests: ${plan.requestsModule} exported a different sequence in a worker than in the main thread`,
    );
  }
  return specs as RequestSpec[];
}

/** The stats of a shard that measured nothing: stopped before its clock started, or crashed. */
export function emptyShardStats(): ShardStats {
  const now = performance.now();
  return new Recorder(now, { connections: () => 0, targetRate: () => undefined }, undefined).finish(
    now,
    0,
    true,
    undefined,
  );
}

/**
 * Runs one shard in a worker thread: opens its connections, says 'ready', starts its clock on 'go'
 * (so every shard's timeline lines up), streams its seconds, and stops on 'stop'.
 */
export default async function runShard({ plan, port, progress }: ShardTask): Promise<ShardStats> {
  const controller = new AbortController();
  let release!: (clockFrom: number) => void;
  const go = new Promise<number>((resolve) => (release = resolve));
  // 'stop' follows 'go' (the pool drops threads stopped before the barrier), and the engine has
  // started its clock before the next message arrives: it is never aborted mid-connect. A task run
  // is also stopped at the barrier, when another thread's setup failed.
  const steering = new ThreadSteering();
  port.on('message', (message: ToWorker) => {
    if (message.type === 'rate') return steering.setRate(message.rate, message.atMs);
    if (message.type === 'connections') return steering.setConnections(message.connections);
    if (message.type !== 'go') {
      controller.abort();
      // Stopped at the start barrier (a task's setup failed in another thread): end the wait, so that this thread's teardown runs.
      release(NaN);
      return;
    }
    // The shared instant in this thread's performance.now(): the clock starts from it even when
    // this thread gets there late.
    const clockFrom = message.atMs - performance.timeOrigin;
    void new StartGate(message.atMs, 0, controller.signal).wait().then(() => release(clockFrom));
  });
  const post = (message: ToMain) => port.postMessage(message);
  const stats = await runThread(plan, {
    requests: await importRequestHooks(plan),
    task: plan.task?.module === undefined ? undefined : await loadTaskFunctions(plan.task),
    signal: controller.signal,
    steering,
    onSecond: progress ? (summary, totals) => post({ type: 'second', summary, totals }) : undefined,
    ready: async () => {
      post({ type: 'ready' });
      return go;
    },
  }).catch((error: unknown) => {
    throw error instanceof SalvoTaskSetupError ? sendSetupError(error) : error;
  });
  // Sent on the same port as the seconds, so the main thread knows it has them all.
  post({ type: 'done' });
  return stats;
}
