import { runEngine } from '../engine/engine.js';
import type { Plan } from '../shared/plan.js';
import type { ShardStats } from '../stats/recorder.js';
import { runWebSocket, type WebSocketRunHooks } from '../websocket/runner.js';

/** Runs one thread's share of a plan: HTTP on the engine, a `ws:`/`wss:` url on the WebSocket runner. */
export function runThread(plan: Plan, hooks: WebSocketRunHooks): Promise<ShardStats> {
  return plan.websocket !== undefined ? runWebSocket(plan, hooks) : runEngine(plan, hooks);
}
