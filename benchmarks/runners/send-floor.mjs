// What a precise open loop costs in Node at the least, with real HTTP traffic (issue 12): the floor
// under salvo's pacer and under the one design that would save a wake-up per request. One keep-alive
// connection to an HTTP/1.1 server on 127.0.0.1 (nginx on core 1, say), each request written at its
// slot by a thread sleeping in Atomics.wait, responses counted and nothing else (no parsing, no
// histograms, no monitor):
//
//   loop     the thread wakes the event loop (postMessage), which writes the request: salvo's design
//   thread   the thread writes the request to the socket's fd itself (fs.writeSync); the event loop
//            wakes only for the response: one wake-up per request fewer, plain TCP only
//   salvo    runLoad with `rate` and 1 connection (../../dist), its generator.cpuPercent
//   c        runners/pacing-floor.c, when --c names its binary: one C thread, clock_nanosleep, the
//            same two wake-ups (it requests GET /)
//
//   taskset -c 0 node runners/send-floor.mjs --port 8080 [--path /] [--rates 200,1000,5000]
//                 [--seconds 4] [--rounds 3] [--c /tmp/pacing-floor]
//
// Each run is a fresh process (pinned by the parent's taskset), 1 s of warm-up then the measured
// seconds; modes alternate within each round. Prints the process CPU over the measured seconds
// (100 = one core), median and range, and the responses per second reached.
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { median } from '../lib/summary.mjs';

const THREAD_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { control, rate, fd, request } = workerData;
const words = new Int32Array(control);
const period = 1000 / rate;
let next = performance.now() + period;
while (Atomics.load(words, 1) === 0) {
  const left = next - performance.now();
  if (left > 0) { Atomics.wait(words, 0, 0, left); continue; }
  next += period;
  if (fd === -1) parentPort.postMessage(null); else fs.writeSync(fd, request);
}
`;

const HEAD_END = Buffer.from('\r\n\r\n');

async function measure(seconds, count) {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const cpu = process.cpuUsage();
  const start = performance.now();
  const before = count();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const used = process.cpuUsage(cpu);
  const elapsedMs = performance.now() - start;
  return { cpuPercent: ((used.user + used.system) / 1000 / elapsedMs) * 100, perSecond: ((count() - before) / elapsedMs) * 1000 };
}

async function child(mode, rate, seconds, port, path) {
  if (mode === 'salvo') {
    const { runLoad } = await import('../../dist/index.js');
    const result = await runLoad({ url: `http://127.0.0.1:${port}${path}`, rate, connections: 1, warmup: 1000, duration: seconds * 1000 });
    return { cpuPercent: result.generator.cpuPercent, perSecond: result.requests.perSecond };
  }
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  let responses = 0;
  // Counts response heads; the floor's server must answer without a blank line in its bodies.
  const onread = (length, buffer) => {
    for (let at = buffer.indexOf(HEAD_END); at !== -1 && at < length; at = buffer.indexOf(HEAD_END, at + 4)) responses++;
  };
  const socket = net.connect({ port, host: '127.0.0.1', noDelay: true, onread: { buffer: Buffer.alloc(65536), callback: onread } });
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const control = new SharedArrayBuffer(8);
  const fd = mode === 'thread' ? socket._handle.fd : -1;
  const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { control, rate, fd, request } });
  worker.on('message', () => socket.write(request));
  const measured = await measure(seconds, () => responses);
  Atomics.store(new Int32Array(control), 1, 1);
  Atomics.notify(new Int32Array(control), 0);
  await worker.terminate();
  socket.destroy();
  return measured;
}

function cFloor(binary, port, rate, seconds) {
  const run = spawnSync(binary, [String(port), String(rate), String(seconds)], { encoding: 'utf8' });
  const match = /CPU ([\d.]+)%/.exec(run.stdout);
  if (run.status !== 0 || !match) throw new Error(`${binary} failed: ${run.stderr || run.stdout}`);
  return { cpuPercent: Number(match[1]), perSecond: rate };
}

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      path: { type: 'string', default: '/' },
      rates: { type: 'string', default: '200,1000,5000' },
      seconds: { type: 'string', default: '4' },
      rounds: { type: 'string', default: '3' },
      c: { type: 'string' },
    },
  });
  if (!values.port) throw new Error('--port: the port of a keep-alive HTTP/1.1 server on 127.0.0.1');
  const modes = ['loop', 'thread', 'salvo', ...(values.c ? ['c'] : [])];
  const rates = values.rates.split(',').map(Number);
  const seconds = Number(values.seconds);
  const self = fileURLToPath(import.meta.url);
  const samples = new Map();
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const rate of rates) {
      for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
        let measured;
        if (mode === 'c') measured = cFloor(values.c, values.port, rate, seconds);
        else {
          const run = spawnSync(process.execPath, [self, '--child', mode, String(rate), String(seconds), values.port, values.path], { encoding: 'utf8' });
          if (run.status !== 0) throw new Error(`${mode} at ${rate}/s failed: ${run.stderr}`);
          measured = JSON.parse(run.stdout);
        }
        const key = `${mode} ${rate}`;
        samples.set(key, [...(samples.get(key) ?? []), measured]);
      }
    }
  }
  console.log(`node ${process.version}, ${values.rounds} rounds of ${seconds} s; CPU % of one core, median (min-max) [responses/s]\n`);
  console.log('| rate/s | ' + modes.join(' | ') + ' |');
  console.log('|---' + '|---:'.repeat(modes.length) + '|');
  for (const rate of rates) {
    const cells = modes.map((mode) => {
      const runs = samples.get(`${mode} ${rate}`);
      const cpu = runs.map((run) => run.cpuPercent);
      return `${median(cpu).toFixed(2)} (${Math.min(...cpu).toFixed(2)}-${Math.max(...cpu).toFixed(2)}) [${median(runs.map((run) => run.perSecond)).toFixed(0)}]`;
    });
    console.log(`| ${rate} | ${cells.join(' | ')} |`);
  }
}

if (process.argv[2] === '--child') {
  const [mode, rate, seconds, port, path] = process.argv.slice(3);
  const measured = await child(mode, Number(rate), Number(seconds), Number(port), path);
  process.stdout.write(JSON.stringify(measured) + '\n');
  process.exit(0);
} else await main();
