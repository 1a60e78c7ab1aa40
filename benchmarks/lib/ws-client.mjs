// One WebSocket load generator run, as a process of its own: salvo (`runLoad`) or a bare `ws` client
// loop doing the same work, measured the same way over the same window (from every client connected
// to the end): process CPU (100 = one core), RSS sampled once a second (the peak), messages/s.
//
//   node ws-client.mjs <salvo|bare> <broadcast|echo> <url> <clients> <seconds> [salvo's dist/index.js]
// Prints one JSON line.
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';

const [contender, mode, url, clientsText, secondsText, dist] = process.argv.slice(2);
// Another build of salvo (`websocket.mjs --before`), or this checkout's.
const { runLoad } = await import(dist === undefined ? '../../dist/index.js' : pathToFileURL(resolve(dist)).href);
const clients = Number(clientsText);
const durationMs = Number(secondsText) * 1000;
const ECHO_MESSAGE = 'x'.repeat(32);
let peakRss = 0;
let peakMemory;
const sampleRss = () => {
  const memory = process.memoryUsage();
  if (memory.rss > peakRss) [peakRss, peakMemory] = [memory.rss, memory];
};

async function salvo() {
  // Sampled by a timer, as the bare loop does: an onProgress callback would add salvo's per-second
  // percentiles, which only a caller that asks for progress pays for.
  const sampler = setInterval(sampleRss, 1000);
  const result = await runLoad({
    url,
    connections: clients,
    duration: durationMs,
    timeout: 10_000,
    websocket: mode === 'broadcast' ? { timestamp: { field: 'ts' } } : { message: ECHO_MESSAGE },
  });
  clearInterval(sampler);
  return {
    cpuPercent: result.generator.cpuPercent,
    received: result.messages.received,
    perSecond: result.messages.perSecond,
    p50: result.latency.p50,
    errors: result.errors.total,
    errorsByCode: result.errors.byCode,
  };
}

/** The same thing by hand: connect every client, time each message, count. */
async function bare() {
  const sockets = [];
  let measuring = false;
  let received = 0;
  let latencySum = 0;
  let failures = 0;
  await new Promise((resolve) => {
    let open = 0;
    const replace = (index) => {
      // A handshake the busy server never finishes is given up after 10 s and tried again (salvo: `timeout`).
      const socket = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: 10_000 });
      let sentAt = 0;
      let opened = false;
      socket.on('open', () => {
        opened = true;
        if (++open === clients) resolve();
      });
      socket.on('error', () => {});
      // A connect the server dropped (a full accept queue) is tried again, as salvo does.
      socket.on('close', () => {
        if (opened) return;
        failures++;
        setTimeout(() => replace(index), 50);
      });
      socket.on('message', (data) => {
        const now = performance.now();
        if (mode === 'broadcast') {
          const latency = performance.timeOrigin + now - JSON.parse(data.toString()).ts;
          if (measuring) {
            received++;
            latencySum += latency;
          }
        } else {
          if (measuring) {
            received++;
            latencySum += now - sentAt;
          }
          sentAt = performance.now();
          socket.send(ECHO_MESSAGE);
        }
      });
      socket.start = () => {
        sentAt = performance.now();
        socket.send(ECHO_MESSAGE);
      };
      sockets[index] = socket;
    };
    for (let index = 0; index < clients; index++) replace(index);
  });
  measuring = true;
  const startCpu = process.cpuUsage();
  const startedAt = performance.now();
  if (mode === 'echo') for (const socket of sockets) socket.start();
  const sampler = setInterval(sampleRss, 1000);
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  measuring = false;
  clearInterval(sampler);
  const cpu = process.cpuUsage(startCpu);
  const seconds = (performance.now() - startedAt) / 1000;
  for (const socket of sockets) socket.terminate();
  return { cpuPercent: (cpu.user + cpu.system) / 1e4 / seconds, received, perSecond: received / seconds, meanLatency: latencySum / received, errors: failures };
}

const measured = contender === 'salvo' ? await salvo() : await bare();
const mb = (bytes) => Math.round(bytes / 2 ** 20);
const memory = peakMemory && { heapUsedMB: mb(peakMemory.heapUsed), heapTotalMB: mb(peakMemory.heapTotal), externalMB: mb(peakMemory.external) };
console.log(JSON.stringify({ contender, mode, clients, ...measured, peakRssMB: peakRss / 2 ** 20, ...memory }));
process.exit(0);
