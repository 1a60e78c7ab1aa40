// autocannon through its programmatic API, single-threaded (no workers).
import autocannon from 'autocannon';
import { readSpec, warmUpAndMeasure } from './measure.mjs';

const spec = readSpec();

await warmUpAndMeasure(spec, async (seconds) => {
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: seconds,
    pipelining: spec.pipelining,
    // autocannon has no keep-alive switch: asking the server to close is the closest it gets.
    ...(spec.keepAlive ? {} : { headers: { connection: 'close' } }),
    ...(spec.rate ? { overallRate: spec.rate } : {}),
  });
  return {
    // Responses of any status (autocannon counts them once the response ends).
    completed: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
    durationMs: result.duration * 1000,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
});
