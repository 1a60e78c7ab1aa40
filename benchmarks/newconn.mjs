// A new connection per request (keep-alive off), over http and https, against nginx with one
// worker: ab (no -k), wrk with `Connection: close`, autocannon, and salvo's three transports, from
// this build and optionally from another (`--before <dist/index.js>`, e.g. main's build).
//
//   node newconn.mjs [--rounds 3] [--duration 5] [--connections 10] [--only http,https]
//                    [--contenders ab,wrk,autocannon,net,undici,http] [--before /path/dist/index.js]
//                    [--after /path/dist/index.js] [--keep-alive] [--profile <dir>]
//
// Pinned like bench.mjs (target core 1, generator core 0), contenders alternating within a round,
// a 1 s in-process warm-up for the Node runners. Prints one JSON line per run and a table of
// medians, ranges and same-round ratios to wrk. `--profile` runs each salvo contender once under
// `node --cpu-prof` into that directory instead of measuring. Needs nginx and openssl.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findExecutable, planPinning, runBounded, wrapCommand, parseBashTimes } from './lib/system.mjs';
import { startNginx } from './lib/targets.mjs';
import { parseWrkReport } from './lib/wrk.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    only: { type: 'string', default: 'http,https' },
    contenders: { type: 'string', default: 'ab,wrk,autocannon,net,undici,http' },
    before: { type: 'string' },
    after: { type: 'string' },
    'keep-alive': { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const durationS = Number(values.duration);
const connections = Number(values.connections);
const keepAlive = values['keep-alive'];
const pinning = planPinning();
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const afterDist = values.after ?? here('../dist/index.js');

const nginx = findExecutable('nginx');
if (!nginx) throw new Error('newconn.mjs needs nginx');
const target = await startNginx(nginx, pinning, { https: true });

function salvo(transport, dist, label) {
  return {
    name: `salvo ${transport}${label}`,
    run: (url) => {
      const spec = {
        url, connections, durationS, warmupS: 1, pipelining: 1, keepAlive, transport, dist,
        options: url.startsWith('https:') ? { tls: { rejectUnauthorized: false } } : {},
      };
      const node = values.profile
        ? [process.execPath, '--cpu-prof', '--cpu-prof-dir', values.profile, `--cpu-prof-name=${transport}${label.replace(/\W/g, '')}-${url.slice(0, 5).replace(':', '')}.cpuprofile`]
        : [process.execPath];
      return node.concat(here('./runners/salvo.mjs'), JSON.stringify(spec));
    },
    parse: parseNodeRunner,
  };
}

function parseNodeRunner(stdout) {
  const line = JSON.parse(stdout.trim().split('\n').at(-1));
  return { perSecond: line.completed / (line.durationMs / 1000), errors: line.errors, cpuUsPerReq: (line.cpuMs * 1000) / line.completed };
}

const contenders = [];
for (const name of values.contenders.split(',')) {
  if (name === 'ab') {
    contenders.push({
      name: keepAlive ? 'ab -k' : 'ab (no -k)',
      run: (url) => ['ab', ...(keepAlive ? ['-k'] : []), '-q', '-c', String(connections), '-t', String(durationS), '-n', '50000000', `${url}/2b`],
      parse: (stdout, cpuMs) => {
        const complete = Number(/Complete requests:\s+(\d+)/.exec(stdout)?.[1]);
        const seconds = Number(/Time taken for tests:\s+([\d.]+)/.exec(stdout)?.[1]);
        const failed = Number(/Failed requests:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
        return { perSecond: complete / seconds, errors: failed, cpuUsPerReq: (cpuMs * 1000) / complete };
      },
    });
  } else if (name === 'wrk') {
    contenders.push({
      name: keepAlive ? 'wrk' : "wrk -H 'Connection: close'",
      run: (url) => ['wrk', '-t1', `-c${connections}`, `-d${durationS}s`, ...(keepAlive ? [] : ['-H', 'Connection: close']), `${url}/2b`],
      parse: (stdout, cpuMs) => {
        const report = parseWrkReport(stdout);
        const completed = report.completed ?? report.requests;
        const perSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
        return { perSecond, errors: report.errors ?? 0, cpuUsPerReq: completed ? (cpuMs * 1000) / completed : undefined };
      },
    });
  } else if (name === 'autocannon') {
    contenders.push({
      name: 'autocannon',
      run: (url) => [process.execPath, here('./runners/autocannon.mjs'), JSON.stringify({ url: `${url}/2b`, connections, durationS, warmupS: 1, pipelining: 1, keepAlive })],
      parse: parseNodeRunner,
    });
  } else {
    if (values.before) contenders.push(salvo(name, values.before, ' (before)'));
    contenders.push(salvo(name, afterDist, values.before ? ' (after)' : ''));
  }
}
// The salvo runner takes the full URL; the others get the path appended above.
for (const contender of contenders) {
  if (!contender.name.startsWith('salvo')) continue;
  const run = contender.run;
  contender.run = (url) => run(`${url}/2b`);
}

if (values.profile) mkdirSync(values.profile, { recursive: true });
const rows = [];
try {
  for (const scenario of values.only.split(',')) {
    const url = scenario === 'https' ? target.httpsUrl : target.baseUrl;
    for (let round = 0; round < (values.profile ? 1 : rounds); round++) {
      for (const contender of contenders) {
        if (values.profile && !contender.name.startsWith('salvo')) continue;
        const argv = wrapCommand(contender.run(url), { taskset: pinning.taskset, cpu: pinning.generator, reportCpu: true });
        const result = await runBounded(argv, { timeoutMs: (durationS + 30) * 1000 });
        const [out, times] = result.stdout.split('--- times');
        let parsed;
        try {
          parsed = contender.parse(out, parseBashTimes(times ?? ''));
        } catch {
          parsed = { perSecond: NaN, failure: `${result.stderr}`.trim().split('\n').slice(-3).join(' ') };
        }
        const row = { scenario, round, contender: contender.name, ...parsed };
        rows.push(row);
        process.stdout.write(`${JSON.stringify(row)}\n`);
      }
    }
  }
} finally {
  await target.stop();
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
for (const scenario of values.only.split(',')) {
  console.log(`\n${scenario}, ${keepAlive ? 'keep-alive' : 'new connection per request'}, ${connections} connections, ${durationS} s, ${rounds} rounds`);
  console.log('| contender | req/s median | min–max | × wrk (same round) | CPU µs/req | errors |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const contender of contenders) {
    const mine = rows.filter((r) => r.scenario === scenario && r.contender === contender.name);
    if (mine.length === 0) continue;
    const rates = mine.map((r) => r.perSecond);
    const ratios = mine.map((r) => {
      const wrk = rows.find((w) => w.scenario === scenario && w.round === r.round && w.contender.startsWith('wrk'));
      return wrk ? r.perSecond / wrk.perSecond : NaN;
    });
    const cpu = median(mine.map((r) => r.cpuUsPerReq ?? NaN));
    const errors = mine.reduce((sum, r) => sum + (r.errors ?? 0), 0);
    console.log(`| ${contender.name} | ${fmt(median(rates))} | ${fmt(Math.min(...rates))}–${fmt(Math.max(...rates))} | ${median(ratios).toFixed(2)}× | ${cpu.toFixed(1)} | ${errors} |`);
  }
}
