import { performance } from 'node:perf_hooks';
import type * as hdr from 'hdr-histogram-js';
import type { CheckStats, ErrorSample } from '../shared/load-result.js';
import type { PartialLoadResult } from './thresholds.js';
import type { Warning } from '../shared/warnings.js';
import { createHistogram, encodeHistogram, latencyUs, slotTop } from './histogram.js';
import { PendingLatencies } from './pending-latencies.js';
import { keepErrorSample } from './error-samples.js';
import { DEFAULT_ACCEPTED_STATUS, type Gauges, type NameSecondSummary, type RunningTotals, type SecondSummary, type ShardSecond, type ShardStats } from './shard-stats.js';

// The recorder's types and counting helpers live in shard-stats.ts; importers name them from here too.
export { addCounts, DEFAULT_ACCEPTED_STATUS, failedByDefault } from './shard-stats.js';
export type { Gauges, GeneratorSecond, NameSecondSummary, RunningTotals, SecondSummary, ShardGenerator, ShardSecond, ShardStats } from './shard-stats.js';

/** The maximum in ms as the final result will report it. */
function maxOf(histogram: hdr.Histogram): number {
  return histogram.maxValue === 0 ? 0 : slotTop(histogram.maxValue) / 1000;
}

/** The gauges of a name's recorder: connections and rates belong to the whole thread. */
const NAME_GAUGES: Gauges = { connections: () => 0, targetRate: () => undefined };

/**
 * Counters, HDR histograms and a per-second timeline for one thread. Recording is a few integer
 * additions and one array increment: nothing is allocated per request. With several request names
 * (`nameRequests`) each name has a recorder of its own, of this same class, that every recording
 * method forwards to by the name's index: whatever this records, a name records too.
 */
export class Recorder {
  /** Findings raised while this thread ran; see `addWarning`. */
  readonly warnings: Warning[] = [];
  /** `errors.samples`: filled by whoever has an error's message (see `stats/error-samples.ts`). */
  readonly errorSamples: ErrorSample[] = [];
  sent = 0;
  completed = 0;
  errors = 0;
  missed = 0;
  retried = 0;
  /** Redirects followed within requests (`requests.redirects`). */
  redirects = 0;
  /** Requests in flight at the end (`recordUnfinished`, as the runner halts). */
  unfinished = 0;
  bytesSent = 0;
  bytesReceived = 0;
  readonly #statusCounts = new Uint32Array(1000);
  readonly #errorCodes = new Map<string, number>();
  /** Every latency recorded before the last flush; `#pending` holds the rest. */
  readonly #latency = createHistogram();
  readonly #latencyUncorrected = createHistogram();
  readonly #pending = new PendingLatencies();
  readonly #pendingUncorrected = new PendingLatencies();
  /** Some response's uncorrected latency differed from its corrected one (open loop). */
  #uncorrectedApart = false;
  /** This second's latencies, also in `#pending`: encoded at the second's end, never added into a histogram. */
  readonly #secondPending = new PendingLatencies();
  readonly #timeline: ShardSecond[] = [];
  #second = 0;
  #secondSent = 0;
  #secondCompleted = 0;
  #secondErrors = 0;
  #secondRetried = 0;
  #nextSecondAt: number;
  /** Per name index, with several names; undefined with one (its stats are the thread's own). */
  #named: Recorder[] | undefined;
  #names: readonly string[] = [];

  constructor(
    /** Start of the measured run, performance.now() ms (`start` can set it later). */
    public startAt: number,
    readonly gauges: Gauges,
    readonly onSecond: ((summary: SecondSummary) => void) | undefined,
    /** `accepted[status]` is 1 for a status that is not a failed request (`expect.status`, else below 400). */
    readonly acceptedStatus: Uint8Array = DEFAULT_ACCEPTED_STATUS,
  ) {
    this.#nextSecondAt = startAt + 1000;
  }

  /** The measured run starts at `startAt` (performance.now() ms): for a recorder built before its clock started. */
  start(startAt: number): void {
    this.startAt = startAt;
    this.#nextSecondAt = startAt + 1000;
    if (this.#named !== undefined) for (const named of this.#named) named.start(startAt);
  }

  /**
   * The request names (`Plan.names`): with more than one, each gets a recorder, and the recording
   * methods' `name` (an index into `names`) picks it. Called once, before the clock starts.
   */
  nameRequests(names: readonly string[]): void {
    this.#names = names;
    if (names.length > 1) this.#named = names.map(() => new Recorder(this.startAt, NAME_GAUGES, undefined, this.acceptedStatus));
  }

  /** The recorder of name index `name`; undefined with a single name (this one records it). */
  named(name: number): Recorder | undefined {
    return this.#named?.[name];
  }

  recordSent(bytes: number, now: number, name = 0): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.sent++;
    this.#secondSent++;
    this.bytesSent += bytes;
    if (this.#named !== undefined) this.#named[name]!.recordSent(bytes, now);
  }

  /** More bytes of a request already counted by `recordSent` (see `TransportSink.onSentMore`). */
  recordSentBytes(bytes: number, name = 0): void {
    this.bytesSent += bytes;
    if (this.#named !== undefined) this.#named[name]!.recordSentBytes(bytes);
  }

  /** Bytes of a request that failed before they reached the wire (a refused connection): the request stays in `sent`, with its error. */
  recordUnwrittenBytes(bytes: number, name = 0): void {
    this.bytesSent -= bytes;
    if (this.#named !== undefined) this.#named[name]!.recordUnwrittenBytes(bytes);
  }

  /** A request still in flight when the run ended (`requests.unfinished`). */
  recordUnfinished(name = 0): void {
    this.unfinished++;
    if (this.#named !== undefined) this.#named[name]!.recordUnfinished();
  }

  /** Bytes of a response counted as an error (its `onResponse` hook threw). */
  recordReceivedBytes(bytes: number, name = 0): void {
    this.bytesReceived += bytes;
    if (this.#named !== undefined) this.#named[name]!.recordReceivedBytes(bytes);
  }

  /** A redirect followed within a request (`followRedirects`): its response's bytes; the request goes on. */
  recordRedirect(bytesReceived: number, name = 0): void {
    this.redirects++;
    this.bytesReceived += bytesReceived;
    if (this.#named !== undefined) this.#named[name]!.recordRedirect(bytesReceived);
  }

  /** A request already counted by `recordSent` sent again, `bytes` of it (see `TransportSink.onRetry`). */
  recordRetry(bytes: number, now: number, name = 0): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.retried++;
    this.#secondRetried++;
    this.bytesSent += bytes;
    if (this.#named !== undefined) this.#named[name]!.recordRetry(bytes, now);
  }

  /**
   * Takes back a request counted by `recordSent` that never reached the wire and has no outcome (it
   * waited for a connection when the run ended). It is taken from the second it is taken back in
   * but for a rare one sent in an earlier second, whose second keeps it rather than going below zero.
   */
  recordUnsent(bytes: number, now: number, name = 0): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.sent--;
    if (this.#secondSent > 0) this.#secondSent--;
    this.bytesSent -= bytes;
    if (this.#named !== undefined) this.#named[name]!.recordUnsent(bytes, now);
  }

  recordResponse(status: number, bytes: number, latencyMs: number, uncorrectedMs: number, now: number, name = 0): void {
    this.bytesReceived += bytes;
    this.#statusCounts[status < 1000 ? status : 0]!++;
    this.#recordCompleted(latencyMs, uncorrectedMs, now);
    if (this.#named !== undefined) this.#named[name]!.recordResponse(status, bytes, latencyMs, uncorrectedMs, now);
  }

  /** One exchange completed that has no status or bytes (a task's call), timed both ways. */
  recordCompleted(latencyMs: number, uncorrectedMs: number, now: number, name = 0): void {
    this.#recordCompleted(latencyMs, uncorrectedMs, now);
    if (this.#named !== undefined) this.#named[name]!.recordCompleted(latencyMs, uncorrectedMs, now);
  }

  #recordCompleted(latencyMs: number, uncorrectedMs: number, now: number): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.completed++;
    this.#secondCompleted++;
    // Closed-loop latencies are the same measured both ways: keep one histogram until they differ.
    if (uncorrectedMs !== latencyMs && !this.#uncorrectedApart) {
      this.#flush();
      // Adding walks every slot: worth it only for what was recorded (in open loop, usually nothing yet).
      if (this.#latency.totalCount > 0) this.#latencyUncorrected.add(this.#latency);
      this.#uncorrectedApart = true;
    }
    this.#recordLatency(latencyMs);
    if (this.#uncorrectedApart) this.#pendingUncorrected.record(latencyUs(uncorrectedMs));
  }

  /** One latency (ms) for the run and for its second. */
  #recordLatency(latencyMs: number): void {
    const us = latencyUs(latencyMs);
    this.#pending.record(us);
    this.#secondPending.record(us);
  }

  /**
   * One WebSocket message received: `latencyMs` when it was timed (a reply, or a message with a
   * timestamp), negative when it was not.
   */
  recordMessage(bytes: number, latencyMs: number, now: number): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.completed++;
    this.#secondCompleted++;
    this.bytesReceived += bytes;
    if (latencyMs >= 0) this.#recordLatency(latencyMs);
  }

  #flush(): void {
    this.#pending.flushInto(this.#latency);
    this.#pendingUncorrected.flushInto(this.#latencyUncorrected);
  }

  get #uncorrected(): hdr.Histogram {
    return this.#uncorrectedApart ? this.#latencyUncorrected : this.#latency;
  }

  recordError(code: string, now: number, name = 0): void {
    if (now >= this.#nextSecondAt) this.rollTo(now);
    this.errors++;
    this.#secondErrors++;
    this.#errorCodes.set(code, (this.#errorCodes.get(code) ?? 0) + 1);
    if (this.#named !== undefined) this.#named[name]!.recordError(code, now);
  }

  /** An exception from the user's code (`where`: `requests[1].onResponse`), its request counted under `code` by `recordError`. */
  recordThrown(code: string, where: string, thrown: unknown): void {
    const kept = this.errorSamples.length;
    keepErrorSample(this.errorSamples, code, thrown);
    if (this.errorSamples.length > kept) this.errorSamples[kept]!.where = where;
  }

  /** Closes every whole second before `now` (the engine calls this from its tick too); the names' first. */
  rollTo(now: number): void {
    if (this.#named !== undefined) for (const named of this.#named) named.rollTo(now);
    while (now >= this.#nextSecondAt) {
      this.#closeSecond();
      this.#nextSecondAt += 1000;
    }
  }

  /** The second's latencies are encoded from their own counts; the run's stay pending until read. */
  #closeSecond(): void {
    const second = this.#second++;
    const seconds = this.#secondPending;
    // A second that timed nothing has no percentiles (NaN), not the empty histogram's 0.
    const at = (p: number): number => (seconds.empty ? Number.NaN : seconds.valueAtPercentile(p) / 1000);
    const percentiles = this.onSecond && { p50: at(50), p90: at(90), p99: at(99) };
    const entry: ShardSecond = {
      second,
      sent: this.#secondSent,
      completed: this.#secondCompleted,
      errors: this.#secondErrors,
      retried: this.#secondRetried,
      connections: this.gauges.connections(),
      targetRate: this.gauges.targetRate(second),
      histogram: seconds.takeEncoded(),
      ...(this.gauges.generator?.() ?? { cpuPercent: 0, eventLoopUtilization: 0 }),
    };
    this.#timeline.push(entry);
    if (percentiles) {
      const stream = this.gauges.stream?.(second);
      this.onSecond!({ ...entry, ...percentiles, ...this.#namedSeconds(entry), ...(stream !== undefined ? { stream } : {}) });
    }
    this.#secondSent = this.#secondCompleted = this.#secondErrors = this.#secondRetried = 0;
  }

  /** The names' parts of the second `entry` just closed (the names closed theirs first, see `rollTo`). */
  #namedSeconds(entry: ShardSecond): { byName?: Record<string, NameSecondSummary> } {
    if (this.#names.length === 0) return {};
    const part = ({ sent, completed, errors, histogram }: ShardSecond): NameSecondSummary => ({ sent, completed, errors, histogram });
    if (this.#named === undefined) return { byName: { [this.#names[0]!]: part(entry) } };
    const byName: Record<string, NameSecondSummary> = {};
    this.#named.forEach((named, index) => {
      const last = named.#timeline.at(-1);
      if (last?.second === entry.second && last.sent + last.completed + last.errors > 0) byName[this.#names[index]!] = part(last);
    });
    return { byName };
  }

  /**
   * The counts and maxima measured so far, in `LoadResult`'s shape, for `abortOnFail` (read about
   * once per second, never per request). Rates and percentiles are left out: they cannot decide early.
   */
  snapshot(checks: CheckStats | undefined): PartialLoadResult {
    const partial = this.#snapshot(checks);
    // `{name:...}` thresholds read their name's part; with one name it is the thread's.
    const named = partial as { byName?: Record<string, PartialLoadResult> };
    if (this.#names.length === 1) named.byName = { [this.#names[0]!]: { ...partial } };
    else if (this.#named !== undefined) named.byName = Object.fromEntries(this.#named.map((named, index) => [this.#names[index]!, named.snapshot(undefined)]));
    return partial;
  }

  #snapshot(checks: CheckStats | undefined): PartialLoadResult {
    this.#flush();
    return {
      requests: { sent: this.sent, completed: this.completed, retried: this.retried },
      latency: { max: maxOf(this.#latency) },
      latencyUncorrected: { max: maxOf(this.#uncorrected) },
      statusCodes: this.#statusCodes(),
      errors: { total: this.errors, byCode: Object.fromEntries(this.#errorCodes) },
      failed: { total: this.errors + this.#failedResponses() },
      bytes: { sent: this.bytesSent, received: this.bytesReceived },
      ...(checks ? { checks } : {}),
    };
  }

  /** The counts so far, read once per closed second when someone listens (no histogram work). */
  totals(): RunningTotals {
    return {
      sent: this.sent,
      completed: this.completed,
      errors: this.errors,
      retried: this.retried,
      statusCodes: this.#statusCodes(),
      errorsByCode: Object.fromEntries(this.#errorCodes),
      failed: this.errors + this.#failedResponses(),
    };
  }

  /** Responses with a status the run does not accept, by status: read at the end and once a second, never per response. */
  #failedByStatus(): Record<string, number> {
    const failed: Record<string, number> = {};
    this.#statusCounts.forEach((count, status) => {
      if (count > 0 && this.acceptedStatus[status] !== 1) failed[String(status)] = count;
    });
    return failed;
  }

  #failedResponses(): number {
    let failed = 0;
    for (let status = 0; status < this.#statusCounts.length; status++) if (this.acceptedStatus[status] !== 1) failed += this.#statusCounts[status]!;
    return failed;
  }

  #statusCodes(): Record<string, number> {
    const statusCodes: Record<string, number> = {};
    this.#statusCounts.forEach((count, status) => {
      if (count > 0) statusCodes[String(status)] = count;
    });
    return statusCodes;
  }

  /** Final numbers; a last partial second is kept when anything happened in it. */
  finish(endAt: number, durationMs: number, aborted: boolean, checks: CheckStats | undefined): ShardStats {
    this.rollTo(endAt);
    // The names' last seconds first, as `rollTo` closes theirs first: this one's summary reads them.
    if (this.#named !== undefined) for (const named of this.#named) named.#closeLastSecond();
    this.#closeLastSecond();
    this.#flush();
    const stats = this.#stats(durationMs, aborted, checks);
    // One name: its stats are the thread's (phases and checks are added to both by the protocol).
    if (this.#names.length === 1) stats.byName = { [this.#names[0]!]: { ...stats, warnings: [] } };
    else if (this.#named !== undefined) {
      stats.byName = {};
      this.#named.forEach((named, index) => (stats.byName![this.#names[index]!] = named.finish(endAt, durationMs, aborted, undefined)));
    }
    return stats;
  }

  #closeLastSecond(): void {
    if (this.#secondSent + this.#secondCompleted + this.#secondErrors + this.#secondRetried > 0) this.#closeSecond();
  }

  #stats(durationMs: number, aborted: boolean, checks: CheckStats | undefined): ShardStats {
    return {
      sent: this.sent,
      completed: this.completed,
      missed: this.missed,
      retried: this.retried,
      ...(this.redirects > 0 ? { redirects: this.redirects } : {}),
      errors: this.errors,
      errorsByCode: Object.fromEntries(this.#errorCodes),
      ...(this.errorSamples.length > 0 ? { errorSamples: this.errorSamples } : {}),
      statusCodes: this.#statusCodes(),
      unfinished: this.unfinished,
      failedByStatus: this.#failedByStatus(),
      bytesSent: this.bytesSent,
      bytesReceived: this.bytesReceived,
      durationMs,
      startedAt: performance.timeOrigin + this.startAt,
      aborted,
      histogram: encodeHistogram(this.#latency),
      histogramUncorrected: encodeHistogram(this.#uncorrected),
      timeline: this.#timeline,
      checks,
      warnings: this.warnings,
      // The engine adds its GeneratorMonitor's reading.
      generator: undefined,
    };
  }
}
