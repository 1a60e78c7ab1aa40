// HTTP/2: salvo's `h2` transport against h2load (nghttp2) on nginx with http2, plus salvo `net`
// (HTTP/1.1) on the same nginx, at c=10 m=10, c=100 m=1 and c=10 m=100.
//
//   node h2.mjs [--rounds 3] [--duration 3] [--warmup 1] [--only c10m10,c100m1,c10m100]
//
// nginx (one worker, h2c on one port, HTTP/1.1 on another, 2 B body) runs on core 1, every
// generator on core 0 (taskset), each single-threaded (`h2load -t1`, salvo `workers: 1`). When
// nginx was built without http_v2 (`nginx -V`), salvo's HTTP/2 test server runs in its own process
// instead. Rounds alternate the contenders; the table has medians, min-max, and the median of the
// same-round ratios to h2load. salvo net uses `pipelining` = m, so every contender has c x m
// requests in flight. Wrap it in `flock /tmp/salvo-bench.lock` on a shared machine.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describeMachine, findExecutable, killGroup, planPinning, runBounded, wrapCommand } from './lib/system.mjs';
import { freePort, waitForPort } from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    only: { type: 'string', default: 'c10m10,c100m1,c10m100' },
  },
});
const rounds = Number(values.rounds);
const durationS = Number(values.duration);
const warmupS = Number(values.warmup);
const POINTS = [
  { name: 'c10m10', c: 10, m: 10 },
  { name: 'c100m1', c: 100, m: 1 },
  { name: 'c10m100', c: 10, m: 100 },
].filter((point) => values.only.split(',').includes(point.name));
const SALVO_RUNNER = fileURLToPath(new URL('./runners/salvo.mjs', import.meta.url));
const pinning = planPinning();

function nginxHasHttp2(nginx) {
  const version = spawnSync(nginx, ['-V'], { encoding: 'utf8' });
  return /--with-http_v2_module/.test(`${version.stdout}${version.stderr}`);
}

/** nginx, one worker, `http2` on one port (h2c prior knowledge, as h2load speaks it) and HTTP/1.1 on another. */
async function startNginx(nginx) {
  const dir = await mkdtemp(join(tmpdir(), 'salvo-bench-h2-'));
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'tmp'));
  const [h2Port, h1Port] = [await freePort(), await freePort()];
  const location = 'location = /2b { return 200 "xx"; }';
  await writeFile(join(dir, 'nginx.conf'), `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; multi_accept on; }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  http2_max_requests 100000000;
  http2_max_concurrent_streams 128;
  client_body_temp_path ${dir}/tmp;
  tcp_nodelay on;
  server { listen 127.0.0.1:${h2Port} http2 backlog=4096; ${location} }
  server { listen 127.0.0.1:${h1Port} backlog=4096; ${location} }
}
`);
  const argv = wrapCommand([nginx, '-c', join(dir, 'nginx.conf'), '-p', dir], { taskset: pinning.taskset, cpu: pinning.target });
  const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: 'ignore' });
  await Promise.all([waitForPort(h2Port, Date.now() + 15_000), waitForPort(h1Port, Date.now() + 15_000)]);
  return {
    name: 'nginx 1 worker (http2, h2c)',
    h2Url: `http://127.0.0.1:${h2Port}/2b`,
    h1Url: `http://127.0.0.1:${h1Port}/2b`,
    async stop() {
      killGroup(child.pid, 'SIGTERM');
      await once(child, 'exit');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** salvo's HTTP/2 test server in a process of its own, when nginx cannot speak HTTP/2. */
async function startTestServers() {
  const script = fileURLToPath(new URL('./servers/salvo-test-server.mjs', import.meta.url));
  const start = async (options) => {
    const argv = wrapCommand([process.execPath, script, JSON.stringify(options)], { taskset: pinning.taskset, cpu: pinning.target });
    const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = await once(child.stdout.setEncoding('utf8'), 'data');
    return { child, url: `${JSON.parse(line).url.replace(/\/$/, '')}/2b` };
  };
  const [h2, h1] = [await start({ h2: true }), await start({})];
  return {
    name: 'salvo test server (nginx has no http_v2 here)',
    h2Url: h2.url,
    h1Url: h1.url,
    async stop() {
      for (const { child } of [h2, h1]) killGroup(child.pid, 'SIGTERM');
    },
  };
}

const pin = { taskset: pinning.taskset, cpu: pinning.generator };
const timeoutMs = (warmupS + durationS) * 1000 + 20_000;

async function runH2load(point, target) {
  const argv = ['h2load', '-t1', `-c${point.c}`, `-m${point.m}`, `-D${durationS}`, `--warm-up-time=${warmupS}`, target.h2Url];
  const { code, stdout, stderr } = await runBounded(wrapCommand(argv, pin), { timeoutMs });
  const finished = /finished in [\d.]+s, ([\d.]+) req\/s/.exec(stdout);
  const requests = /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(stdout);
  if (code !== 0 || !finished || !requests) return { failed: `h2load exited ${code}: ${stderr.trim().split('\n').at(-1)}` };
  return { rps: Number(finished[1]), errors: Number(requests[5]) + Number(requests[6]) };
}

async function runSalvo(transport, point, target) {
  const spec = {
    url: transport === 'h2' ? target.h2Url : target.h1Url,
    transport,
    connections: point.c,
    ...(transport === 'h2' ? { h2Streams: point.m } : { pipelining: point.m }),
    keepAlive: true,
    durationS,
    warmupS,
  };
  const { code, stdout, stderr } = await runBounded(wrapCommand([process.execPath, SALVO_RUNNER, JSON.stringify(spec)], pin), { timeoutMs });
  if (code !== 0) return { failed: `salvo exited ${code}: ${stderr.trim().split('\n').at(-1)}` };
  const report = JSON.parse(stdout.trim().split('\n').at(-1));
  return { rps: (report.completed / report.durationMs) * 1000, errors: report.errors, cpuUsPerReq: (report.cpuMs * 1000) / report.completed };
}

const CONTENDERS = [
  { name: 'h2load -t1', run: runH2load },
  { name: 'salvo h2', run: (point, target) => runSalvo('h2', point, target) },
  { name: 'salvo net (HTTP/1.1)', run: (point, target) => runSalvo('net', point, target) },
];

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const nginx = findExecutable('nginx');
const target = nginx && nginxHasHttp2(nginx) ? await startNginx(nginx) : await startTestServers();
const machine = describeMachine();
console.log(`# salvo h2 vs h2load: ${target.name}; ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);
console.log(`# ${rounds} rounds, ${warmupS} s warm-up + ${durationS} s measured, target core ${pinning.target ?? '-'}, generators core ${pinning.generator ?? '-'}, ${new Date().toISOString()}`);
try {
  for (const point of POINTS) {
    const runs = new Map(CONTENDERS.map((contender) => [contender.name, []]));
    for (let round = 0; round < rounds; round++) {
      // Rotate the order each round so that no contender always goes first.
      const order = CONTENDERS.map((_, i) => CONTENDERS[(i + round) % CONTENDERS.length]);
      for (const contender of order) runs.get(contender.name).push(await contender.run(point, target));
    }
    console.log(`\n### c=${point.c} m=${point.m} (${point.c * point.m} in flight)\n`);
    console.log('| contender | req/s (median) | min-max | × h2load (same round) | errors | CPU µs/req |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    const reference = runs.get('h2load -t1');
    for (const [name, list] of runs) {
      const ok = list.filter((run) => !run.failed);
      if (ok.length === 0) {
        console.log(`| ${name} | failed: ${list[0]?.failed} | | | | |`);
        continue;
      }
      const rps = ok.map((run) => run.rps);
      const ratios = list.map((run, i) => (run.failed || reference[i]?.failed ? undefined : run.rps / reference[i].rps)).filter((r) => r !== undefined);
      const cpu = ok.map((run) => run.cpuUsPerReq).filter((value) => value !== undefined);
      console.log(`| ${name} | ${fmt(median(rps))} | ${fmt(Math.min(...rps))}–${fmt(Math.max(...rps))} | ${ratios.length ? `${median(ratios).toFixed(2)}×` : '-'} | ${ok.reduce((sum, run) => sum + run.errors, 0)} | ${cpu.length ? median(cpu).toFixed(1) : '-'} |`);
    }
  }
} finally {
  await target.stop();
}
