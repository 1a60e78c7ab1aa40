// Memory of many open connections on one thread (issue 3): salvo's net transport holds N keep-alive
// connections against salvo's test server and this reports the generator's peak RSS.
//
//   npm run build            # at the repository root: this imports ../dist/index.js
//   node memory.mjs [--connections 10000] [--duration 5] [--transport net]
//
// The test server runs in its own process (core 1 with taskset), the generator in another (core 0),
// one thread, closed loop. Each needs a descriptor per connection: the generator's soft limit is
// raised to the hard limit, which must exceed --connections.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { planPinning, runBounded, wrapCommand } from './lib/system.mjs';
import { startTestServer } from './lib/targets.mjs';

const self = fileURLToPath(import.meta.url);

if (process.argv[2] === 'generator') {
  const { runLoad } = await import('../dist/index.js');
  const { url, connections, durationS, transport } = JSON.parse(process.argv[3]);
  const before = process.memoryUsage().rss;
  let openPeak = 0;
  const result = await runLoad({
    url,
    transport,
    connections,
    duration: durationS * 1000,
    timeout: 30_000,
    onProgress: (progress) => (openPeak = Math.max(openPeak, progress.connections)),
  });
  process.stdout.write(
    `${JSON.stringify({
      rssBeforeMB: before / 2 ** 20,
      maxRssMB: process.resourceUsage().maxRSS / 1024,
      openPeak,
      reqPerSec: result.requests.perSecond,
      completed: result.requests.completed,
      errors: result.errors,
      p99Ms: result.latency.p99,
    })}\n`,
  );
} else {
  const { values } = parseArgs({
    options: {
      connections: { type: 'string', default: '10000' },
      duration: { type: 'string', default: '5' },
      transport: { type: 'string', default: 'net' },
    },
  });
  const spec = {
    connections: Number(values.connections),
    durationS: Number(values.duration),
    transport: values.transport,
  };
  const pinning = planPinning();
  const server = await startTestServer({}, pinning);
  try {
    const argv = wrapCommand([process.execPath, self, 'generator', JSON.stringify({ ...spec, url: `${server.baseUrl}/` })], {
      taskset: pinning.taskset,
      cpu: pinning.generator,
    });
    // Bounded: connecting 10,000 sockets and closing them again takes seconds, never a minute.
    const { code, stdout, stderr, timedOut } = await runBounded(argv, { timeoutMs: (spec.durationS + 60) * 1000 });
    if (code !== 0) throw new Error(`generator ${timedOut ? 'timed out' : `exited with ${code}`}\n${stderr}`);
    const report = JSON.parse(stdout.trim().split('\n').pop());
    const mb = (n) => `${n.toFixed(1)} MB`;
    console.log(`${spec.connections} connections, ${spec.transport}, ${spec.durationS} s, one thread, against ${server.name}`);
    console.log(`  open connections at peak: ${report.openPeak}`);
    console.log(`  RSS after import: ${mb(report.rssBeforeMB)}; peak RSS: ${mb(report.maxRssMB)}`);
    console.log(`  ${Math.round(report.reqPerSec)} req/s, ${report.completed} responses, p99 ${report.p99Ms} ms, errors ${JSON.stringify(report.errors.byCode)}`);
  } finally {
    await server.stop();
  }
}
