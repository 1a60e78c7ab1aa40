// One WebSocket load generator run, as a process of its own: salvo (`runLoad`) or a bare `ws` client
// loop doing the same work, measured the same way over the same window (from every client connected
// to the end): process CPU (100 = one core), messages/s, and RSS: the peak of samples taken every
// 100 ms in that window (`peakRssMB`), and the process's own high-water mark over its whole life,
// connecting and closing included (`maxRssMB`, getrusage). Under a broadcast load RSS is a sawtooth
// between mark-compacts, 100-150 MB high: a sample once a second reads a random point of it.
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
const scriptStart = Date.now();
const RSS_SAMPLE_MS = 100;
/** [epoch ms, process.memoryUsage()], every RSS_SAMPLE_MS from the start; the window is picked after. */
const samples = [];
const sampler = setInterval(() => samples.push([Date.now(), process.memoryUsage()]), RSS_SAMPLE_MS);
/** The sample of highest RSS between `from` and `to` (epoch ms). */
function peakIn(from, to) {
  let peak;
  for (const [at, memory] of samples) if (at >= from && at <= to && (peak === undefined || memory.rss > peak.rss)) peak = memory;
  return peak;
}

async function salvo() {
  // RSS is sampled by a timer, as in the bare loop, and the window read from the result: an
  // onProgress callback would add salvo's per-second percentiles, which only a caller that asks pays for.
  const result = await runLoad({
    url,
    connections: clients,
    duration: durationMs,
    timeout: 10_000,
    websocket: mode === 'broadcast' ? { timestamp: { field: 'ts' } } : { message: ECHO_MESSAGE },
  });
  return {
    window: [result.startedAt, result.startedAt + result.durationMs],
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
  const windowFrom = Date.now();
  if (mode === 'echo') for (const socket of sockets) socket.start();
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  measuring = false;
  const cpu = process.cpuUsage(startCpu);
  const seconds = (performance.now() - startedAt) / 1000;
  const window = [windowFrom, Date.now()];
  for (const socket of sockets) socket.terminate();
  return { window, cpuPercent: (cpu.user + cpu.system) / 1e4 / seconds, received, perSecond: received / seconds, meanLatency: latencySum / received, errors: failures };
}

const { window, ...measured } = contender === 'salvo' ? await salvo() : await bare();
clearInterval(sampler);
const mb = (bytes) => Math.round(bytes / 2 ** 20);
const peak = peakIn(...window);
const memory = peak && { peakRssMB: peak.rss / 2 ** 20, heapUsedMB: mb(peak.heapUsed), heapTotalMB: mb(peak.heapTotal), externalMB: mb(peak.external) };
const maxRssMB = process.resourceUsage().maxRSS / 1024;
// From this script's start to the window's: connecting every client (and salvo's import and set-up).
const openingS = (window[0] - scriptStart) / 1000;
console.log(JSON.stringify({ contender, mode, clients, ...measured, ...memory, maxRssMB, openingS }));
process.exit(0);
