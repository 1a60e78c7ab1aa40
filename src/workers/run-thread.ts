import { runEngine } from '../engine/engine.js';
import { runSubscriptions } from '../engine/subscriptions.js';
import type { Plan } from '../shared/plan.js';
import type { ShardStats } from '../stats/recorder.js';
import { runWebSocket, type WebSocketRunHooks } from '../websocket/runner.js';
import { runSocketIo } from '../websocket/socketio-runner.js';
import { runTask, type TaskRunHooks } from '../tasks/run-task.js';

/**
 * Runs one thread's share of a plan: HTTP on the engine, a `ws:`/`wss:` url or `socketio` on the
 * WebSocket runner, a `task` on the task runner, SSE subscriptions (`stream.subscribe`) on theirs.
 */
export function runThread(plan: Plan, hooks: WebSocketRunHooks & TaskRunHooks): Promise<ShardStats> {
  switch (plan.kind) {
    case 'task':
      return runTask(plan, hooks);
    case 'socketio':
      return runSocketIo(plan, hooks);
    case 'subscription':
      return runSubscriptions(plan, hooks);
    case 'websocket':
      return runWebSocket(plan, hooks);
    case 'http':
      return runEngine(plan, hooks);
  }
}
