// The generator's cold start (issues 37, 51): per-second p99 of short open-loop runs with default options,
// from one build or from two alternating (`--before` / `--after`, e.g. main's dist/index.js and
// this one's), against nginx with one worker (salvo's test server in its own process without nginx).
//
//   node cold-start.mjs [--rates 5000,15000] [--runs 5] [--duration 5] [--workers 1] [--warmup 0]
//                       [--before /path/dist/index.js] [--after /path/dist/index.js] [--url URL]
//                       [--prewarm true|false] [--trace-opt]
//
// The target runs on core 0 and each measured run is a new Node process on core 1 (taskset, when
// there are two cores). For each run it prints the timeline's p99s and the ratio of the first
// second's p99 to the median of the later seconds' (the issue's target: within 2x), then per build
// and rate the median p99 of each second, the ratios and their median, and the load average.
// Each run also reports salvo's CPU time (process.cpuUsage, every thread) in the first 300 ms of the
// measured run and in a steady 300 ms (the median of the windows from 1 s on): the cold start's
// cost, which a busy host moves less than it moves a p99 (it counts CPU used, not time waited),
// and its start-up: from the runLoad call to the measured run's first second (a warm-up or a
// pre-warm is in it), with the pre-warm's own cost (`result.generator.prewarm`) when it had one.
// `--prewarm false|true` passes `prewarm` (a build before issue 51 rejects it).
// `--trace-opt` runs each child under `node --trace-opt --trace-deopt` instead and counts, of the
// send/parse/record path's functions (HOT below), those V8 optimised before the measured run
// began, those it optimised in its first second, and those it deoptimised then: what a warm-up
// leaves for the measured run to do, which the noise of a shared host does not change.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './lib/summary.mjs';
import { findExecutable, planPinning, wrapCommand } from './lib/system.mjs';
import { startNginx, startTestServer } from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    rates: { type: 'string', default: '5000,15000' },
    runs: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    workers: { type: 'string', default: '1' },
    warmup: { type: 'string', default: '0' },
    prewarm: { type: 'string' },
    before: { type: 'string' },
    after: { type: 'string', default: fileURLToPath(new URL('../dist/index.js', import.meta.url)) },
    url: { type: 'string' },
    child: { type: 'string' },
    'trace-opt': { type: 'boolean', default: false },
  },
});

if (values.child !== undefined) {
  // One measured run: default options but for rate, duration, workers and warmup.
  const { build, url, rate, duration, workers, warmup, prewarm } = JSON.parse(values.child);
  const { runLoad } = await import(pathToFileURL(build).href);
  // The process's CPU (ms, every thread) every 20 ms, against wall-clock time.
  const samples = [];
  const sample = () => {
    const usage = process.cpuUsage();
    samples.push([performance.timeOrigin + performance.now(), (usage.user + usage.system) / 1000]);
  };
  const sampler = setInterval(sample, 20);
  // Under --trace-opt: a clock line every 5 ms among V8's lines, to place them in time.
  const clock = values['trace-opt'] ? setInterval(() => console.log(`T ${performance.timeOrigin + performance.now()}`), 5) : undefined;
  const calledAt = performance.timeOrigin + performance.now();
  const result = await runLoad({ url, rate, duration: `${duration}s`, workers, ...(warmup > 0 ? { warmup } : {}), ...(prewarm !== undefined ? { prewarm } : {}) });
  clearInterval(sampler);
  clearInterval(clock);
  // CPU between two instants, from the samples nearest them.
  const cpuAt = (at) => samples.reduce((best, s) => (Math.abs(s[0] - at) < Math.abs(best[0] - at) ? s : best))[1];
  const cpuIn = (from, to) => cpuAt(to) - cpuAt(from);
  const start = result.startedAt;
  const steady = [];
  for (let from = start + 1000; from + 300 <= start + duration * 1000; from += 300) steady.push(cpuIn(from, from + 300));
  // Only the whole seconds: a last partial second holds the stragglers of the run's end.
  const seconds = result.timeline.slice(0, duration);
  const p99s = seconds.map((second) => second.p99);
  // The generator's own CPU per second (100 = one core): the cold start's cost, whatever the host's noise does to latency.
  const cpu = seconds.map((second) => Math.round(second.cpuPercent));
  const cold = { first300: cpuIn(start, start + 300), steady300: median(steady) };
  // Start-up: from the call to the measured run's first second (a warm-up or pre-warm is in it).
  const startup = { startupMs: start - calledAt, prewarm: result.generator.prewarm };
  console.log(JSON.stringify({ p99s, cpu, ...cold, ...startup, startedAt: start, p99: result.latency.p99, sent: result.requests.sent, completed: result.requests.completed }));
  process.exit(0);
}

/** The send/parse/record path's functions (engine, net transport, HTTP/1.1 parser, recorder), by the names V8 prints. */
const HOT = new Set(
  ('#pump #send #next #freeLane #dueAt onResponse next skip shift push send #write write read onRead RawTcp.#onread execute matches ' +
    '#startMessage #knownHead #headersEnd #complete #viewOf recordSent recordResponse #recordCompleted #recordLatency record bucketOf ' +
    'latencyUs timeOf recordExchange toUs recordSendLag #allowed').split(' '),
);

/** What --trace-opt printed around the measured run's start (`startedAt`, epoch ms). */
function optimisations(stdout, startedAt) {
  let at = 0;
  const before = new Set();
  let first = 0;
  let deopts = 0;
  for (const line of stdout.split('\n')) {
    if (line.startsWith('T ')) at = Number(line.slice(2));
    const optimised = /completed optimizing .*?<JSFunction ([^ >]+)/.exec(line);
    const deoptimised = /bailout .*?deoptimizing .*?<JSFunction ([^ >]+)/.exec(line);
    const name = (optimised ?? deoptimised)?.[1];
    if (name === undefined || !HOT.has(name)) continue;
    if (at < startedAt) {
      if (optimised) before.add(name);
    } else if (at < startedAt + 1000) {
      if (optimised) first++;
      else deopts++;
    }
  }
  return { optimisedBefore: before.size, optimisedInFirstSecond: first, deoptimisedInFirstSecond: deopts };
}

const pinned = planPinning();
const pinning = { taskset: pinned.taskset, target: pinned.taskset && '0', generator: pinned.taskset && '1' };
const builds = values.before === undefined ? { after: values.after } : { before: values.before, after: values.after };
const rates = values.rates.split(',').map(Number);
const duration = Number(values.duration);
const workers = Number(values.workers);
const warmup = Number(values.warmup);
const prewarm = values.prewarm === undefined ? undefined : values.prewarm === 'true';
const nginx = findExecutable('nginx');
const target = values.url !== undefined ? undefined : nginx ? await startNginx(nginx, pinning) : await startTestServer({}, pinning);
const url = values.url ?? `${target.baseUrl}/`;
const load = [loadavg()[0]];
const runs = {};
try {
  for (let run = 0; run < Number(values.runs); run++) {
    for (const rate of rates) {
      // Alternating, and each round starting with the other build, so that neither is always first.
      const order = run % 2 === 0 ? Object.keys(builds) : Object.keys(builds).reverse();
      for (const name of order) {
        const child = JSON.stringify({ build: builds[name], url, rate, duration, workers, warmup, prewarm });
        const trace = values['trace-opt'] ? ['--trace-opt', '--trace-deopt'] : [];
        const argv = wrapCommand([process.execPath, ...trace, fileURLToPath(import.meta.url), '--child', child, ...(trace.length > 0 ? ['--trace-opt'] : [])], { taskset: pinning.taskset, cpu: pinning.generator });
        const { stdout, stderr, status } = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: (duration + 30) * 1000 });
        if (status !== 0) throw new Error(`run failed (${status}): ${stderr.trim().split('\n').slice(-3).join(' ')}`);
        // The result line: V8's may come after it under --trace-opt.
        const measured = JSON.parse(stdout.trim().split('\n').findLast((line) => line.startsWith('{')));
        if (values['trace-opt']) Object.assign(measured, optimisations(stdout, measured.startedAt));
        measured.ratio = measured.p99s[0] / median(measured.p99s.slice(1));
        measured.cpuRatio = measured.cpu[0] / median(measured.cpu.slice(1));
        measured.load = loadavg()[0];
        load.push(measured.load);
        (runs[`${name} ${rate}`] ??= []).push(measured);
        console.log(JSON.stringify({ build: name, rate, run, ...measured }));
      }
    }
  }
} finally {
  await target?.stop();
}

// A second no run timed has no median (undefined).
const fixed = (number) => (number === undefined ? 'n/a' : number.toFixed(2));
console.log(`\n| build | rate/s | ${Array.from({ length: duration }, (_, second) => `s${second}`).join(' | ')} | first / median(later), per run | median | within 2x | CPU s0 / later | CPU ms, first 300 ms / steady 300 ms | start-up ms | pre-warm ms, CPU ms |`);
console.log(`|---|---|${'---|'.repeat(duration)}---|---|---|---|---|---|---|`);
for (const [key, measured] of Object.entries(runs)) {
  const [name, rate] = key.split(' ');
  const seconds = Array.from({ length: duration }, (_, second) => fixed(median(measured.map((m) => m.p99s[second] ?? NaN))));
  const ratios = measured.map((m) => m.ratio).sort((a, b) => a - b);
  const within = ratios.filter((ratio) => ratio <= 2).length;
  const cpuRatio = median(measured.map((m) => m.cpuRatio));
  const cold = `${fixed(median(measured.map((m) => m.first300)))} / ${fixed(median(measured.map((m) => m.steady300)))}`;
  if (values['trace-opt']) {
    const counts = (field) => measured.map((m) => m[field]).join(', ');
    console.log(`${name} ${rate}/s: hot functions optimised before measuring ${counts('optimisedBefore')}; in its first second ${counts('optimisedInFirstSecond')}; deoptimised then ${counts('deoptimisedInFirstSecond')}`);
  }
  const startup = fixed(median(measured.map((m) => m.startupMs)));
  const prewarms = measured.filter((m) => m.prewarm !== undefined);
  const prewarmCost = prewarms.length === 0 ? '-' : `${fixed(median(prewarms.map((m) => m.prewarm.durationMs)))}, ${fixed(median(prewarms.map((m) => m.prewarm.cpuMs)))}`;
  console.log(`| ${name} | ${Number(rate).toLocaleString('en')} | ${seconds.join(' | ')} | ${ratios.map(fixed).join(', ')} | ${fixed(median(ratios))} | ${within} of ${ratios.length} | ${fixed(cpuRatio)} | ${cold} | ${startup} | ${prewarmCost} |`);
}
console.log(`\nload average (1 min) over the runs: ${fixed(Math.min(...load))}-${fixed(Math.max(...load))}, median ${fixed(median(load))}`);
