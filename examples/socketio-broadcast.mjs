// The stepped broadcast benchmark against a Socket.IO server: a `socket.io` server emits a
// timestamped `tick` event every 100 ms to every connected client and drops one client a second
// (which reconnects, with backoff); the clients ramp up in steps (20, 40, ... 100, one second each);
// each step prints its clients, events/s and the latency from the server's timestamp to the
// client's receipt, the connecting periods left out. The full-size version (100 clients more every
// minute) is the same code with other numbers.
import { createServer } from 'node:http';
import { Server } from 'socket.io';
import { runLoad } from 'salvo';

const STEP_CLIENTS = 20;
const STEPS = 5;
const HOLD_MS = 1000;
const RAMP_MS = 100;

const http = createServer();
const io = new Server(http, { transports: ['websocket'] });
let connects = 0;
let dropped = 0;
io.on('connection', () => connects++);
const ticker = setInterval(() => io.emit('tick', { ts: Date.now(), text: 'x'.repeat(200) }), 100);
const dropper = setInterval(() => {
  const [socket] = io.of('/').sockets.values();
  if (socket === undefined) return;
  dropped++;
  socket.disconnect(true);
}, 1000);
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
try {
  // Each step: a short ramp to the next count of clients, then a hold that is measured on its own.
  const stages = [];
  for (let step = 1; step <= STEPS; step++) {
    if (step > 1) stages.push({ duration: RAMP_MS, connections: step * STEP_CLIENTS });
    stages.push({ duration: HOLD_MS, connections: step * STEP_CLIENTS });
  }
  const result = await runLoad({
    url: `http://127.0.0.1:${http.address().port}`,
    connections: STEP_CLIENTS,
    stages,
    socketio: { listen: { event: 'tick', timestamp: { field: 'ts' } } },
  });
  console.log('clients  open  events/s    p50 ms   p99 ms');
  const steps = result.websocket.stages.filter((_, index) => index % 2 === 0);
  for (const stage of steps) {
    console.log(
      `${String(stage.connections).padStart(7)}  ${String(stage.open).padStart(4)}  ${stage.perSecond.toFixed(0).padStart(8)}  ` +
        `${stage.p50.toFixed(3).padStart(7)}  ${stage.p99.toFixed(3).padStart(7)}`,
    );
  }
  console.log(
    `total: ${result.messages.received} events received (transport ${result.transport}), ` +
      `${dropped} clients dropped by the server and ${connects - STEPS * STEP_CLIENTS} reconnects seen by it, ` +
      `errors ${JSON.stringify(result.errors.byCode)}, generator CPU ${result.generator.cpuPercent.toFixed(1)}% of a core` +
      (result.warnings.length > 0 ? `; warnings: ${result.warnings.map((w) => w.code).join(', ')}` : ''),
  );
  // Every step heard from its clients (one may be reconnecting as the step ends), and each drop
  // was counted as a server disconnect.
  const heard = steps.every((stage) => stage.open >= stage.connections - 1 && stage.received >= (stage.connections - 1) * 5);
  if (!heard || (result.errors.byCode.SIO_DISCONNECT ?? 0) === 0) process.exitCode = 1;
} finally {
  clearInterval(ticker);
  clearInterval(dropper);
  io.close();
}
