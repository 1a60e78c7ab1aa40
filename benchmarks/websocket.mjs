// WebSocket load: salvo against a bare `ws` client loop doing the same work, each in its own process.
//
//   node websocket.mjs [--rounds 3] [--seconds 10] [--scenarios broadcast-1000,broadcast-10000,broadcast-10000@1000,echo-100]
//                      [--before /path/to/other/dist/index.js]
//
// broadcast-N: N clients connected to the test server, which broadcasts a 64-byte timestamped message
//   to every client every 100 ms; each client times every message from its timestamp. Compared:
//   the generator's CPU (100 = one core) and peak RSS over the measured window (all clients open),
//   sampled every 100 ms, and the process's RSS high-water mark (getrusage, its whole life).
// echo-N: N connections each sending a 32-byte message as soon as the reply to the previous one came
//   (closed loop) against the echoing test server; compared: messages/s.
// broadcast-N@MS: a broadcast every MS ms instead (@1000: 10,000 clients at 1/s each).
// messages/s is what the generator received over the window; server peak sent/s the most the server
// sent in any one second (it kept up if that is clients × 1000 / interval). A generator at ~100% CPU
// is saturated: its CPU says nothing then, compare messages/s (the same-round ratio shows both).
// Server pinned to core 1, generator to core 0 (as bench.mjs), contenders alternating order each
// round; one JSON line per run, then a table of medians with the range over rounds. `--before` adds
// another build of salvo as a third contender, "salvo before" (e.g. main's), in the same rounds.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { killRunning, planPinning, runBounded, wrapCommand } from './lib/system.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    scenarios: { type: 'string', default: 'broadcast-1000,broadcast-10000,broadcast-10000@1000,echo-100' },
    before: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
// `broadcast-10000@1000`: 10,000 clients, a broadcast every 1000 ms instead of every 100 ms.
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

async function startServer(mode, intervalMs) {
  const argv = wrapCommand(['node', here('lib/ws-server.mjs'), mode, String(intervalMs)], { taskset: pinning.taskset, cpu: pinning.target });
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.setEncoding('utf8');
  let output = '';
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const line = output.split('\n')[0];
      if (output.includes('\n')) resolve(line);
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
  const build = contender === 'salvo before' ? ['salvo', scenario.mode, url, String(scenario.clients), String(seconds), values.before] : [contender, scenario.mode, url, String(scenario.clients), String(seconds)];
  const argv = wrapCommand(['node', here('lib/ws-client.mjs'), ...build], {
    taskset: pinning.taskset,
    cpu: pinning.generator,
  });
  const { code, stdout, stderr, timedOut } = await runBounded(argv, { timeoutMs: (seconds + 300) * 1000, cwd: here('.') });
  if (code !== 0 || timedOut) throw new Error(`${contender} ${scenario.name} failed (exit ${code}${timedOut ? ', timed out' : ''}): ${stderr.slice(-500)}`);
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

const contenders = values.before ? ['salvo', 'salvo before', 'bare'] : ['salvo', 'bare'];
const runs = [];
for (let round = 0; round < rounds; round++) {
  for (const scenario of scenarios) {
    const order = contenders.map((_, k) => contenders[(k + round) % contenders.length]);
    for (const contender of order) {
      const server = await startServer(scenario.mode, scenario.intervalMs);
      let client;
      let serverStats;
      try {
        client = await runClient(contender, scenario, server.url);
      } catch (error) {
        // A contender that cannot connect every client in time (a saturated server) is reported, not fatal.
        client = { contender, failed: error.message.split(':')[0] };
      } finally {
        serverStats = await server.stop();
      }
      const run = { round, scenario: scenario.name, ...client, contender, serverCpuPercent: serverStats.cpuPercent, serverSent: serverStats.messagesSent, serverPeakPerSecond: serverStats.peakSentPerSecond };
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
console.log(`\n${rounds} rounds of ${seconds} s, medians (range); server pinned to core ${pinning.target ?? '-'}, generator to core ${pinning.generator ?? '-'}`);
console.log('| scenario | contender | generator CPU % | peak RSS MB (window) | RSS high-water MB (process) | messages/s | server CPU % | server peak sent/s | s to open every client |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
for (const scenario of scenarios) {
  for (const contender of contenders) {
    const mine = runs.filter((run) => run.scenario === scenario.name && run.contender === contender && run.failed === undefined);
    if (mine.length === 0) {
      console.log(`| ${scenario.name} | ${contender} | failed every round | | | | | | |`);
      continue;
    }
    console.log(
      `| ${scenario.name} | ${contender} | ${cell(mine.map((r) => r.cpuPercent), 1)} | ${cell(mine.map((r) => r.peakRssMB), 0)} | ${cell(mine.map((r) => r.maxRssMB), 0)} | ` +
        `${cell(mine.map((r) => r.perSecond), 0)} | ${cell(mine.map((r) => r.serverCpuPercent), 1)} | ${cell(mine.map((r) => r.serverPeakPerSecond), 0)} | ${cell(mine.map((r) => r.openingS), 1)} |`,
    );
  }
  for (const salvoContender of contenders.filter((contender) => contender !== 'bare')) {
    const ratios = [];
    const messageRatios = [];
    for (let round = 0; round < rounds; round++) {
      const [salvo, bare] = [salvoContender, 'bare'].map((contender) => runs.find((run) => run.scenario === scenario.name && run.contender === contender && run.round === round));
      if (salvo && bare && salvo.failed === undefined && bare.failed === undefined) {
        ratios.push(salvo.cpuPercent / bare.cpuPercent);
        messageRatios.push(salvo.perSecond / bare.perSecond);
      }
    }
    if (ratios.length === 0) continue;
    const label = scenario.mode === 'echo' ? `messages/s ${cell(messageRatios, 2)}` : `CPU ${cell(ratios, 2)}; messages/s ${cell(messageRatios, 2)}`;
    console.log(`| ${scenario.name} | ${salvoContender} / bare (same round) | ${label} | | | | | | |`);
  }
}
