// What running a user's function through salvo (`task`) costs over a bare loop calling it.
//
//   npm run build && node benchmarks/tasks.mjs [--rounds 5] [--duration 2000] [--before other/dist/index.js]
//
// Closed loop: a no-op async task, and a task awaiting a resolved promise, called by salvo
// (concurrency 1 and 100) and by a bare `for` loop of `await`s: calls/s and CPU per call. Open loop:
// the no-op task at 1,000 and 10,000 calls/s, by salvo and by a bare loop paced with setTimeout
// (each call due at start + i / rate): the send lag (start minus due) p50 and p99. Each run is a
// child process of its own pinned to one core (taskset, when there is one), contenders alternating
// round by round; the table gives medians with the lowest and highest round. `--before` adds salvo's
// rows run from another build (today's main, say), alternating with this one's.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '2000' },
    child: { type: 'string' },
    before: { type: 'string' },
  },
});
const durationMs = Number(values.duration);
const root = new URL('..', import.meta.url);

const resolved = Promise.resolve();
const TASKS = {
  noop: async () => {},
  resolved: async () => {
    await resolved;
  },
};

const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** A bare closed loop: `for` of `await`s, the clock read once per call as salvo reads it. */
async function bareClosed(task) {
  let calls = 0;
  const cpu = cpuMicros();
  const startedAt = performance.now();
  const endAt = startedAt + durationMs;
  for (let now = startedAt; now < endAt; now = performance.now()) {
    await task();
    calls++;
  }
  const seconds = (performance.now() - startedAt) / 1000;
  return { callsPerSecond: calls / seconds, cpuPerCallUs: (cpuMicros() - cpu) / calls };
}

/** A bare open loop: call i due at start + i / rate, each timer set for the next due call. */
async function bareOpen(task, rate) {
  const lags = [];
  const startedAt = performance.now();
  const endAt = startedAt + durationMs;
  await new Promise((resolve) => {
    let call = 0;
    const next = () => {
      let now = performance.now();
      for (let due = startedAt + (call * 1000) / rate; due <= now; due = startedAt + (call * 1000) / rate) {
        if (due >= endAt) return resolve();
        lags.push(now - due);
        void task();
        call++;
        now = performance.now();
      }
      setTimeout(next, Math.max(0, startedAt + (call * 1000) / rate - now));
    };
    next();
  });
  lags.sort((a, b) => a - b);
  const at = (q) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))];
  return { calls: lags.length, lagP50Ms: at(0.5), lagP99Ms: at(0.99) };
}

async function salvo(task, options, build = new URL('dist/index.js', root).href) {
  const { runLoad } = await import(build);
  const cpu = cpuMicros();
  const result = await runLoad({ task, duration: durationMs, ...options });
  const calls = result.requests.sent;
  return {
    callsPerSecond: result.requests.completed / (result.durationMs / 1000),
    cpuPerCallUs: (cpuMicros() - cpu) / calls,
    calls,
    lagP50Ms: result.generator.sendLag?.p50,
    lagP99Ms: result.generator.sendLag?.p99,
  };
}

const CONTENDERS = {
  'closed noop bare': () => bareClosed(TASKS.noop),
  'closed noop salvo c1': () => salvo(TASKS.noop, { concurrency: 1 }),
  'closed noop salvo c100': () => salvo(TASKS.noop, { concurrency: 100 }),
  'closed resolved bare': () => bareClosed(TASKS.resolved),
  'closed resolved salvo c1': () => salvo(TASKS.resolved, { concurrency: 1 }),
  'closed resolved salvo c100': () => salvo(TASKS.resolved, { concurrency: 100 }),
  'open 1000/s bare': () => bareOpen(TASKS.noop, 1000),
  'open 1000/s salvo': () => salvo(TASKS.noop, { rate: 1000, concurrency: 10 }),
  'open 10000/s bare': () => bareOpen(TASKS.noop, 10_000),
  'open 10000/s salvo': () => salvo(TASKS.noop, { rate: 10_000, concurrency: 10 }),
};
if (values.before !== undefined) {
  const before = new URL(values.before, `file://${process.cwd()}/`).href;
  CONTENDERS['closed noop salvo c100 before'] = () => salvo(TASKS.noop, { concurrency: 100 }, before);
  CONTENDERS['open 10000/s salvo before'] = () => salvo(TASKS.noop, { rate: 10_000, concurrency: 10 }, before);
}

if (values.child !== undefined) {
  const measured = await CONTENDERS[values.child]();
  process.stdout.write(`${JSON.stringify(measured)}\n`);
  process.exit(0);
}

let pin = false;
try {
  execFileSync('taskset', ['-c', '1', 'true']);
  pin = true;
} catch {}

async function runChild(name) {
  const args = [fileURLToPath(import.meta.url), '--child', name, '--duration', String(durationMs), ...(values.before === undefined ? [] : ['--before', values.before])];
  const [command, commandArgs] = pin ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  await once(child, 'exit');
  return JSON.parse(out);
}

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (x, digits = 0) => (x === undefined ? 'n/a' : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));
const range = (xs, digits) => `${fmt(median(xs), digits)} (${fmt(Math.min(...xs), digits)}-${fmt(Math.max(...xs), digits)})`;

const loadBefore = loadavg()[0];
const rounds = Number(values.rounds);
const samples = Object.fromEntries(Object.keys(CONTENDERS).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  // Alternate the order too, so that neither contender always runs first.
  const names = Object.keys(CONTENDERS);
  for (const name of round % 2 === 0 ? names : names.reverse()) samples[name].push(await runChild(name));
  process.stderr.write(`round ${round + 1} of ${rounds} done\n`);
}
const loadAfter = loadavg()[0];

console.log(`Node ${process.version}, ${pin ? 'each run pinned to core 1 (taskset -c 1)' : 'not pinned (no taskset)'}, ${rounds} rounds of ${durationMs} ms, 1-minute load average ${loadBefore.toFixed(2)} before and ${loadAfter.toFixed(2)} after\n`);
console.log('| closed loop | calls/s, median (lowest-highest) | CPU per call, µs | salvo / bare CPU per call |');
console.log('|---|---|---|---|');
for (const task of ['noop', 'resolved']) {
  const bare = median(samples[`closed ${task} bare`].map((s) => s.cpuPerCallUs));
  for (const who of ['bare', 'salvo c1', 'salvo c100']) {
    const runs = samples[`closed ${task} ${who}`];
    const perSecond = runs.map((s) => s.callsPerSecond);
    const cpu = runs.map((s) => s.cpuPerCallUs);
    console.log(`| ${task === 'noop' ? 'no-op' : 'await a resolved promise'}, ${who} | ${range(perSecond)} | ${range(cpu, 3)} | ${who === 'bare' ? '' : fmt(median(cpu) / bare, 2)} |`);
  }
}
console.log('\n| open loop, no-op | calls | send lag p50, ms | send lag p99, ms |');
console.log('|---|---|---|---|');
for (const rate of ['1000', '10000']) {
  for (const who of ['bare', 'salvo']) {
    const runs = samples[`open ${rate}/s ${who}`];
    console.log(`| ${fmt(Number(rate))}/s, ${who} | ${range(runs.map((s) => s.calls))} | ${range(runs.map((s) => s.lagP50Ms), 3)} | ${range(runs.map((s) => s.lagP99Ms), 3)} |`);
  }
}
if (values.before !== undefined) {
  console.log(`\n| before -> after (${values.before} -> dist/index.js) | calls/s or calls | CPU per call, µs | send lag p99, ms |`);
  console.log('|---|---|---|---|');
  for (const [label, name] of [['closed no-op c100', 'closed noop salvo c100'], ['open 10000/s no-op', 'open 10000/s salvo']]) {
    for (const [which, key] of [['before', `${name} before`], ['after', name]]) {
      const runs = samples[key];
      const count = label.startsWith('closed') ? runs.map((s) => s.callsPerSecond) : runs.map((s) => s.calls);
      console.log(`| ${label}, ${which} | ${range(count)} | ${range(runs.map((s) => s.cpuPerCallUs), 3)} | ${label.startsWith('open') ? range(runs.map((s) => s.lagP99Ms), 3) : ''} |`);
    }
  }
}
