// Streams (issue 43): salvo's `stream` option against a bare undici loop reading the same streams.
//
//   node streams.mjs [--rounds 3] [--seconds 10] [--subscriptions 10000] [--interval 1000] [--short-connections 100]
//
// subscribe: SUBSCRIPTIONS connections each hold one SSE stream open for the run (salvo: a long
//   `stream` request; salvo subscribe: `stream.subscribe`, and with delivery timing); the server
//   (lib/sse-server.mjs, pinned to core 1) writes a timestamped event to every stream each INTERVAL
//   ms. Compared over the same window (a measured second after every stream opened to the second
//   before the end): the generator's CPU (100 = one core), CPU µs per event, events/s and RSS.
// short: SHORT-CONNECTIONS connections in a closed loop, each response 5 events and the body's end:
//   streams/s that salvo completes on one core (net and undici), no bare contender.
// The generator is pinned to core 0; contenders alternate order each round; one JSON line per run,
// then tables of medians with the range over rounds.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { killRunning, planPinning, runBounded, wrapCommand } from './lib/system.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    subscriptions: { type: 'string', default: '10000' },
    interval: { type: 'string', default: '1000' },
    'short-connections': { type: 'string', default: '100' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const pinning = planPinning();
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
process.on('SIGINT', () => {
  killRunning();
  process.exit(130);
});

async function startServer(mode, arg) {
  const argv = wrapCommand(['node', here('lib/sse-server.mjs'), mode, String(arg)], { taskset: pinning.taskset, cpu: pinning.target });
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.setEncoding('utf8');
  let output = '';
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('\n')) resolve(output.split('\n')[0]);
    });
    child.on('exit', () => reject(new Error('the server exited before listening')));
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'close');
      return JSON.parse(output.trim().split('\n').at(-1));
    },
  };
}

async function client(args) {
  const argv = wrapCommand(['node', here('lib/sse-client.mjs'), ...args.map(String)], { taskset: pinning.taskset, cpu: pinning.generator });
  const { code, stdout, stderr, timedOut } = await runBounded(argv, { timeoutMs: (seconds + 300) * 1000, cwd: here('.') });
  if (code !== 0 || timedOut) throw new Error(`${args[0]} failed (exit ${code}${timedOut ? ', timed out' : ''}): ${stderr.slice(-500)}`);
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const cell = (list, digits) => `${median(list).toFixed(digits)} (${Math.min(...list).toFixed(digits)}-${Math.max(...list).toFixed(digits)})`;

const runs = [];
const loads = [];
for (let round = 0; round < rounds; round++) {
  loads.push(loadavg()[0]);
  const contenders = round % 2 === 0 ? ['salvo', 'subscribe', 'delivery', 'bare'] : ['bare', 'delivery', 'subscribe', 'salvo'];
  for (const contender of contenders) {
    const server = await startServer('subscribe', values.interval);
    let run;
    try {
      run = { round, scenario: 'subscribe', ...(await client([contender, server.url, values.subscriptions, seconds])) };
    } catch (error) {
      run = { round, scenario: 'subscribe', contender, failed: error.message.slice(0, 200) };
    }
    const stats = await server.stop();
    run.serverCpuPercent = stats.cpuPercent;
    run.serverMostOpen = stats.mostOpen;
    console.log(JSON.stringify(run));
    if (run.failed === undefined) runs.push(run);
  }
  // --short-connections 0 leaves the short scenario out.
  for (const transport of values['short-connections'] === '0' ? [] : round % 2 === 0 ? ['net', 'undici'] : ['undici', 'net']) {
    const server = await startServer('short', 5);
    try {
      const run = { round, scenario: 'short', transport, ...(await client(['salvo', server.url, values['short-connections'], seconds, transport])) };
      run.streamsPerSecond = run.perSecond / 5;
      console.log(JSON.stringify(run));
      runs.push(run);
    } finally {
      await server.stop();
    }
  }
}

console.log(`\n${rounds} rounds of ${seconds} s, medians (range); server on core ${pinning.target ?? '-'}, generator on core ${pinning.generator ?? '-'}; load average (1 min) at each round: ${loads.map((l) => l.toFixed(1)).join(', ')}`);
console.log(`\n| ${values.subscriptions} subscriptions, an event each ${values.interval} ms | generator CPU % | CPU µs per event | events/s | RSS MB |`);
console.log('|---|---:|---:|---:|---:|');
const NAMES = { salvo: 'salvo (net, stream sse)', subscribe: 'salvo (net, stream.subscribe)', delivery: 'salvo (net, stream.subscribe, timestamp)', bare: 'bare undici Pool' };
for (const contender of ['salvo', 'subscribe', 'delivery', 'bare']) {
  const mine = runs.filter((run) => run.scenario === 'subscribe' && run.contender === contender);
  if (mine.length === 0) continue;
  console.log(`| ${NAMES[contender]} | ${cell(mine.map((r) => r.cpuPercent), 1)} | ${cell(mine.map((r) => r.cpuUsPerEvent), 2)} | ${cell(mine.map((r) => r.perSecond), 0)} | ${cell(mine.map((r) => r.peakRssMB), 0)} |`);
}
for (const contender of ['salvo', 'subscribe', 'delivery']) {
  const ratios = [];
  for (let round = 0; round < rounds; round++) {
    const [mine, bare] = [contender, 'bare'].map((c) => runs.find((run) => run.scenario === 'subscribe' && run.contender === c && run.round === round));
    if (mine && bare) ratios.push(mine.cpuUsPerEvent / bare.cpuUsPerEvent);
  }
  if (ratios.length > 0) console.log(`| ${NAMES[contender]} / bare, CPU per event, same round | ${cell(ratios, 2)} | | | |`);
}
if (values['short-connections'] !== '0') {
  console.log(`\n| short streams (5 events), ${values['short-connections']} connections, one core | streams/s | events/s | generator CPU % |`);
  console.log('|---|---:|---:|---:|');
}
for (const transport of values['short-connections'] === '0' ? [] : ['net', 'undici']) {
  const mine = runs.filter((run) => run.scenario === 'short' && run.transport === transport);
  console.log(`| salvo ${transport} | ${cell(mine.map((r) => r.streamsPerSecond), 0)} | ${cell(mine.map((r) => r.perSecond), 0)} | ${cell(mine.map((r) => r.cpuPercent), 1)} |`);
}
