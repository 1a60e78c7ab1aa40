// Shared by the Node runners: read the run spec, warm up, measure, print one JSON line.
//
// The spec (argv[2], JSON): url, connections, durationS, warmupS, pipelining (streams for h2), keepAlive, rate.
// Every tool gets the same warm-up: a discarded run with the same settings in the same process.

/** The spec this runner was started with. */
export function readSpec() {
  return JSON.parse(process.argv[2]);
}

function cpuMsNow() {
  const usage = process.resourceUsage();
  return (usage.userCPUTime + usage.systemCPUTime) / 1000;
}

/**
 * Runs `run(seconds)` once to warm up (result discarded) and once measured; `run` resolves with
 * `{ completed, errors, non2xx, durationMs, p50Ms, p99Ms }`. Prints that plus the process's CPU
 * time (user + system, all threads) spent in the measured run.
 */
export async function warmUpAndMeasure(spec, run) {
  try {
    if (spec.warmupS > 0) await run(spec.warmupS);
    const cpuBefore = cpuMsNow();
    const result = await run(spec.durationS);
    process.stdout.write(`${JSON.stringify({ ...result, cpuMs: cpuMsNow() - cpuBefore })}\n`);
    // Some tools leave sockets or timers behind; the measurement is done.
    process.exit(0);
  } catch (error) {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exit(1);
  }
}
