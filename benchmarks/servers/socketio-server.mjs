// The Socket.IO benchmark's target, in a process of its own: the real `socket.io` server (WebSocket
// transport only), `broadcast` (`io.emit('tick', { ts, pad })` to every client every INTERVAL ms, a
// timestamped event of about 64 bytes) or `echo` (`echo` events acknowledged with their data).
// Broadcasts start once CLIENTS clients have connected: a socket.io server on one busy core that
// broadcasts while 10,000 clients open lets their handshakes time out (salvo's and socket.io-client's
// alike), and the clients then retry for minutes; the measured window starts after that anyway.
//
//   node socketio-server.mjs <broadcast|echo> [INTERVAL_MS] [CLIENTS]
// Prints its url, then, on SIGTERM, its CPU and counts as one JSON line.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Server } from 'socket.io';

const [mode, intervalText = '100', clientsText = '0'] = process.argv.slice(2);
const http = createServer();
const io = new Server(http, { transports: ['websocket'], serveClient: false });
let connects = 0;
let acks = 0;
let eventsSent = 0;
let ticker;
io.on('connection', (socket) => {
  connects++;
  if (mode === 'broadcast' && ticker === undefined && io.of('/').sockets.size >= Number(clientsText)) startBroadcasts();
  socket.on('echo', (data, ack) => {
    acks++;
    if (typeof ack === 'function') ack(data);
  });
});
function startBroadcasts() {
  const pad = 'x'.repeat(24);
  ticker = setInterval(() => {
    // Encoded once by socket.io and written to every connected client.
    eventsSent += io.of('/').sockets.size;
    io.emit('tick', { ts: Date.now(), pad });
  }, Number(intervalText));
}
// The most events sent in any one second: with every client connected, whether the server kept up
// with clients × 1000 / interval events/s.
let peakSentPerSecond = 0;
let sentBefore = 0;
setInterval(() => {
  peakSentPerSecond = Math.max(peakSentPerSecond, eventsSent - sentBefore);
  sentBefore = eventsSent;
}, 1000).unref();
// A backlog as deep as the kernel allows (net.core.somaxconn), not Node's 511: 10,000 clients connect at once.
await new Promise((resolve) => http.listen({ port: 0, host: '127.0.0.1', backlog: 65535 }, resolve));
const startCpu = process.cpuUsage();
const startedAt = performance.now();
console.log(`http://127.0.0.1:${http.address().port}`);
process.on('SIGTERM', () => {
  const cpu = process.cpuUsage(startCpu);
  const seconds = (performance.now() - startedAt) / 1000;
  console.log(JSON.stringify({ cpuPercent: (cpu.user + cpu.system) / 1e4 / seconds, peakSentPerSecond, eventsSent, connects, acks }));
  process.exit(0);
});
