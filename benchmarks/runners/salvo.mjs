// salvo's runLoad from the built package, one transport per process. `spec.dist` loads another
// build (newconn.mjs compares main's build with this one); `spec.options` adds runLoad options.
import { readSpec, warmUpAndMeasure } from './measure.mjs';

const spec = readSpec();
const { runLoad } = await import(spec.dist ?? '../../dist/index.js');

await warmUpAndMeasure(spec, async (seconds) => {
  const result = await runLoad({
    url: spec.url,
    transport: spec.transport,
    connections: spec.connections,
    duration: seconds * 1000,
    ...(spec.transport === 'h2' ? { streams: spec.streams ?? 1 } : { pipelining: spec.pipelining }),
    keepAlive: spec.keepAlive,
    ...(spec.rate ? { rate: spec.rate } : {}),
    ...spec.options,
  });
  const non2xx = Object.entries(result.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .reduce((sum, [, count]) => sum + count, 0);
  return {
    completed: result.requests.completed,
    errors: result.errors.total,
    non2xx,
    durationMs: result.durationMs,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
});
