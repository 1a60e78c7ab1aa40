// The load generators under comparison. Each run is its own process, pinned to the generator core,
// and reports { completed, errors, non2xx, durationMs, p50Ms, p99Ms, cpuMs }.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { findExecutable, isWrk2, parseBashTimes, runBounded, wrapCommand } from './system.mjs';
import { parseWrkReport, wrkArgs } from './wrk.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const SALVO_DIST = here('../../dist/index.js');
// Time a run may take beyond its warm-up and measured seconds (process start, 1000 connects, exit).
const GRACE_MS = 20_000;

function nodeRunner(script, extra) {
  return (spec) => [process.execPath, here(`../runners/${script}`), JSON.stringify({ ...spec, ...extra })];
}

function resolvable(name) {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * Every contender with `missing` set to why it cannot run here (or undefined), `supports(spec)`
 * returning true or the reason it sits out a scenario, and the resolution of the latencies it reports.
 */
export function listContenders({ beforeDist } = {}) {
  const salvoMissing = existsSync(SALVO_DIST) ? undefined : 'dist/index.js not built (npm run build at the repo root)';
  const wrk = findExecutable('wrk');
  const wrkIsWrk2 = wrk ? isWrk2(wrk) : false;
  const wrk2 = findExecutable('wrk2') ?? (wrkIsWrk2 ? wrk : undefined);
  const closedLoop = (spec) => (spec.rate ? 'no rate option' : true);

  return [
    ...['net', 'undici', 'http'].map((transport) => ({
      name: `salvo ${transport}`,
      missing: salvoMissing,
      resolution: '1 µs',
      supports: (spec) => (transport === 'http' && spec.pipelining > 1 ? 'node:http does not pipeline' : true),
      argv: nodeRunner('salvo.mjs', { transport }),
    })),
    // Another build of salvo (`--before`), for before/after comparisons in the same rounds.
    ...(beforeDist === undefined
      ? []
      : [{
          name: 'salvo net before',
          missing: existsSync(beforeDist) ? undefined : `${beforeDist} not found`,
          resolution: '1 µs',
          supports: () => true,
          argv: nodeRunner('salvo.mjs', { transport: 'net', dist: beforeDist }),
        }]),
    {
      name: 'autocannon',
      missing: resolvable('autocannon') ? undefined : 'npm install in benchmarks/',
      resolution: '1 ms',
      supports: () => true,
      argv: nodeRunner('autocannon.mjs'),
    },
    {
      name: 'loadtest tcp',
      missing: resolvable('loadtest') ? undefined : 'npm install in benchmarks/',
      resolution: '1 ms',
      supports: (spec) => {
        if (spec.pipelining > 1) return 'no pipelining';
        if (!spec.keepAlive) return 'its tcp mode always keeps connections open';
        if (spec.rate) return 'its rate option is not applied in tcp mode';
        return true;
      },
      argv: nodeRunner('loadtest.mjs', { mode: 'tcp' }),
    },
    {
      name: 'loadtest http',
      missing: resolvable('loadtest') ? undefined : 'npm install in benchmarks/',
      resolution: '1 ms',
      supports: (spec) => (spec.pipelining > 1 ? 'no pipelining' : true),
      argv: nodeRunner('loadtest.mjs', { mode: 'http' }),
    },
    {
      name: 'wrk',
      missing: wrk && !wrkIsWrk2 ? undefined : 'wrk not installed (apt-get install wrk)',
      // Recorded in µs, printed with two decimals of ms.
      resolution: '10 µs',
      supports: closedLoop,
      wrk,
    },
    {
      name: 'wrk2',
      missing: wrk2 ? undefined : 'no wrk2 binary on PATH',
      resolution: '10 µs',
      supports: (spec) => (spec.rate ? true : 'runs only at a fixed rate'),
      wrk: wrk2,
    },
  ];
}

/**
 * Runs one contender once: a discarded warm-up of `spec.warmupS` and a measured run of
 * `spec.durationS`, with the same settings. Resolves with its report or `{ failed: reason }`.
 */
export async function runContender(contender, spec, context) {
  const startedAt = performance.now();
  const report = await runOnce(contender, spec, context);
  return { ...report, wallMs: Math.round(performance.now() - startedAt) };
}

async function runOnce(contender, spec, context) {
  const timeoutMs = (spec.warmupS + spec.durationS) * 1000 + GRACE_MS;
  const pin = { taskset: context.pinning.taskset, cpu: context.pinning.generator };
  if (contender.wrk) return runWrk(contender.wrk, spec, context, pin, timeoutMs);

  const outcome = await runBounded(wrapCommand(contender.argv(spec), pin), { timeoutMs });
  if (outcome.timedOut) return { failed: `killed after ${timeoutMs} ms` };
  const last = outcome.stdout.trim().split('\n').at(-1) ?? '';
  if (outcome.code !== 0 || !last.startsWith('{')) {
    return { failed: `exit ${outcome.code}: ${describeFailure(outcome.stderr || outcome.stdout)}` };
  }
  return JSON.parse(last);
}

async function runWrk(binary, spec, context, pin, timeoutMs) {
  const options = { pipelineScript: context.pipelineScript };
  if (spec.warmupS > 0) {
    const warm = await runBounded(wrapCommand(wrkArgs(binary, spec, spec.warmupS, options), pin), { timeoutMs });
    if (warm.code !== 0) return { failed: `warm-up exit ${warm.code}: ${describeFailure(warm.stderr || warm.stdout)}` };
  }
  const outcome = await runBounded(wrapCommand(wrkArgs(binary, spec, spec.durationS, options), { ...pin, reportCpu: true }), {
    timeoutMs,
  });
  if (outcome.timedOut) return { failed: `killed after ${timeoutMs} ms` };
  if (outcome.code !== 0) return { failed: `exit ${outcome.code}: ${describeFailure(outcome.stderr || outcome.stdout)}` };
  const [report, times = ''] = outcome.stdout.split('--- times');
  try {
    return { ...parseWrkReport(report), cpuMs: parseBashTimes(times) };
  } catch (error) {
    return { failed: error.message };
  }
}

/** The line of a failed run's output that says what went wrong: its first error line, else its last. */
function describeFailure(text) {
  const lines = text.trim().split('\n').map((line) => line.trim()).filter(Boolean);
  const error = lines.find((line) => /^(\w*Error\b|error:|unable|fatal)/i.test(line));
  return (error ?? lines.at(-1) ?? 'no output').replace(/(.)\1{9,}/g, '$1$1$1…').slice(0, 160);
}
