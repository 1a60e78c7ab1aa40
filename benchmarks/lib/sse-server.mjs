// The SSE server of streams.mjs: `node sse-server.mjs subscribe INTERVAL_MS` keeps every GET open
// and writes one timestamped event to every open stream each INTERVAL_MS (one timer, one buffer);
// `node sse-server.mjs short EVENTS` answers each GET with EVENTS events and the body's end.
// Prints its URL; on SIGTERM prints its CPU (100 = one core over its life) and events written.
import http from 'node:http';

const [mode, arg] = process.argv.slice(2);
const open = new Set();
let written = 0;
let mostOpen = 0;
const server = http.createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (mode === 'short') {
    let body = '';
    for (let i = 0; i < Number(arg); i++) body += `data: {"n":${i}}\n\n`;
    written += Number(arg);
    response.end(body);
    return;
  }
  response.flushHeaders();
  open.add(response);
  request.on('close', () => open.delete(response));
});
server.keepAliveTimeout = 60_000;
server.maxConnections = 100_000;
if (mode === 'subscribe') {
  setInterval(() => {
    const event = Buffer.from(`data: {"t":${Date.now()}}\n\n`);
    for (const response of open) response.write(event);
    written += open.size;
    mostOpen = Math.max(mostOpen, open.size);
  }, Number(arg));
}
const started = process.cpuUsage();
const startedAt = performance.now();
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}/events\n`));
process.on('SIGTERM', () => {
  const cpu = process.cpuUsage(started);
  process.stdout.write(`${JSON.stringify({ cpuPercent: ((cpu.user + cpu.system) / 1000 / (performance.now() - startedAt)) * 100, written, mostOpen })}\n`);
  process.exit(0);
});
