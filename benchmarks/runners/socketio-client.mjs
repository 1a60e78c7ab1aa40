// One Socket.IO load generator run, as a process of its own: salvo (`runLoad` with `socketio`) or a
// bare loop of `socket.io-client` clients (one Manager and Engine.IO socket each, WebSocket only)
// doing the same work, measured the same way over the same window (every client connected → end):
// process CPU (100 = one core), events received and CPU µs per event, and RSS (the peak of samples
// every 100 ms in the window, and the process's high-water mark over its whole life, getrusage).
//
//   node socketio-client.mjs <salvo|bare> <broadcast|echo> <url> <clients> <seconds> [salvo's dist/index.js]
// broadcast: time each `tick` event from its `ts` field; echo: emit `echo` with an acknowledgement,
// the next as soon as it came (closed loop), and time the round trip. Prints one JSON line.
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { io } from 'socket.io-client';

const [contender, mode, url, clientsText, secondsText, dist] = process.argv.slice(2);
const { runLoad } = await import(dist === undefined ? '../../dist/index.js' : pathToFileURL(resolve(dist)).href);
const clients = Number(clientsText);
const durationMs = Number(secondsText) * 1000;
const ECHO_DATA = { hello: 1 };
const scriptStart = Date.now();
const samples = [];
const sampler = setInterval(() => samples.push([Date.now(), process.memoryUsage().rss]), 100);
const peakRssIn = (from, to) => Math.max(0, ...samples.filter(([at]) => at >= from && at <= to).map(([, rss]) => rss));

async function salvo() {
  const result = await runLoad({
    url,
    connections: clients,
    duration: durationMs,
    timeout: 10_000,
    socketio: mode === 'broadcast' ? { listen: { event: 'tick', timestamp: { field: 'ts' } } } : { emit: { event: 'echo', data: ECHO_DATA }, ack: true },
  });
  return {
    window: [result.startedAt, result.startedAt + result.durationMs],
    seconds: result.durationMs / 1000,
    cpuPercent: result.generator.cpuPercent,
    received: result.messages.received,
    p50: result.latency.p50,
    errors: result.errors.total,
    errorsByCode: result.errors.byCode,
  };
}

/** The same work by hand with socket.io-client: connect every client, time each event, count. */
async function bare() {
  const sockets = [];
  let measuring = false;
  let received = 0;
  let latencySum = 0;
  let connectErrors = 0;
  await new Promise((done) => {
    let connected = 0;
    for (let index = 0; index < clients; index++) {
      // forceNew: a Manager (and WebSocket) per client, as each of salvo's connections is one.
      const socket = io(url, { transports: ['websocket'], forceNew: true, timeout: 10_000 });
      let first = true;
      socket.on('connect', () => {
        if (first && ++connected === clients) done();
        first = false;
      });
      socket.on('connect_error', () => connectErrors++);
      if (mode === 'broadcast') {
        socket.on('tick', (data) => {
          if (!measuring) return;
          received++;
          latencySum += performance.timeOrigin + performance.now() - data.ts;
        });
      } else {
        const answered = (sentAt) => () => {
          if (measuring) {
            received++;
            latencySum += performance.now() - sentAt;
          }
          socket.emit('echo', ECHO_DATA, answered(performance.now()));
        };
        socket.start = () => socket.emit('echo', ECHO_DATA, answered(performance.now()));
      }
      sockets.push(socket);
    }
  });
  measuring = true;
  const startCpu = process.cpuUsage();
  const startedAt = performance.now();
  const windowFrom = Date.now();
  if (mode === 'echo') for (const socket of sockets) socket.start();
  await new Promise((done) => setTimeout(done, durationMs));
  measuring = false;
  const cpu = process.cpuUsage(startCpu);
  const seconds = (performance.now() - startedAt) / 1000;
  const window = [windowFrom, Date.now()];
  for (const socket of sockets) socket.disconnect();
  return { window, seconds, cpuPercent: (cpu.user + cpu.system) / 1e4 / seconds, received, meanLatency: latencySum / received, errors: connectErrors };
}

const { window, ...measured } = contender === 'salvo' ? await salvo() : await bare();
clearInterval(sampler);
console.log(
  JSON.stringify({
    contender,
    mode,
    clients,
    ...measured,
    perSecond: measured.received / measured.seconds,
    cpuUsPerEvent: (measured.cpuPercent * 1e4 * measured.seconds) / measured.received,
    peakRssMB: peakRssIn(...window) / 2 ** 20,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
    openingS: (window[0] - scriptStart) / 1000,
  }),
);
process.exit(0);
