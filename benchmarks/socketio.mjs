// Socket.IO load: salvo (`runLoad` with `socketio`) against a bare loop of `socket.io-client`
// clients doing the same work, each in its own process, against the real `socket.io` server.
//
//   node socketio.mjs [--rounds 3] [--seconds 10] [--scenarios broadcast-10000,broadcast-1000,echo-100]
//                     [--before /path/to/other/dist/index.js]
//
// broadcast-N: N clients connected to a socket.io server that emits a timestamped `tick` event
//   (about 64 bytes) to every client every 100 ms; each client times every event from its `ts`.
//   The server starts broadcasting once N clients are connected (servers/socketio-server.mjs says why).
//   Compared: CPU µs per received event, peak RSS over the measured window (every client open),
//   sampled every 100 ms, and the process's RSS high-water mark (getrusage, its whole life).
// echo-N: N connections each emitting `echo` with an acknowledgement, the next as soon as the ack
//   came (closed loop); compared: acks/s.
// broadcast-N@MS: a broadcast every MS ms instead.
// Server pinned to core 1, generator to core 0 (as bench.mjs), contenders alternating order each
// round; one JSON line per run, then a table of medians with the range over rounds and the
// same-round ratios salvo / bare.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { killRunning, planPinning, runBounded, wrapCommand } from './lib/system.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    scenarios: { type: 'string', default: 'broadcast-10000,broadcast-1000,echo-100' },
    before: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const scenarios = values.scenarios.split(',').map((name) => {
  const [plan, interval = '100'] = name.split('@');
  const [mode, clients] = plan.split('-');
  return { name, mode, clients: Number(clients), intervalMs: Number(interval) };
});
const pinning = planPinning();
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
process.on('SIGINT', () => {
  killRunning();
  process.exit(130);
});

async function startServer(mode, intervalMs, clients) {
  const argv = wrapCommand(['node', here('servers/socketio-server.mjs'), mode, String(intervalMs), String(clients)], { taskset: pinning.taskset, cpu: pinning.target });
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

async function runClient(contender, scenario, url) {
  const args = [contender === 'salvo before' ? 'salvo' : contender, scenario.mode, url, String(scenario.clients), String(seconds)];
  if (contender === 'salvo before') args.push(values.before);
  const argv = wrapCommand(['node', here('runners/socketio-client.mjs'), ...args], { taskset: pinning.taskset, cpu: pinning.generator });
  const { code, stdout, stderr, timedOut } = await runBounded(argv, { timeoutMs: (seconds + 300) * 1000, cwd: here('.') });
  if (code !== 0 || timedOut) throw new Error(`${contender} ${scenario.name} failed (exit ${code}${timedOut ? ', timed out' : ''}): ${stderr.slice(-500)}`);
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

const contenders = values.before ? ['salvo', 'salvo before', 'bare'] : ['salvo', 'bare'];
const loads = [loadavg()[0]];
const runs = [];
for (let round = 0; round < rounds; round++) {
  for (const scenario of scenarios) {
    const order = contenders.map((_, k) => contenders[(k + round) % contenders.length]);
    for (const contender of order) {
      const server = await startServer(scenario.mode, scenario.intervalMs, scenario.clients);
      let client;
      let serverStats;
      try {
        client = await runClient(contender, scenario, server.url);
      } catch (error) {
        // A contender that cannot connect every client in time is reported, not fatal.
        client = { contender, failed: error.message.split(':')[0] };
      } finally {
        serverStats = await server.stop();
      }
      loads.push(loadavg()[0]);
      const run = { round, scenario: scenario.name, ...client, contender, loadAverage: loadavg()[0], serverCpuPercent: serverStats.cpuPercent, serverPeakPerSecond: serverStats.peakSentPerSecond };
      console.log(JSON.stringify(run));
      runs.push(run);
    }
  }
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const cell = (list, digits) => `${median(list).toFixed(digits)} (${Math.min(...list).toFixed(digits)}-${Math.max(...list).toFixed(digits)})`;
console.log(
  `\n${rounds} rounds of ${seconds} s, medians (range); server pinned to core ${pinning.target ?? '-'}, generator to core ${pinning.generator ?? '-'}; ` +
    `1-minute load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
);
console.log('| scenario | contender | generator CPU % | CPU µs / event | peak RSS MB (window) | RSS high-water MB | events/s | server CPU % | server peak sent/s | s to open every client |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const scenario of scenarios) {
  for (const contender of contenders) {
    const mine = runs.filter((run) => run.scenario === scenario.name && run.contender === contender && run.failed === undefined);
    if (mine.length === 0) {
      console.log(`| ${scenario.name} | ${contender} | failed every round | | | | | | | |`);
      continue;
    }
    const column = (key, digits) => cell(mine.map((run) => run[key]), digits);
    console.log(
      `| ${scenario.name} | ${contender} | ${column('cpuPercent', 1)} | ${column('cpuUsPerEvent', 1)} | ${column('peakRssMB', 0)} | ${column('maxRssMB', 0)} | ` +
        `${column('perSecond', 0)} | ${column('serverCpuPercent', 1)} | ${column('serverPeakPerSecond', 0)} | ${column('openingS', 1)} |`,
    );
  }
  for (const salvoContender of contenders.filter((contender) => contender !== 'bare')) {
    const cpuRatios = [];
    const rateRatios = [];
    for (let round = 0; round < rounds; round++) {
      const [salvo, bare] = [salvoContender, 'bare'].map((contender) => runs.find((run) => run.scenario === scenario.name && run.contender === contender && run.round === round));
      if (salvo && bare && salvo.failed === undefined && bare.failed === undefined) {
        cpuRatios.push(salvo.cpuUsPerEvent / bare.cpuUsPerEvent);
        rateRatios.push(salvo.perSecond / bare.perSecond);
      }
    }
    if (cpuRatios.length === 0) continue;
    console.log(`| ${scenario.name} | ${salvoContender} / bare (same round) | | CPU per event ${cell(cpuRatios, 2)} | | | events/s ${cell(rateRatios, 2)} | | | |`);
  }
}
