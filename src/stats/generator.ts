import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import type { GeneratorStats } from '../shared/load-result.js';
import type { PrewarmStats } from '../shared/prewarm.js';
import { addEncodedInto, createHistogram, encodeHistogram, slotTop } from './histogram.js';
import { PendingLatencies } from './pending-latencies.js';
import type { GeneratorSecond, ShardGenerator } from './recorder.js';
import { addWarning, type Warning } from '../shared/warnings.js';

/** The `result.warnings` code raised when the load generator, not the server, may have set the numbers. */
export const GENERATOR_SATURATED = 'GENERATOR_SATURATED';

/**
 * A thread whose event loop was busy above this share of a second had no time left to send on
 * schedule or to read responses when they came. Measured (3 runs each, this repository's 2-core VM):
 * a closed loop against a fast server sharing its thread sits at 1.00; 200/s against a 1 ms server in
 * its own process at 0.04-0.07; 500/s with an `onResponse` that computes for 3 ms at 0.96-1.00. A
 * closed loop against a server on a core so busy that it answered 2,000/s sat at 0.09-0.21: there
 * the server was the limit, and the verdict says so.
 */
export const BUSY_UTILIZATION = 0.9;
/** Busy seconds that make a run saturated; a run shorter than this is judged on its whole length. */
const BUSY_SECONDS = 2;
/**
 * A run shorter than this is not judged on its event loop: a few requests (`amount: 3`, 5 ms) keep
 * the loop busy for all of their run with code running for the first time, and a run aborted
 * before it started has no length at all; neither says the generator held the server back.
 */
const MIN_JUDGED_MS = 250;
/**
 * Send lag p99 (ms) above which a rate run is saturated ("a few milliseconds", issue 12): the pacer
 * wakes within a fraction of a millisecond (p50 0.1-0.2 ms measured at 200-5,000/s), so more means
 * the loop, or the machine, held the generator up and the latencies carry that delay. On a heavily
 * shared host (load 10 on 2 cores) 200/s saw p99 4-33 ms: the warning fires there, and is true.
 */
export const SATURATED_SEND_LAG_MS = 5;
/**
 * Slots that must be later than `SATURATED_SEND_LAG_MS` before the send lag calls a run saturated:
 * in a run of 15-100 slots (3-20 req/s) the p99 is the single latest slot, and one late wake-up
 * (a host stall, a GC) is not a saturated generator. The judged lag is the p99, or the third-latest
 * slot's where that is later in the order.
 */
const LATE_SLOTS = 3;
/** The latency histograms' highest trackable value, µs: one hour. */
const LAG_CAP_US = 3_600_000_000;
/** monitorEventLoopDelay's sampling timer: 100 wake-ups a second (10 or 50 ms made no measurable difference). */
const DELAY_RESOLUTION_MS = 10;

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/**
 * Watches the thread that runs the engine: process CPU, this thread's event-loop utilization and
 * delay (`perf_hooks`), and, in rate mode, the send lag of every measured slot (actual write minus
 * intended time). Sampled once per second and at the end, never per request, except the send lag,
 * which is one array increment.
 */
export class GeneratorMonitor {
  readonly #openLoop: boolean;
  readonly #delay: IntervalHistogram = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  readonly #pendingLag = new PendingLatencies();
  /** By `recordSendLag`'s `measured`: the warm-up's slots (never read) at 0, the measured ones at 1. */
  readonly #lags: readonly PendingLatencies[];
  #startedAt = 0;
  #startCpu = 0;
  #startUtilization!: EventLoopUtilization;
  #secondAt = 0;
  #secondCpu = 0;
  #secondUtilization!: EventLoopUtilization;
  #last: GeneratorSecond = { cpuPercent: 0, eventLoopUtilization: 0 };
  #busySeconds = 0;

  constructor(openLoop: boolean, warmup = false) {
    this.#openLoop = openLoop;
    this.#lags = [warmup ? new PendingLatencies() : this.#pendingLag, this.#pendingLag];
    this.restart();
  }

  /** Starts measuring from now (again): at the end of a warm-up, what came before is forgotten. */
  restart(): void {
    this.#delay.disable();
    this.#delay.reset();
    this.#delay.enable();
    this.#startedAt = this.#secondAt = performance.now();
    this.#startCpu = this.#secondCpu = cpuMicros();
    this.#startUtilization = this.#secondUtilization = performance.eventLoopUtilization();
    this.#busySeconds = 0;
  }

  /**
   * How late an open-loop slot was written, ms; `measured` 0 for a warm-up slot, whose lag is kept
   * apart and never read (the warm-up runs the same code as measuring, see the engine's `#send`).
   */
  recordSendLag(lagMs: number, measured: 0 | 1 = 1): void {
    this.#lags[measured]!.record(Math.min(LAG_CAP_US, Math.round(Math.max(0, lagMs) * 1000)));
  }

  /** Closes one timeline second: its CPU and utilization since the previous one. */
  closeSecond(): GeneratorSecond {
    const now = performance.now();
    const wallMs = now - this.#secondAt;
    // Seconds closed back to back after a stall: the first took the whole stretch; repeat it.
    if (wallMs < 1) return { ...this.#last };
    const cpu = cpuMicros();
    const utilization = performance.eventLoopUtilization(this.#secondUtilization);
    this.#last = { cpuPercent: (cpu - this.#secondCpu) / 10 / wallMs, eventLoopUtilization: utilization.utilization };
    this.#secondAt = now;
    this.#secondCpu = cpu;
    this.#secondUtilization = performance.eventLoopUtilization();
    if (this.#last.eventLoopUtilization > BUSY_UTILIZATION) this.#busySeconds++;
    return { ...this.#last };
  }

  /**
   * The whole measured run, with the verdict: saturated when the loop was busy for `BUSY_SECONDS`
   * (or for the whole of a shorter run), or when send lag p99 passed `SATURATED_SEND_LAG_MS`.
   * A saturated thread adds `GENERATOR_SATURATED` to `warnings`.
   */
  finish(warnings: Warning[]): ShardGenerator {
    this.#delay.disable();
    const wallMs = performance.now() - this.#startedAt;
    const utilization = performance.eventLoopUtilization(this.#startUtilization).utilization;
    const cpuPercent = wallMs > 0 ? (cpuMicros() - this.#startCpu) / 10 / wallMs : 0;
    // Each sample is the whole interval between two runs of the sampling timer: the delay is what
    // exceeds the resolution.
    const delayP99Ms = this.#delay.count > 0 ? Math.max(0, this.#delay.percentile(99) / 1e6 - DELAY_RESOLUTION_MS) : 0;
    let sendLag: string | undefined;
    let lagP99Ms = 0;
    if (this.#openLoop) {
      const histogram = createHistogram();
      this.#pendingLag.flushInto(histogram);
      const total = histogram.totalCount;
      lagP99Ms =
        total < LATE_SLOTS
          ? 0
          : histogram.getValueAtPercentile(Math.min(99, 100 * (1 - (LATE_SLOTS - 1) / total))) / 1000;
      sendLag = encodeHistogram(histogram);
      histogram.destroy();
    }
    const busy =
      this.#busySeconds >= BUSY_SECONDS ||
      (wallMs >= MIN_JUDGED_MS && wallMs < BUSY_SECONDS * 1000 && utilization > BUSY_UTILIZATION);
    const saturated = busy || lagP99Ms > SATURATED_SEND_LAG_MS;
    if (saturated) addWarning(warnings, GENERATOR_SATURATED, saturationMessage(busy, utilization, lagP99Ms));
    return {
      cpuPercent: Number.isFinite(cpuPercent) ? cpuPercent : 0,
      eventLoopUtilization: Number.isFinite(utilization) ? utilization : 0,
      eventLoopDelayP99Ms: Number.isFinite(delayP99Ms) ? delayP99Ms : 0,
      sendLag,
      saturated,
    };
  }
}

function saturationMessage(busy: boolean, utilization: number, lagP99Ms: number): string {
  const why = busy
    ? `salvo's event loop was busy ${Math.round(utilization * 100)}% of the run`
    : `its send lag p99 was ${lagP99Ms.toFixed(1)} ms (requests left that late after their intended time: ` +
      'its event loop, or other processes on the machine, held it up)';
  return (
    `the load generator was saturated: ${why}, so the throughput and latency may show salvo's limit, ` +
    "not the server's. Give it more room: `workers`, fewer connections, a lighter onResponse/setupRequest, " +
    'or run salvo on another machine or core than the server.'
  );
}

/**
 * Two threads' pre-warms as one: they ran side by side, so the start-up time is the slowest one's and
 * the CPU (the whole process's, in each) the largest reading; the requests add up.
 */
function mergePrewarm(merged: PrewarmStats | undefined, shard: PrewarmStats): PrewarmStats {
  if (merged === undefined) return { ...shard };
  return {
    durationMs: Math.max(merged.durationMs, shard.durationMs),
    cpuMs: Math.max(merged.cpuMs, shard.cpuMs),
    requests: merged.requests + shard.requests,
  };
}

/**
 * The shards' self-measurements as one `result.generator`: CPU, utilization and delay of the
 * busiest thread (CPU is the whole process's in every thread, so the largest reading is the
 * longest stretch of it), send lag from the added histograms, saturated when any thread was.
 */
export function mergeGenerator(shards: ReadonlyArray<ShardGenerator | undefined>): {
  generator: GeneratorStats;
  /** The added send-lag histogram, encoded: what a later `mergeResults` adds again. */
  sendLagHistogram: string | undefined;
} {
  const merged: GeneratorStats = { cpuPercent: 0, eventLoopUtilization: 0, eventLoopDelayP99Ms: 0, saturated: false };
  let lag: ReturnType<typeof createHistogram> | undefined;
  for (const shard of shards) {
    if (shard === undefined) continue;
    merged.cpuPercent = Math.max(merged.cpuPercent, shard.cpuPercent);
    merged.eventLoopUtilization = Math.max(merged.eventLoopUtilization, shard.eventLoopUtilization);
    merged.eventLoopDelayP99Ms = Math.max(merged.eventLoopDelayP99Ms, shard.eventLoopDelayP99Ms);
    merged.saturated ||= shard.saturated;
    if (shard.prewarm !== undefined) merged.prewarm = mergePrewarm(merged.prewarm, shard.prewarm);
    if (shard.sendLag !== undefined) {
      lag ??= createHistogram();
      addEncodedInto(lag, shard.sendLag);
    }
  }
  let sendLagHistogram: string | undefined;
  if (lag !== undefined) {
    merged.sendLag = {
      p50: lag.getValueAtPercentile(50) / 1000,
      p99: lag.getValueAtPercentile(99) / 1000,
      max: lag.maxValue === 0 ? 0 : slotTop(lag.maxValue) / 1000,
    };
    sendLagHistogram = encodeHistogram(lag);
    lag.destroy();
  }
  return { generator: merged, sendLagHistogram };
}
