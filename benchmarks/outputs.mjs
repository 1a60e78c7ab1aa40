// The load generator's CPU with and without a Prometheus output (issue 33), closed loop and at a
// rate: what writing every second's series (encode, snappy, one POST a second) costs the run.
// CPU ms/s is this process's CPU per second of measured run (1000 = one core busy); at a low rate
// the difference is the output's own per-second cost.
// Usage (after `npm run build` at the repository root; needs Debian's `prometheus` on PATH):
//   node benchmarks/outputs.mjs [--rounds 5] [--seconds 5] [--connections 10] [--rate 2000]
// The target (salvo's test server) and Prometheus run in their own processes pinned to core 1, and
// this process (salvo) to core 0, when taskset is there. Rounds alternate without / with, medians.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { median } from './lib/summary.mjs';
import { describeMachine, findExecutable, killGroup, planPinning, wrapCommand } from './lib/system.mjs';
import { freePort, startTestServer } from './lib/targets.mjs';

const SALVO_DIST = new URL('../dist/index.js', import.meta.url);
if (!existsSync(SALVO_DIST)) throw new Error('dist/index.js is not built (npm run build at the repository root)');
const { runLoad } = await import(SALVO_DIST.href);

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    rate: { type: 'string', default: '2000' },
  },
});
const rounds = Number(args.rounds);
const durationMs = Number(args.seconds) * 1000;
const connections = Number(args.connections);
const rate = Number(args.rate);

async function startPrometheus(pinning) {
  const binary = findExecutable('prometheus');
  if (!binary) throw new Error('prometheus is not on PATH (apt-get install prometheus)');
  const dir = await mkdtemp(join(tmpdir(), 'salvo-bench-prometheus-'));
  await writeFile(join(dir, 'prometheus.yml'), 'scrape_configs: []\n');
  const port = await freePort();
  const argv = wrapCommand(
    [binary, `--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--web.enable-remote-write-receiver', '--log.level=error'],
    { taskset: pinning.taskset, cpu: pinning.target },
  );
  const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; !(await fetch(`${base}/-/ready`).then((r) => r.ok, () => false)); tries++) {
    if (tries > 300) throw new Error('prometheus did not become ready');
    await sleep(100);
  }
  return {
    writeUrl: `${base}/api/v1/write`,
    async stop() {
      killGroup(child.pid, 'SIGTERM');
      await sleep(300);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** One run: responses/s and this process's CPU (µs per response, and the share of one core). */
async function measure(options) {
  const cpuBefore = process.cpuUsage();
  const result = await runLoad(options);
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    'req/s': result.requests.perSecond,
    'CPU µs/req': (cpuMs * 1000) / Math.max(1, result.requests.completed),
    'CPU ms/s': cpuMs / (result.durationMs / 1000),
    warnings: result.warnings.map((w) => w.code),
  };
}

const pinning = planPinning();
const machine = describeMachine();
const server = await startTestServer({}, pinning);
const prometheus = await startPrometheus(pinning);
// Pinned after starting them, so that they do not inherit core 0 (-a: every thread of this process).
if (pinning.taskset) execFileSync(pinning.taskset, ['-a', '-p', '-c', pinning.generator, String(process.pid)], { stdio: 'ignore' });
const scenarios = {
  [`closed loop, ${connections} connections`]: { url: `${server.baseUrl}/`, connections, duration: durationMs },
  [`rate ${rate}/s, ${connections} connections`]: { url: `${server.baseUrl}/`, connections, rate, duration: durationMs },
  // Nearly idle: what is left of the difference is the output's own cost per second.
  ['rate 100/s, 2 connections']: { url: `${server.baseUrl}/`, connections: 2, rate: 100, duration: durationMs },
};
console.log(`${machine.cpu}, ${machine.cores} cores, node ${machine.node}, ${pinning.taskset ? 'salvo on core 0, target and Prometheus on core 1' : 'unpinned'}; load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
try {
  for (const [name, options] of Object.entries(scenarios)) {
    const runs = { without: [], with: [] };
    await runLoad({ ...options, duration: 1000 }); // warm-up, discarded
    for (let round = 0; round < rounds; round++) {
      runs.without.push(await measure(options));
      runs.with.push(await measure({ ...options, outputs: [{ type: 'prometheus', url: prometheus.writeUrl, labels: { testid: `bench-${round}` } }] }));
    }
    console.log(`\n${name} (${args.seconds} s, ${rounds} rounds, medians [min-max])`);
    for (const [contender, list] of Object.entries(runs)) {
      const cells = ['req/s', 'CPU µs/req', 'CPU ms/s'].map((key) => {
        const values = list.map((run) => run[key]);
        const digits = key === 'req/s' ? 0 : key === 'CPU ms/s' ? 2 : 1;
        return `${key} ${median(values).toFixed(digits)} [${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}]`;
      });
      const warnings = [...new Set(list.flatMap((run) => run.warnings))];
      console.log(`  ${contender.padEnd(8)} ${cells.join('  ')}${warnings.length > 0 ? `  warnings: ${warnings.join(', ')}` : ''}`);
    }
  }
} finally {
  await prometheus.stop();
  await server.stop();
  console.log(`\nload average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}
