import type { Reading } from './reading.js';

/** prom-client rounds its start time to the second and /proc's boot time is whole seconds. */
const SAME_START_SECONDS = 2;
/** /proc counts CPU in 10 ms ticks: each of two readings may be a tick short. */
const TICKS_SECONDS = 0.02;
/** The least CPU rate (cores) assumed between two reads, so that an idle process's tolerance is not zero. */
const FLOOR_CORES = 0.1;

/**
 * Whether a pid's readings (`pid`) and a metrics page's (`page`, taken at the same samples) are one
 * process. The start times must agree, and the page's CPU must be the pid's less a constant:
 * prom-client's `process_cpu_seconds_total` counts from when its default metrics were registered,
 * not from the process's start, so the two differ by the CPU spent before that. Each difference may
 * be off by the CPU the process used between the two reads (a busy app answers its scrape late), so
 * the rule is that one constant, at least 0, lies within every sample's tolerance of its difference.
 * Two processes drift apart by their different CPU rates; the same one stays put however busy.
 */
export function sameProcess(
  pid: ReadonlyArray<Reading | undefined>,
  page: ReadonlyArray<Reading | undefined>,
  cores: number,
): boolean {
  const rate = Math.min(cores, Math.max(FLOOR_CORES, 2 * peakRate(pid)));
  // The constant is the CPU the page did not see: never below 0 (less a tick or two).
  let low = -TICKS_SECONDS;
  let high = Number.POSITIVE_INFINITY;
  let pairs = 0;
  for (let i = 0; i < pid.length; i++) {
    const mine = pid[i];
    const theirs = page[i];
    if (mine === undefined || theirs === undefined) continue;
    if (
      mine.processStartS === undefined ||
      theirs.processStartS === undefined ||
      mine.cpuSeconds === undefined ||
      theirs.cpuSeconds === undefined
    )
      return false;
    if (Math.abs(mine.processStartS - theirs.processStartS) > SAME_START_SECONDS) return false;
    const tolerance = TICKS_SECONDS + (rate * span(mine, theirs)) / 1000;
    const offset = mine.cpuSeconds - theirs.cpuSeconds;
    low = Math.max(low, offset - tolerance);
    high = Math.min(high, offset + tolerance);
    pairs++;
    if (low > high) return false;
  }
  return pairs > 0;
}

/** The time between the earliest start and the latest end of two reads, ms: when either source may have read its counters. */
function span(a: Reading, b: Reading): number {
  const [aFrom, aTo] = a.readMs ?? [a.atMs, a.atMs];
  const [bFrom, bTo] = b.readMs ?? [b.atMs, b.atMs];
  return Math.max(aTo, bTo) - Math.min(aFrom, bFrom);
}

/** The highest CPU rate (cores) between two consecutive readings of one source. */
function peakRate(readings: ReadonlyArray<Reading | undefined>): number {
  let peak = 0;
  for (let i = 1; i < readings.length; i++) {
    const from = readings[i - 1];
    const to = readings[i];
    if (from?.cpuSeconds === undefined || to?.cpuSeconds === undefined || to.atMs <= from.atMs) continue;
    peak = Math.max(peak, ((to.cpuSeconds - from.cpuSeconds) * 1000) / (to.atMs - from.atMs));
  }
  return peak;
}
