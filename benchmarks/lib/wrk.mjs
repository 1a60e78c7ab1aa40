// wrk (and wrk2, the constant-rate fork): the command line for a run and the parser of its report.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

// wrk pipelines when its `request()` returns several requests at once: it counts the requests in
// the buffer and waits for that many responses before writing the next batch.
const PIPELINE_SCRIPT = `local batch
function init(args)
  local depth = tonumber(args[1]) or 1
  local requests = {}
  for i = 1, depth do
    requests[i] = wrk.format()
  end
  batch = table.concat(requests)
end
function request()
  return batch
end
`;

/** Writes the pipelining script into `dir` and returns its path. */
export function writePipelineScript(dir) {
  const path = join(dir, 'pipeline.lua');
  writeFileSync(path, PIPELINE_SCRIPT);
  return path;
}

/** argv for one wrk/wrk2 run of `seconds` (whole seconds: wrk takes no smaller unit). */
export function wrkArgs(binary, spec, seconds, { pipelineScript }) {
  const args = [binary, '-t1', `-c${spec.connections}`, `-d${seconds}s`, '--latency', '--timeout', '10s'];
  if (!spec.keepAlive) args.push('-H', 'Connection: close');
  if (spec.rate) args.push(`-R${spec.rate}`);
  if (spec.pipelining > 1) args.push('-s', pipelineScript);
  args.push(spec.url);
  if (spec.pipelining > 1) args.push('--', String(spec.pipelining));
  return args;
}

const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function toMs(value, unit) {
  return Number(value) * UNIT_MS[unit];
}

/**
 * Reads wrk's report: completed requests, elapsed time, the latency percentiles of `--latency`
 * (wrk prints `50%`, wrk2 `50.000%`), socket errors and non-2xx/3xx responses.
 */
export function parseWrkReport(text) {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m|h)/.exec(text);
  if (!total) throw new Error(`no "requests in" line in wrk output: ${text.trim().slice(0, 300)}`);
  const percentiles = {};
  for (const [, p, value, unit] of text.matchAll(/^\s*(\d+(?:\.\d+)?)%\s+([\d.]+)(us|ms|s|m|h)\s*$/gm)) {
    percentiles[Number(p)] ??= toMs(value, unit);
  }
  // wrk prints 0 for a percentile its histogram walk does not reach (seen at p99 with pipelining):
  // a percentile below the one before it is not a measurement.
  let previous = 0;
  for (const p of Object.keys(percentiles).map(Number).sort((a, b) => a - b)) {
    if (percentiles[p] < previous) percentiles[p] = undefined;
    else previous = percentiles[p];
  }
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const errors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  return {
    completed: Number(total[1]),
    errors,
    non2xx,
    durationMs: toMs(total[2], total[3]),
    p50Ms: percentiles[50],
    p99Ms: percentiles[99],
    latencyDistributionMs: percentiles,
  };
}
