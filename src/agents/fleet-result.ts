// The coordinator's final result: each agent's result (or, for a lost agent, what it had counted up
// to its last second, kept exactly once), merged exactly, with the per-agent breakdown and the loss.
import type { AgentLoss, AgentResult } from '../shared/agents.js';
import type { LoadResult } from '../shared/load-result.js';
import type { Plan } from '../shared/plan.js';
import type { Segment } from '../shared/terms.js';
import { addWarning } from '../shared/warnings.js';
import { addEncodedInto, createHistogram, encodeHistogram } from '../stats/histogram.js';
import { mergeShards } from '../stats/merge.js';
import { mergeResults } from '../stats/merge-results.js';
import { failedByDefault, type RunningTotals, type SecondSummary, type ShardSecond } from '../stats/shard-stats.js';
import { noTotals } from '../workers/progress.js';
import { segmentPlan } from '../workers/shard.js';

/** One agent of the run as the coordinator follows it. */
export interface FleetAgent {
  id: number;
  address: string;
  segment: Segment;
  /** Its seconds received so far, as a shard's timeline. */
  seconds: ShardSecond[];
  /** Its running totals at its last second received. */
  totals: RunningTotals | undefined;
  result: LoadResult | undefined;
  lost: AgentLoss | undefined;
}

/** Keeps one received second of `agent`: the timeline entry and the totals up to it. */
export function keepSecond(agent: FleetAgent, summary: SecondSummary, totals: RunningTotals): void {
  const { second, sent, completed, errors, retried, connections, targetRate, histogram } = summary;
  const { cpuPercent, eventLoopUtilization } = summary;
  agent.seconds.push({
    second,
    sent,
    completed,
    errors,
    retried,
    connections,
    targetRate,
    histogram,
    cpuPercent,
    eventLoopUtilization,
  });
  agent.totals = totals;
}

/** The share of the whole plan a lost agent did not run, 0..1: its share of the plan times what was left of it. */
export function notRunShare(whole: Plan, agent: FleetAgent): number {
  const part = segmentPlan(whole, agent.segment);
  const sent = agent.totals?.sent ?? 0;
  if (part.amount !== undefined && whole.amount !== undefined) return Math.max(0, part.amount - sent) / whole.amount;
  const share =
    whole.rate !== undefined && part.rate !== undefined ? part.rate / whole.rate : part.connections / whole.connections;
  if (whole.durationMs === undefined) return share;
  const ranMs = agent.seconds.length === 0 ? 0 : (agent.seconds.at(-1)!.second + 1) * 1000;
  return share * Math.max(0, 1 - ranMs / whole.durationMs);
}

/**
 * A lost agent's counted part as a result of its segment: counts from its last totals (what was in
 * flight then is `unfinished`), latencies from its seconds' histograms added. Bytes it never reported.
 */
function lostPart(whole: Plan, agent: FleetAgent, startedAt: number): LoadResult {
  const totals = agent.totals ?? noTotals();
  const histogram = createHistogram();
  for (const second of agent.seconds) addEncodedInto(histogram, second.histogram);
  const encoded = encodeHistogram(histogram);
  histogram.destroy();
  const part = segmentPlan(whole, agent.segment);
  return mergeShards(
    part,
    [
      {
        sent: totals.sent,
        completed: totals.completed,
        missed: 0,
        retried: totals.retried,
        errors: totals.errors,
        errorsByCode: totals.errorsByCode,
        statusCodes: totals.statusCodes,
        unfinished: Math.max(0, totals.sent - totals.completed - totals.errors),
        failedByStatus: failedByDefault(totals.statusCodes),
        bytesSent: 0,
        bytesReceived: 0,
        durationMs: agent.seconds.length * 1000,
        startedAt,
        aborted: false,
        histogram: encoded,
        histogramUncorrected: encodeHistogram(createHistogram()),
        timeline: agent.seconds,
        checks: undefined,
        warnings: [],
        generator: undefined,
      },
    ],
    false,
    whole,
  );
}

function breakdown(agent: FleetAgent): AgentResult {
  const requests = agent.result
    ? {
        sent: agent.result.requests.sent,
        completed: agent.result.requests.completed,
        errors: agent.result.errors.total,
      }
    : { sent: agent.totals?.sent ?? 0, completed: agent.totals?.completed ?? 0, errors: agent.totals?.errors ?? 0 };
  const warnings = (agent.result?.warnings ?? []).map((warning) => warning.code);
  return {
    id: agent.id,
    address: agent.address,
    segment: agent.segment,
    requests,
    warnings,
    ...(agent.lost ? { lost: agent.lost } : {}),
  };
}

/** The fleet's result: the exact merge of every agent's part, `agents`, and `AGENT_LOST` when some were lost. */
export function fleetResult(
  whole: Plan,
  agents: readonly FleetAgent[],
  startAtMs: number,
  tolerateLost: number,
): LoadResult {
  const parts = agents.map((agent) => agent.result ?? lostPart(whole, agent, startAtMs));
  let merged: LoadResult;
  try {
    merged = mergeResults(parts);
  } catch {
    // Agents of another salvo version may plan differently; their numbers still add up, with MERGE_MISMATCH.
    merged = mergeResults(parts, { force: true });
  }
  merged.agents = agents.map(breakdown);
  const lost = agents.filter((agent) => agent.lost !== undefined);
  if (lost.length > 0) {
    const share = lost.reduce((sum, agent) => sum + agent.lost!.notRunShare, 0);
    const tolerated = lost.length <= tolerateLost;
    const each = lost.map(
      ({ id, address, segment, lost: loss, totals }) =>
        `agent ${id} (${address}, segment ${segment.index + 1} of ${segment.count}) was lost (${loss!.reason}) ` +
        `after its second ${loss!.lastSecond}, having counted ${totals?.sent ?? 0} sent and ${totals?.completed ?? 0} completed, which the result keeps`,
    );
    addWarning(
      merged.warnings,
      'AGENT_LOST',
      `${each.join('; ')}. About ${(share * 100).toFixed(1)}% of the plan was not run; ` +
        (tolerated
          ? `the run went on (tolerateLost: ${tolerateLost}).`
          : `the run fails (tolerateLost: ${tolerateLost}).`),
    );
    if (!tolerated) merged.ok = false;
  }
  return merged;
}
