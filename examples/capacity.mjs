// How much can this endpoint take? findCapacity against a local server that serves at most 1500
// requests/s and queues the rest. `npm run build` first; then `node examples/capacity.mjs`.
import { findCapacity, formatCapacity, formatCapacityStep } from 'salvo';
import { createTestServer } from 'salvo/testing';

const server = await createTestServer({ capacity: 1500 });
try {
  const result = await findCapacity({
    url: server.url,
    connections: 100,
    slo: { 'latency.p99': '< 50', 'errors.rate': '< 0.001' },
    start: 250,
    stepDuration: '2s',
    confirmDuration: '4s',
    warmup: '500ms',
    pause: '250ms',
    onStep: (event) => {
      if (event.type === 'end') console.log(formatCapacityStep(event.step, event.index));
    },
  });
  console.log(formatCapacity(result));
  process.exitCode = result.capacity === undefined ? 1 : 0;
} finally {
  await server.close();
}
