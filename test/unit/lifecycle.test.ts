// The per-thread run lifecycle on its own, with a fake protocol: the order of its calls, the start
// gate, ticks that roll seconds, `abortOnFail`, the end, stop before the start, and the backoff.
import t from 'tap';
import { planLoad } from '../../src/options.js';
import type { Plan } from '../../src/shared/plan.js';
import { backoffMs, RunLifecycle, type Exchanges, type RunHooks } from '../../src/runner/lifecycle.js';
import type { Measuring } from '../../src/runner/measuring.js';
import type { ShardStats } from '../../src/stats/recorder.js';
import type { LoadOptions } from '../../src/shared/load-options.js';

const url = 'http://127.0.0.1:9/';
const plan = (options: Omit<LoadOptions, 'url'>): Plan => planLoad({ url, ...options }).plan;

/** A protocol that sends nothing by itself and writes down what the lifecycle asked of it, and when. */
class FakeExchanges implements Exchanges {
  readonly tickMs = 10;
  readonly gauges = { connections: () => 1, targetRate: () => undefined };
  readonly calls: string[] = [];
  readonly tickTimes: number[] = [];
  measuring: Measuring | undefined;
  haltedAt = Number.NaN;
  /** Resolves `open()`; replaced by a test that wants the opening held. */
  opened: Promise<void> = Promise.resolve();
  onStart: ((measuring: Measuring) => void) | undefined;

  open(): Promise<void> {
    this.calls.push('open');
    return this.opened;
  }
  begin(measuring: Measuring): void {
    this.calls.push('begin');
    this.measuring = measuring;
  }
  start(): void {
    this.calls.push('start');
    this.onStart?.(this.measuring!);
  }
  tick(now: number): void {
    this.tickTimes.push(now);
  }
  checks(): undefined {
    return undefined;
  }
  halt(now: number): void {
    this.calls.push('halt');
    this.haltedAt = now;
  }
  close(stats: ShardStats): Promise<void> {
    this.calls.push('close');
    stats.statusCodes['299'] = 1;
    return Promise.resolve();
  }
}

function run(p: Plan, hooks: RunHooks = {}, exchanges = new FakeExchanges()) {
  const lifecycle = new RunLifecycle(p, hooks, exchanges);
  return { exchanges, lifecycle, done: lifecycle.run() };
}

t.test('backoff: 5 ms, doubling, capped at 1 s', async (t) => {
  t.same([0, 1, 2, 7, 8, 30].map(backoffMs), [5, 10, 20, 640, 1000, 1000]);
});

t.test('a run to its duration: calls in order, ends exactly at its end, one second per second', async (t) => {
  const seconds: number[] = [];
  /** How many protocol ticks had run when each second was reported. */
  const ticksBeforeReport: number[] = [];
  let readyCalls = 0;
  const { exchanges, done } = run(plan({ duration: 2100 }), {
    ready: async () => {
      readyCalls++;
      t.same(exchanges.calls, ['open'], 'the start gate is awaited after the connections opened, before the clock');
    },
    onSecond: (summary) => {
      seconds.push(summary.second);
      ticksBeforeReport.push(exchanges.tickTimes.length);
    },
  });
  const stats = await done;
  t.equal(readyCalls, 1);
  t.same(exchanges.calls, ['open', 'begin', 'start', 'halt', 'close']);
  t.equal(stats.durationMs, 2100, 'measured exactly the duration');
  t.equal(stats.aborted, false);
  t.same(seconds, [0, 1], 'each second that closed, in order');
  t.equal(stats.statusCodes['299'], 1, 'the protocol adds its fields to the stats');
  const { measureAt, endAt } = exchanges.measuring!;
  t.ok(exchanges.tickTimes.length > 0, `${exchanges.tickTimes.length} ticks`);
  t.ok(exchanges.tickTimes.every((at) => at >= measureAt && at < endAt), 'the protocol ticks only before the end');
  t.ok(exchanges.haltedAt >= endAt, 'halted at or after the end');
  // The tick rolls the second before the protocol's tick runs (nothing else was recorded to roll it).
  const firstTickInSecond1 = exchanges.tickTimes.findIndex((at) => at >= measureAt + 1000);
  t.ok(firstTickInSecond1 === -1 || ticksBeforeReport[0] === firstTickInSecond1, 'second 0 reported by the first tick after it closed');
});

t.test('stop from the protocol (amount reached): halted once, with what was measured so far', async (t) => {
  const exchanges = new FakeExchanges();
  const { lifecycle, done } = run(plan({ duration: 10_000 }), {}, exchanges);
  exchanges.onStart = (measuring) => {
    measuring.recorder.recordSent(100, measuring.measureAt);
    measuring.recorder.recordResponse(200, 50, 1, 1, measuring.measureAt);
    lifecycle.stop(false);
    lifecycle.stop(true);
  };
  const stats = await done;
  t.same(exchanges.calls, ['open', 'begin', 'start', 'halt', 'close'], 'a second stop does nothing');
  t.equal(stats.aborted, false, 'the first stop says how it ended');
  t.equal(stats.sent, 1);
  t.equal(stats.completed, 1);
  t.equal(exchanges.tickTimes.length, 0, 'no tick after the stop');
});

t.test('abortOnFail ends the run at the first check after the threshold fails', async (t) => {
  const exchanges = new FakeExchanges();
  exchanges.onStart = (measuring) => {
    for (let i = 0; i < 5; i++) measuring.recorder.recordResponse(500, 10, 1, 1, measuring.measureAt);
  };
  const thresholds = { 'statusCodes.500': { threshold: '< 5', abortOnFail: true } };
  const stats = await run(plan({ duration: 10_000, thresholds }), {}, exchanges).done;
  const { measureAt } = exchanges.measuring!;
  t.equal(stats.aborted, true);
  t.ok(exchanges.tickTimes.every((at) => at < measureAt + 1000), 'every tick the protocol saw came before the first check');
  t.ok(exchanges.haltedAt >= measureAt + 1000, 'not checked before a second was measured');
  t.equal(stats.durationMs, exchanges.haltedAt - measureAt, 'measured until the check that failed');
  t.equal(stats.statusCodes['500'], 5);
});

t.test('abortOnFail with a threshold that still passes: the run goes to its end', async (t) => {
  const exchanges = new FakeExchanges();
  exchanges.onStart = (measuring) => {
    for (let i = 0; i < 4; i++) measuring.recorder.recordResponse(500, 10, 1, 1, measuring.measureAt);
  };
  const thresholds = { 'statusCodes.500': { threshold: '< 5', abortOnFail: true } };
  const stats = await run(plan({ duration: 1100, thresholds }), {}, exchanges).done;
  t.equal(stats.aborted, false);
  t.equal(stats.durationMs, 1100);
});

t.test('aborted before the start: no open, no start, empty stats', async (t) => {
  const controller = new AbortController();
  controller.abort();
  const { exchanges, done } = run(plan({ duration: 10_000 }), { signal: controller.signal });
  const stats = await done;
  t.same(exchanges.calls, ['begin', 'halt', 'close']);
  t.equal(stats.aborted, true);
  t.equal(stats.durationMs, 0);
  t.equal(stats.sent, 0);
});

t.test('aborted while the connections open: the clock never starts sending', async (t) => {
  const controller = new AbortController();
  const exchanges = new FakeExchanges();
  let open!: () => void;
  exchanges.opened = new Promise((resolve) => (open = resolve));
  const { done } = run(plan({ duration: 10_000 }), { signal: controller.signal }, exchanges);
  controller.abort();
  open();
  const stats = await done;
  t.same(exchanges.calls, ['open', 'begin', 'halt', 'close']);
  t.equal(stats.aborted, true);
});

t.test('aborted while the connections never finish opening: the run still ends', async (t) => {
  const controller = new AbortController();
  const exchanges = new FakeExchanges();
  exchanges.opened = new Promise(() => {});
  const { done } = run(plan({ duration: 10_000 }), { signal: controller.signal }, exchanges);
  setTimeout(() => controller.abort(), 20);
  const stats = await done;
  t.same(exchanges.calls, ['open', 'begin', 'halt', 'close']);
  t.equal(stats.aborted, true);
});

t.test('the start gate may name a past instant: the clock starts from it', async (t) => {
  const exchanges = new FakeExchanges();
  let from = 0;
  const { lifecycle, done } = run(plan({ duration: 10_000, warmup: 50 }), {
    ready: async () => (from = performance.now() - 20),
  }, exchanges);
  exchanges.onStart = () => lifecycle.stop(false);
  await done;
  t.equal(exchanges.measuring!.startAt, from);
  t.equal(exchanges.measuring!.measureAt, from + 50, 'the warm-up counts from the shared instant');
});
