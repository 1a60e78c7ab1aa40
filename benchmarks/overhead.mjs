// What salvo's `http` and `undici` transports cost over a bare loop of the same client.
//
//   node benchmarks/overhead.mjs [--rounds 5] [--duration 3000] [--connections 10]
//
// Starts salvo's test server in a child process pinned to core 1 (when there are 2+ cores and
// taskset exists), runs each contender in its own child process pinned to core 0, alternating
// contenders round by round, and prints the median, min and max requests/s with salvo/bare ratios.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '3000' },
    connections: { type: 'string', default: '10' },
    child: { type: 'string' },
    url: { type: 'string' },
  },
});
const durationMs = Number(values.duration);
const connections = Number(values.connections);
const root = new URL('..', import.meta.url);

async function bareHttp(url) {
  const http = await import('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(url);
  let completed = 0;
  const endAt = performance.now() + durationMs;
  await new Promise((resolve) => {
    let active = connections;
    const loop = () => {
      if (performance.now() >= endAt) {
        if (--active === 0) resolve();
        return;
      }
      http.get({ agent, hostname: target.hostname, port: target.port, path: target.pathname }, (res) => {
        res.resume();
        res.on('end', () => {
          completed++;
          loop();
        });
      });
    };
    for (let i = 0; i < connections; i++) loop();
  });
  agent.destroy();
  return completed / (durationMs / 1000);
}

async function bareUndici(url) {
  const { Pool } = await import('undici');
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections });
  let completed = 0;
  const endAt = performance.now() + durationMs;
  await new Promise((resolve) => {
    let active = connections;
    const handler = {
      onRequestStart() {},
      onResponseStart() {},
      onResponseData() {},
      onResponseEnd() {
        completed++;
        loop();
      },
      onResponseError() {
        loop();
      },
    };
    const loop = () => {
      if (performance.now() >= endAt) {
        if (--active === 0) resolve();
        return;
      }
      pool.dispatch({ path: target.pathname, method: 'GET' }, handler);
    };
    for (let i = 0; i < connections; i++) loop();
  });
  await pool.destroy();
  return completed / (durationMs / 1000);
}

async function salvo(url, transport) {
  const { runLoad } = await import(new URL('dist/index.js', root).href);
  const result = await runLoad({ url, transport, connections, duration: durationMs });
  return result.requests.perSecond;
}

const contenders = {
  'bare http.get': (url) => bareHttp(url),
  'salvo http': (url) => salvo(url, 'http'),
  'bare undici Pool.dispatch': (url) => bareUndici(url),
  'salvo undici': (url) => salvo(url, 'undici'),
};

if (values.child) {
  console.log(JSON.stringify({ perSecond: await contenders[values.child](values.url) }));
  process.exit(0);
}

const pin = availableParallelism() > 1 && (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true']);
    return true;
  } catch {
    return false;
  }
})();
const pinned = (core, args) => (pin ? ['taskset', ['-c', String(core), ...args]] : [args[0], args.slice(1)]);

const [serverCommand, serverArgs] = pinned(1, [
  process.execPath,
  '--input-type=module',
  '-e',
  `const { createTestServer } = await import(${JSON.stringify(new URL('dist/testing.js', root).href)});
   const server = await createTestServer(); console.log(server.url);`,
]);
const server = spawn(serverCommand, serverArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
const [line] = await once(server.stdout, 'data');
const url = String(line).trim();

const samples = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
for (let round = 0; round < Number(values.rounds); round++) {
  for (const name of Object.keys(contenders)) {
    const [command, args] = pinned(0, [process.execPath, fileURLToPath(import.meta.url), '--child', name, '--url', url,
      '--duration', String(durationMs), '--connections', String(connections)]);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    await once(child, 'close');
    samples[name].push(JSON.parse(out).perSecond);
  }
}
server.kill();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x) => Math.round(x).toLocaleString('en-US');
console.log(`connections ${connections}, ${durationMs} ms per run, ${values.rounds} alternating rounds, pinned: ${pin}`);
for (const [name, xs] of Object.entries(samples)) {
  console.log(`${name.padEnd(28)} median ${fmt(median(xs)).padStart(8)} req/s  (min ${fmt(Math.min(...xs))}, max ${fmt(Math.max(...xs))})`);
}
for (const client of ['http', 'undici']) {
  const bare = median(samples[client === 'http' ? 'bare http.get' : 'bare undici Pool.dispatch']);
  const ours = median(samples[`salvo ${client}`]);
  console.log(`salvo ${client} / bare: ${(ours / bare).toFixed(3)}`);
}
