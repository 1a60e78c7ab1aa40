import type { MessagePort } from 'node:worker_threads';
import type { Plan } from '../shared/plan.js';
import type { RunningTotals, SecondSummary } from '../stats/recorder.js';

/** Messages from the main thread to a shard. */
export type ToWorker =
  /** Start the clock at `atMs` (wall-clock epoch ms, `wallClockMs`), the same instant in every shard. */
  | { type: 'go'; atMs: number }
  | { type: 'stop' }
  /** `startLoad`'s handle: this shard's rate from `atMs` (wall-clock epoch ms), its connections now. */
  | { type: 'rate'; rate: number; atMs: number }
  | { type: 'connections'; connections: number };

/** Messages from a shard to the main thread. */
export type ToMain =
  { type: 'ready' } | { type: 'second'; summary: SecondSummary; totals: RunningTotals } | { type: 'done' };

/** What the pool hands each worker thread: its shard of the plan and its end of a channel. */
export interface ShardTask {
  plan: Plan;
  port: MessagePort;
  /** Send each closed second to the main thread (only when someone listens). */
  progress: boolean;
}
