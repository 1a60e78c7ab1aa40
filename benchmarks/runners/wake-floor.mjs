// What waking a Node event loop costs this machine, with no HTTP work at all (issue 12): the floor
// under salvo's pacer, which needs the pacing thread's wake-up at each slot, the event loop's wake-up
// it causes, and the loop's wake-up for the response.
//
//   taskset -c 0 node runners/wake-floor.mjs [--rates 200,1000,5000] [--seconds 5] [--rounds 3]
//
// Each mode runs in a fresh process, modes alternating within each round, and reports the process
// CPU over the measured seconds (100 = one core), after one second of warm-up:
//   idle     the loop kept alive by a timer that never fires: the process's baseline
//   timer    a setTimeout chain on the loop at the rate (no thread; fires 0-2 ms late)
//   thread   a worker thread sleeping in Atomics.wait to each slot, then waking the loop with one
//            postMessage (salvo's pacer, less the ring and the HTTP work)
//   pipe     the same thread writing one byte to a FIFO the loop reads (another way to wake it)
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { median } from '../lib/summary.mjs';

const MODES = ['idle', 'timer', 'thread', 'pipe'];

const THREAD_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { control, rate, fifo } = workerData;
const words = new Int32Array(control);
const fd = fifo === undefined ? -1 : fs.openSync(fifo, 'w');
const one = Buffer.alloc(1);
const period = 1000 / rate;
let next = performance.now() + period;
while (Atomics.load(words, 1) === 0) {
  const left = next - performance.now();
  if (left > 0) { Atomics.wait(words, 0, 0, left); continue; }
  next += period;
  if (fd === -1) parentPort.postMessage(null); else fs.writeSync(fd, one);
}
`;

async function child(mode, rate, seconds) {
  let wakes = 0;
  let stop = () => {};
  if (mode === 'idle') {
    const keep = setInterval(() => {}, 1e9);
    stop = () => clearInterval(keep);
  } else if (mode === 'timer') {
    const period = 1000 / rate;
    let timer;
    const tick = () => {
      wakes++;
      timer = setTimeout(tick, period);
    };
    timer = setTimeout(tick, period);
    stop = () => clearTimeout(timer);
  } else {
    const control = new SharedArrayBuffer(8);
    const fifo = mode === 'pipe' ? join(tmpdir(), `salvo-wake-floor-${process.pid}`) : undefined;
    let reader;
    if (fifo !== undefined) {
      execFileSync('mkfifo', [fifo]);
      const fd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      reader = new net.Socket({ fd, readable: true, onread: { buffer: Buffer.alloc(64), callback: (n) => void (wakes += n) } });
    }
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { control, rate, fifo } });
    worker.on('message', () => void wakes++);
    stop = () => {
      const words = new Int32Array(control);
      Atomics.store(words, 1, 1);
      Atomics.notify(words, 0);
      void worker.terminate();
      reader?.destroy();
      if (fifo !== undefined) fs.rmSync(fifo, { force: true });
    };
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const cpu = process.cpuUsage();
  const start = performance.now();
  const before = wakes;
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const used = process.cpuUsage(cpu);
  const elapsed = performance.now() - start;
  stop();
  process.stdout.write(JSON.stringify({ cpuPercent: ((used.user + used.system) / 1000 / elapsed) * 100, wakesPerSecond: ((wakes - before) / elapsed) * 1000 }) + '\n');
  process.exit(0);
}

async function main() {
  const { values } = parseArgs({
    options: {
      rates: { type: 'string', default: '200,1000,5000' },
      seconds: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
    },
  });
  const rates = values.rates.split(',').map(Number);
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const self = fileURLToPath(import.meta.url);
  const cpu = new Map();
  const wakes = new Map();
  for (let round = 0; round < rounds; round++) {
    for (const rate of rates) {
      const modes = round % 2 === 0 ? MODES : [...MODES].reverse();
      for (const mode of modes) {
        if (mode === 'idle' && rate !== rates[0]) continue;
        const run = spawnSync(process.execPath, [self, '--child', mode, String(rate), String(seconds)], { encoding: 'utf8' });
        if (run.status !== 0) throw new Error(`${mode} at ${rate}/s failed: ${run.stderr}`);
        const key = mode === 'idle' ? 'idle' : `${mode} ${rate}`;
        const { cpuPercent, wakesPerSecond } = JSON.parse(run.stdout);
        cpu.set(key, [...(cpu.get(key) ?? []), cpuPercent]);
        wakes.set(key, [...(wakes.get(key) ?? []), wakesPerSecond]);
      }
    }
  }
  console.log(`node ${process.version}, ${rounds} rounds of ${seconds} s, CPU % of one core (median, min-max); [wake-ups/s reached, median]\n`);
  console.log('| wake-ups/s | ' + MODES.join(' | ') + ' |');
  console.log('|---' + '|---:'.repeat(MODES.length) + '|');
  const cell = (key) => {
    const samples = cpu.get(key);
    const reached = key === 'idle' ? '' : ` [${median(wakes.get(key)).toFixed(0)}]`;
    return `${median(samples).toFixed(2)} (${Math.min(...samples).toFixed(2)}-${Math.max(...samples).toFixed(2)})${reached}`;
  };
  for (const rate of rates) {
    console.log(`| ${rate} | ` + MODES.map((mode) => cell(mode === 'idle' ? 'idle' : `${mode} ${rate}`)).join(' | ') + ' |');
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));
else await main();
