// The WebSocket benchmark's target, in a process of its own: salvo's test server in WebSocket mode,
// `broadcast` (a 64-byte timestamped message to every client every 100 ms, no echo) or `echo`.
// Prints its url, then, on SIGTERM, its CPU and counts as one JSON line.
import { createTestServer } from '../../dist/testing.js';

const mode = process.argv[2];
const server = await createTestServer(
  mode === 'broadcast' ? { websocket: { echo: false, broadcastIntervalMs: Number(process.argv[3] ?? 100), broadcastBytes: 64 } } : { websocket: true },
);
// The most messages sent in any one second of the server's life: with every client connected,
// whether it kept up with clients × 1000 / interval messages/s.
let peakSentPerSecond = 0;
let sentBefore = 0;
setInterval(() => {
  peakSentPerSecond = Math.max(peakSentPerSecond, server.stats.websocket.messagesSent - sentBefore);
  sentBefore = server.stats.websocket.messagesSent;
}, 1000).unref();
const startCpu = process.cpuUsage();
const startedAt = performance.now();
console.log(server.url);
process.on('SIGTERM', async () => {
  const cpu = process.cpuUsage(startCpu);
  const seconds = (performance.now() - startedAt) / 1000;
  console.log(JSON.stringify({ cpuPercent: (cpu.user + cpu.system) / 1e4 / seconds, peakSentPerSecond, ...server.stats.websocket }));
  await server.close();
  process.exit(0);
});
