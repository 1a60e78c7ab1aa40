// `runLoad({ agents })`: this process coordinates agents and sends no load itself. It waits for
// `expect` agents that prove the token, hands each its segment of the plan (with the task module and
// data files) and one start instant, merges their seconds as they arrive (onProgress, outputs,
// monitor and abortOnFail see the whole fleet), and merges their results exactly at the end.
import { randomUUID } from 'node:crypto';
import type { LoadOptions } from '../shared/load-options.js';
import type { LoadResult } from '../shared/load-result.js';
import type { Plan, PlanHooks } from '../shared/plan.js';
import type { LiveOutputs } from '../outputs/live.js';
import type { OnRolledSecond } from '../stats/progress-event.js';
import { SalvoAgentsError, SalvoRangeError } from '../shared/errors.js';
import { prewarmLeadMs } from '../engine/prewarm.js';
import { StartGate, wallClockMs } from '../runner/start-gate.js';
import { watchServer, type ServerWatch } from '../monitor/watch.js';
import { planRun } from '../scenarios.js';
import { planAgents } from './options.js';
import { AgentServer } from './agent-server.js';
import { agentOptions, runFiles } from './plan-files.js';
import { FleetRun } from './fleet-run.js';
import { fleetResult, type FleetAgent } from './fleet-result.js';

/** What the coordinator borrows from run.ts (passed in, so that run.ts alone imports this module). */
export interface RunParts {
  secondRoute: (
    onProgress: PlanHooks['onProgress'],
    outputs: LiveOutputs | undefined,
    watch: ServerWatch,
  ) => OnRolledSecond | undefined;
  startOutputs: (outputs: PlanHooks['outputs'], plan: Plan) => Promise<LiveOutputs | undefined>;
}

/** Time for every agent to take its plan, write its files, pre-warm and connect before the start. */
const START_LEAD_MS = 1500;

/** Runs `options` over `options.agents` and resolves with the fleet's merged result. */
export async function coordinate(options: LoadOptions, parts: RunParts): Promise<LoadResult> {
  const planned = planAgents(options);
  const { agents: _agents, onProgress: _onProgress, signal, outputs: _outputs, monitor: _monitor, ...sent } = options;
  const base = agentOptions(sent);
  // The whole plan, and each agent's share checked before anything listens.
  const run = await planRun({ ...options, agents: undefined, segment: { index: 0, count: planned.expect } }).catch(
    (error: unknown) => {
      // The segments are the agents: a plan too small to split over them is agents.expect's fault.
      if (!(error instanceof SalvoRangeError) || error.option !== 'segment.count') throw error;
      throw new SalvoRangeError(
        error.message
          .replace(/^segment\.count (\d+)/, 'agents.expect $1')
          .replace('use fewer segments', 'use fewer agents'),
        {
          option: 'agents.expect',
          value: planned.expect,
          mentions: error.mentions,
        },
      );
    },
  );
  const { plan: whole, hooks } = (await planRun({ ...options, agents: undefined })).scenarios[0]!;
  const files = await runFiles(base, planned.files);
  const server = await AgentServer.listen(planned);
  let outputs: LiveOutputs | undefined;
  try {
    const links = await server.take(planned.readyTimeoutMs, signal);
    if (links === undefined) {
      throw new SalvoAgentsError(
        `agents: ${server.readyCount} of ${planned.expect} agents ready after ${planned.readyTimeoutMs} ms on ${planned.host}:${server.port}` +
          (server.refused.length > 0 ? `; refused: ${server.refused.join(', ')}` : '') +
          (signal?.aborted === true ? ' (aborted by signal)' : ''),
      );
    }
    const segmentPlan = run.scenarios[0]!.plan;
    const startAtMs =
      whole.startAtMs ?? wallClockMs() + START_LEAD_MS + segmentPlan.warmupMs + prewarmLeadMs(segmentPlan);
    outputs = await parts.startOutputs(hooks.outputs, { ...whole, startAtMs });
    const watchStart = new StartGate(undefined, 0, undefined);
    const watch = watchServer({ ...whole, startAtMs }, watchStart);
    watchStart.onGo?.(startAtMs);
    const agents: FleetAgent[] = links.map((link, id) => ({
      id,
      address: link.address,
      segment: { index: id, count: planned.expect },
      seconds: [],
      totals: undefined,
      result: undefined,
      lost: undefined,
    }));
    const fleet = new FleetRun(whole, planned, agents, links, parts.secondRoute(hooks.onProgress, outputs, watch));
    try {
      await fleet.run(randomUUID(), base, files, startAtMs, signal);
    } finally {
      watch.stop();
    }
    const result = fleetResult(whole, agents, startAtMs, planned.tolerateLost);
    await watch.attach(result);
    await outputs?.finish(result);
    return result;
  } catch (error) {
    await outputs?.abandon();
    throw error;
  } finally {
    await server.close();
  }
}
