// loadtest through its programmatic API: `--tcp` raw sockets, or its http mode (keep-alive agent
// unless the scenario turns keep-alive off).
import { loadTest } from 'loadtest';
import { readSpec, warmUpAndMeasure } from './measure.mjs';

const spec = readSpec();

await warmUpAndMeasure(spec, async (seconds) => {
  const result = await loadTest({
    url: spec.url,
    concurrency: spec.connections,
    maxSeconds: seconds,
    tcp: spec.mode === 'tcp',
    agentKeepAlive: spec.mode === 'http' && spec.keepAlive,
    quiet: true,
    ...(spec.rate ? { requestsPerSecond: spec.rate } : {}),
  });
  // loadtest's errorCodes hold statuses >= 400 by code and network errors under '-1'; its
  // totalRequests counts both.
  const networkErrors = result.errorCodes?.['-1'] ?? 0;
  const non2xx = result.totalErrors - networkErrors;
  return {
    completed: result.totalRequests - networkErrors,
    errors: networkErrors,
    non2xx,
    durationMs: result.elapsedSeconds * 1000,
    p50Ms: result.percentiles[50],
    p99Ms: result.percentiles[99],
  };
});
