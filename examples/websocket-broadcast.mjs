// The WebSocket broadcast benchmark in small: a server broadcasts a timestamped message every 100 ms
// to every connected client; the clients ramp up in steps (20, 40, ... 100, one second each); each
// step prints its clients, messages/s, bandwidth and the latency from the server's timestamp to the
// client's receipt. The full-size version (100 clients more every minute) is the same code with
// other numbers.
import { runLoad } from 'salvo';
import { createTestServer } from 'salvo/testing';

const STEP_CLIENTS = 20;
const STEPS = 5;
const HOLD_MS = 1000;
const RAMP_MS = 100;
const MESSAGE_BYTES = 256;

const server = await createTestServer({ websocket: { echo: false, broadcastIntervalMs: 100, broadcastBytes: MESSAGE_BYTES } });
try {
  // Each step: a short ramp to the next count of clients, then a hold that is measured on its own.
  const stages = [];
  for (let step = 1; step <= STEPS; step++) {
    if (step > 1) stages.push({ duration: RAMP_MS, connections: step * STEP_CLIENTS });
    stages.push({ duration: HOLD_MS, connections: step * STEP_CLIENTS });
  }
  const result = await runLoad({
    url: server.url,
    connections: STEP_CLIENTS,
    stages,
    websocket: { timestamp: { field: 'ts' } },
  });
  console.log('connections  open  messages/s  bandwidth    p50 ms   p99 ms');
  const steps = result.websocket.stages.filter((_, index) => index % 2 === 0);
  for (const stage of steps) {
    const bandwidth = (stage.perSecond * MESSAGE_BYTES) / 1000;
    console.log(
      `${String(stage.connections).padStart(11)}  ${String(stage.open).padStart(4)}  ${stage.perSecond.toFixed(0).padStart(10)}  ` +
        `${bandwidth.toFixed(1).padStart(6)} kB/s  ${stage.p50.toFixed(3).padStart(7)}  ${stage.p99.toFixed(3).padStart(7)}`,
    );
  }
  console.log(
    `total: ${result.messages.received} messages received (the server sent ${server.stats.websocket.messagesSent}), ` +
      `${result.errors.total} errors, generator CPU ${result.generator.cpuPercent.toFixed(1)}% of a core` +
      (result.warnings.length > 0 ? `; warnings: ${result.warnings.map((w) => w.code).join(', ')}` : ''),
  );
  // Every client of a step connected by its end, and every step heard from all of them.
  if (steps.some((stage) => stage.open !== stage.connections || stage.received < stage.connections * 5)) process.exitCode = 1;
} finally {
  await server.close();
}
