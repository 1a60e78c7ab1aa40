#!/usr/bin/env node
// salvo against autocannon, loadtest and wrk, side by side. See README.md for the method.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { listContenders, runContender } from './lib/contenders.mjs';
import { keptSections, renderReadme, renderText } from './lib/report.mjs';
import { buildScenarios, KNOWN_DELAY_MS } from './lib/scenarios.mjs';
import { addRatios, deriveRound, summariseContender } from './lib/summary.mjs';
import { describeMachine, findExecutable, killRunning, planPinning } from './lib/system.mjs';
import { BODY_BYTES, startNginx, startTestServer } from './lib/targets.mjs';
import { writePipelineScript } from './lib/wrk.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const TESTING_DIST = here('../dist/testing.js');
const INDEX_DIST = here('../dist/index.js');

const MODES = {
  quick: { rounds: 1, durationS: 1, warmupS: 1, rates: [5000] },
  full: { rounds: 3, durationS: 2, warmupS: 1, rates: [1000, 5000, 20000] },
};

const USAGE = `usage: npm run bench -- [options]
  --quick              about two minutes: 1 round, 1 s warm-up + 1 s per run, one rate, no 1 KiB
  --rounds N           rounds per scenario (full: ${MODES.full.rounds})
  --duration S         measured seconds per run, whole seconds (full: ${MODES.full.durationS})
  --warmup S           warm-up seconds per run, whole seconds, 0 for none (full: ${MODES.full.warmupS})
  --only LIST          scenario ids or id prefixes, comma-separated (c100,rate,latency)
  --contenders LIST    contender names or prefixes, comma-separated (salvo,wrk)
  --target KIND        auto (nginx when installed) | nginx | test-server
  --before DIST        also run 'salvo net before' from another build's dist/index.js (before/after)
  --write-readme       rewrite README.md (full runs always do)
  --no-readme          never rewrite README.md
  -h, --help`;

function parseOptions() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      only: { type: 'string' },
      contenders: { type: 'string' },
      target: { type: 'string', default: 'auto' },
      before: { type: 'string' },
      'write-readme': { type: 'boolean', default: false },
      'no-readme': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const mode = values.quick ? MODES.quick : MODES.full;
  const wholeSeconds = (name, text, fallback, min) => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new RangeError(`--${name} must be a whole number >= ${min}, got ${text}`);
    return n;
  };
  if (!['auto', 'nginx', 'test-server'].includes(values.target)) {
    throw new RangeError(`--target must be auto, nginx or test-server, got ${values.target}`);
  }
  const list = (text) => (text ? text.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean) : undefined);
  const customised = ['rounds', 'duration', 'warmup', 'only', 'contenders', 'before'].some((key) => values[key] !== undefined);
  return {
    quick: values.quick,
    rounds: wholeSeconds('rounds', values.rounds, mode.rounds, 1),
    durationS: wholeSeconds('duration', values.duration, mode.durationS, 1),
    warmupS: wholeSeconds('warmup', values.warmup, mode.warmupS, 0),
    rates: mode.rates,
    only: list(values.only),
    contenders: list(values.contenders),
    target: values.target,
    before: values.before === undefined ? undefined : resolve(values.before),
    // Only an unfiltered full run is the README's "latest full table".
    writeReadme: !values['no-readme'] && (values['write-readme'] || (!values.quick && !customised)),
  };
}

const log = (line) => process.stderr.write(`${line}\n`);

function toolVersions() {
  const version = (pkg) => {
    try {
      return JSON.parse(readFileSync(here(`node_modules/${pkg}/package.json`), 'utf8')).version;
    } catch {
      return 'not installed';
    }
  };
  return `autocannon ${version('autocannon')}, loadtest ${version('loadtest')}`;
}

/** Which salvo is measured: the commit (with "+changes" when src/ is dirty) and when dist/ was built. */
function describeSalvo() {
  const git = (...args) => spawnSync('git', args, { cwd: here('..'), encoding: 'utf8', timeout: 5000 }).stdout?.trim() ?? '';
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown commit';
  const dirty = git('status', '--porcelain', '--', 'src') ? '+changes' : '';
  const builtAt = existsSync(INDEX_DIST) ? statSync(INDEX_DIST).mtime.toISOString() : 'not built';
  return { builtAt, text: `${commit}${dirty} (dist built ${builtAt})` };
}

/**
 * Starts (once, lazily) and stops the targets the scenarios need: nginx serves every body size by
 * path; salvo's test server, which answers every path alike, runs one process per body size.
 */
class Targets {
  #started = new Map();
  #nginx;
  #pinning;

  constructor(options, pinning) {
    const nginx = findExecutable('nginx');
    if (options.target === 'nginx' && !nginx) throw new Error('--target nginx: nginx is not installed');
    this.#nginx = options.target === 'test-server' ? undefined : nginx;
    this.#pinning = pinning;
    if (!this.#nginx) log("nginx not used: salvo's test server is the target");
  }

  async get(scenario) {
    const key = scenario.target === 'delay' ? 'delay' : this.#nginx ? 'nginx' : `body-${scenario.body}`;
    if (!this.#started.has(key)) this.#started.set(key, this.#start(key, scenario));
    return this.#started.get(key);
  }

  async #start(key, scenario) {
    if (key === 'nginx') return startNginx(this.#nginx, this.#pinning);
    if (!existsSync(TESTING_DIST)) throw new Error('dist/testing.js is not built (npm run build at the repo root)');
    const options = key === 'delay' ? { delayMs: KNOWN_DELAY_MS } : { bodySize: BODY_BYTES[scenario.body] };
    return startTestServer(options, this.#pinning);
  }

  async stopAll() {
    for (const pending of this.#started.values()) {
      const target = await pending.catch(() => undefined);
      await target?.stop();
    }
    this.#started.clear();
  }
}

function urlFor(target, scenario) {
  return `${target.baseUrl}${target.paths && scenario.body ? target.paths[scenario.body] : '/'}`;
}

/** Runs every round of one scenario, the contenders alternating within each round. */
async function runScenario(scenario, target, contenders, options, context) {
  const spec = {
    url: urlFor(target, scenario),
    connections: scenario.connections,
    pipelining: scenario.pipelining,
    keepAlive: scenario.keepAlive,
    rate: scenario.rate,
    durationS: options.durationS,
    warmupS: options.warmupS,
  };
  const satOut = [];
  const running = [];
  for (const contender of contenders) {
    const verdict = contender.supports(spec);
    if (verdict === true) running.push(contender);
    else satOut.push({ name: contender.name, reason: verdict });
  }
  const rounds = new Map(running.map((contender) => [contender.name, []]));
  for (let round = 1; round <= options.rounds; round++) {
    for (const contender of running) {
      const report = deriveRound(await runContender(contender, spec, context));
      rounds.get(contender.name).push(report);
      const shown = report.failed
        ? `FAILED ${report.failed}`
        : `${Math.round(report.reqPerSec)} req/s, p50 ${report.p50Ms?.toFixed(3)} ms, p99 ${report.p99Ms?.toFixed(3)} ms`;
      log(`[${scenario.id} ${round}/${options.rounds}] ${contender.name}: ${shown}`);
    }
  }
  const lines = addRatios(running.map((contender) => summariseContender(contender, rounds.get(contender.name))), rounds);
  return { scenario, targetName: target.name, url: spec.url, satOut, lines, rounds: Object.fromEntries(rounds) };
}

/** Prints the tables, writes results/<date>.json and, when asked, README.md. */
async function publish(report, options) {
  console.log(renderText(report));
  const resultsDir = here('results');
  await mkdir(resultsDir, { recursive: true });
  const stamp = report.date.replaceAll(':', '-').replace(/\..*$/, '');
  const jsonPath = join(resultsDir, `${stamp}${options.quick ? '-quick' : ''}.json`);
  await writeFile(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  log(`\n${report.elapsedS} s; results: ${jsonPath}`);
  if (options.writeReadme) {
    const previous = await readFile(here('README.md'), 'utf8').catch(() => '');
    await writeFile(here('README.md'), renderReadme(report, keptSections(previous)));
    log('README.md rewritten');
  }
}

async function main() {
  const options = parseOptions();
  const machine = describeMachine();
  const pinning = planPinning();
  const pinningText = pinning.taskset
    ? `target on core ${pinning.target}, generators on core ${pinning.generator}`
    : 'none (needs taskset and 2+ cores)';
  const matches = (list, name) => !list || list.some((prefix) => name.toLowerCase().startsWith(prefix));

  const all = listContenders({ beforeDist: options.before });
  const unavailable = all.filter((c) => c.missing).map((c) => ({ name: c.name, reason: c.missing }));
  const contenders = all.filter((c) => !c.missing && matches(options.contenders, c.name));
  const scenarios = buildScenarios(options).filter((s) => matches(options.only, s.id));
  for (const { name, reason } of unavailable) log(`skipping ${name}: ${reason}`);
  if (contenders.length === 0 || scenarios.length === 0) throw new Error('nothing to run: no contender or no scenario selected');
  log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; pinning: ${pinningText}`);
  log(`${scenarios.length} scenarios x ${contenders.length} contenders x ${options.rounds} rounds, ${options.warmupS} s warm-up + ${options.durationS} s each`);

  const scratch = await mkdtemp(join(tmpdir(), 'salvo-bench-'));
  const context = { pinning, pipelineScript: writePipelineScript(scratch) };
  const targets = new Targets(options, pinning);
  const stopOnSignal = async () => {
    killRunning();
    await targets.stopAll();
    await rm(scratch, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', stopOnSignal).once('SIGTERM', stopOnSignal);

  const salvoBefore = describeSalvo();
  const startedAt = Date.now();
  const results = [];
  try {
    for (const scenario of scenarios) {
      const target = await targets.get(scenario).catch((error) => log(`skipping scenario ${scenario.id}: ${error.message}`));
      if (target) results.push(await runScenario(scenario, target, contenders, options, context));
    }
  } finally {
    await targets.stopAll();
    await rm(scratch, { recursive: true, force: true });
  }

  const salvo = describeSalvo();
  // Others may rebuild dist/ while a long run goes on: then the rounds measured different code.
  const rebuilt = salvo.builtAt !== salvoBefore.builtAt;
  if (rebuilt) log(`warning: dist/ was rebuilt during the run: ${salvoBefore.text} -> ${salvo.text}`);
  await publish(
    {
      date: new Date().toISOString(),
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      machine,
      toolVersions: toolVersions(),
      salvo: rebuilt ? `${salvoBefore.text}, rebuilt during the run as ${salvo.text}` : salvoBefore.text,
      pinning: pinningText,
      settings: { rounds: options.rounds, durationS: options.durationS, warmupS: options.warmupS, quick: options.quick },
      elapsedS: Math.round((Date.now() - startedAt) / 1000),
      unavailable,
      scenarios: results,
    },
    options,
  );
}

main().catch((error) => {
  log(error instanceof RangeError ? `${error.message}\n\n${USAGE}` : (error.stack ?? String(error)));
  process.exit(1);
});
