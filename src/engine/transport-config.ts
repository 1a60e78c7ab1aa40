import { lanesPerConnection, peakConnections, type Plan } from '../shared/plan.js';
import type { PhaseRecorder } from '../stats/phases.js';
import type { TransportConfig } from '../transports/transport.js';

/**
 * A transport's settings from the plan, as the request engine and SSE subscriptions both open
 * one: the peak connections of the run, each with the plan's pipelining, and what each of them
 * needs handed over besides (`own`).
 */
export function transportConfig(
  plan: Plan,
  phases: PhaseRecorder,
  own: Pick<TransportConfig, 'captureResponses' | 'stream' | 'heads'>,
): TransportConfig {
  return {
    url: new URL(plan.url),
    connections: peakConnections(plan),
    pipelining: lanesPerConnection(plan),
    keepAlive: plan.keepAlive,
    tls: plan.tls,
    tlsSessionReuse: plan.tlsSessionReuse,
    retry: plan.retry,
    timeoutMs: plan.timeoutMs,
    phases,
    ...own,
  };
}
