import t from 'tap';
import { RateSchedule } from '../../src/runner/schedule.js';
import { SalvoOptionError, SalvoRangeError } from '../../src/shared/errors.js';
import { planLoad } from '../../src/options.js';
import type { Plan } from '../../src/shared/plan.js';
import type { LoadOptions } from '../../src/shared/load-options.js';
import { segmentPlan, shardPlan, splitPlan } from '../../src/workers/shard.js';

const url = 'http://127.0.0.1:1/';
const sum = (values: ReadonlyArray<number | undefined>) => values.reduce<number>((total, value) => total + (value ?? 0), 0);
const plan = (options: Omit<LoadOptions, 'url'>): Plan => planLoad({ url, ...options }).plan;
/** Every thread of every segment: what N processes with `workers` each would run. */
const threadsOf = (whole: Plan, count: number): Plan[] =>
  Array.from({ length: count }, (_, index) => segmentPlan(whole, { index, count })).flatMap((segment) =>
    segment.workers > 1 ? shardPlan(segment) : [segment],
  );

t.test('segments split exactly what the whole plan asks, with the workers split code', async (t) => {
  const whole = plan({ connections: 10, workers: 2, amount: 1001, rate: 1000 });
  const segments = [0, 1, 2].map((index) => segmentPlan(whole, { index, count: 3 }));
  t.same(segments.map((s) => s.connections), [4, 3, 3]);
  t.same(segments.map((s) => s.amount), [334, 334, 333], 'open loop: each its share of the first 1001 slots');
  t.same(segments.map((s) => s.rate), [1000 / 3, 1000 / 3, 1000 / 3], 'open loop: equal shares of the slots, whatever the connections');
  t.same(segments.map((s) => s.workers), [2, 2, 2], 'each segment keeps its workers');
  t.same(segments, splitPlan(whole, 3).map((s) => ({ ...s, workers: 2 })), 'a segment is a share of splitPlan');
  t.same(segmentPlan(plan({ connections: 3, workers: 4 }), { index: 2, count: 3 }).workers, 1, 'never more workers than the share has connections');

  for (const connections of [3, 7, 16, 101]) {
    for (const count of [1, 2, 3]) {
      for (const workers of [1, 2, 3]) {
        for (const amount of [undefined, 5, 1001]) {
          for (const rate of [undefined, 3, 999]) {
            const whole = plan({ connections, workers, amount, rate, ...(amount === undefined ? { duration: 1000 } : {}) });
            const threads = threadsOf(whole, count);
            const label = `${connections} connections, ${count} segments x ${workers} workers, amount ${amount}, rate ${rate}`;
            if (sum(threads.map((s) => s.connections)) !== connections || threads.some((s) => s.connections < 1)) t.fail(`${label}: connections`);
            if (amount !== undefined && sum(threads.map((s) => s.amount)) !== amount) t.fail(`${label}: amount`);
            if (rate !== undefined && Math.abs(sum(threads.map((s) => s.rate)) - rate) > 1e-9) t.fail(`${label}: rate`);
          }
        }
      }
    }
  }
  t.pass('every combination adds up');
});

t.test('phases compose: every worker of every segment takes its own turn in the one schedule', async (t) => {
  for (const [rate, count, workers, connections] of [[1200, 3, 2, 12], [1000, 2, 2, 8], [999, 3, 1, 9], [1024, 4, 4, 16]] as const) {
    const label = `rate ${rate}, ${count} segments x ${workers} workers`;
    const whole = new RateSchedule(rate, []);
    const threads = threadsOf(plan({ connections, workers, rate, duration: 1000 }), count);
    t.equal(threads.length, count * workers, `${label}: ${count * workers} threads`);
    t.ok(threads.every((s) => s.rate === rate / (count * workers)), `${label}: equal shares`);
    const phases = threads.map((s) => s.ratePhase!).sort((a, b) => a - b);
    t.same(phases.map((p) => Math.round(p * count * workers)), phases.map((_, k) => k), `${label}: phases are k / ${count * workers}, each once`);
    const schedules = threads.map((s) => new RateSchedule(s.rate!, [], s.ratePhase));
    const times = schedules.flatMap((s) => Array.from({ length: 25 }, (_, slot) => s.timeOf(slot))).sort((a, b) => a - b);
    t.ok(times.every((time, slot) => Math.abs(time - whole.timeOf(slot)) < 1e-9), `${label}: the same send times as one thread`);
    for (const ms of [1, 333, 1000, 2500]) {
      t.equal(sum(schedules.map((s) => s.countBefore(ms))), whole.countBefore(ms), `${label}: slots before ${ms} ms`);
    }
  }
  const ramp = plan({ connections: 6, workers: 2, rate: 60, stages: [{ duration: 1000, rate: 600 }] });
  const threads = threadsOf(ramp, 3);
  const schedules = threads.map((s) => new RateSchedule(s.rate!, s.stages!.map((stage) => ({ durationMs: stage.durationMs, rate: stage.rate! })), s.ratePhase));
  const whole = new RateSchedule(60, [{ durationMs: 1000, rate: 600 }]);
  t.equal(sum(schedules.map((s) => s.countBefore(1000))), whole.countBefore(1000), 'a ramp over segments and workers splits exactly');
  t.same(splitPlan(plan({ connections: 4, rate: 100, duration: 1000 }), 1)[0]!.ratePhase, undefined, 'one share of an unsplit plan needs no phase');
  t.same(threadsOf(plan({ connections: 4, duration: 1000 }), 2).map((s) => s.ratePhase), [undefined, undefined], 'closed loop: no phase');
});

t.test('bad segment and startAt values are errors that name them', async (t) => {
  const bad: Array<[unknown, typeof SalvoOptionError | typeof SalvoRangeError, RegExp]> = [
    [3, SalvoOptionError, /segment must be \{ index, count \}; got 3/],
    [{ index: 0 }, SalvoOptionError, /segment\.count must be a positive integer; got undefined/],
    [{ index: 0, count: 0 }, SalvoRangeError, /segment\.count must be a positive integer; got 0/],
    [{ index: 3, count: 3 }, SalvoRangeError, /segment\.index must be an integer from 0 to count - 1 \(2\); got 3/],
    [{ index: -1, count: 3 }, SalvoRangeError, /segment\.index .* got -1/],
    [{ index: 0.5, count: 3 }, SalvoRangeError, /segment\.index .* got 0\.5/],
    [{ index: '1', count: 3 }, SalvoOptionError, /segment\.index .* got "1"/],
    [{ index: 0, count: 2, size: 1 }, SalvoOptionError, /segment has an unknown key "size"/],
    [{ index: 0, count: 11 }, SalvoRangeError, /segment\.count 11 is more than connections 10/],
  ];
  for (const [segment, type, message] of bad) {
    t.throws(() => planLoad({ url, segment: segment as never }), type);
    t.throws(() => planLoad({ url, segment: segment as never }), message);
  }
  t.throws(() => planLoad({ url, connections: 10, amount: 2, segment: { index: 0, count: 3 } }), /segment\.count 3 is more than amount 2/);
  t.throws(() => planLoad({ url, connections: 10, rate: 2, segment: { index: 0, count: 3 } }), /segment\.count 3 is more than rate 2/);
  t.throws(() => planLoad({ url, startAt: '2026-01-01' as never }), SalvoOptionError);
  t.throws(() => planLoad({ url, startAt: '2026-01-01' as never }), /startAt must be epoch milliseconds or a Date; got "2026-01-01"/);
  t.throws(() => planLoad({ url, startAt: 1_700_000_000 }), /startAt must be epoch milliseconds .* looks like seconds/);
  t.throws(() => planLoad({ url, startAt: new Date('nonsense') }), SalvoRangeError);
  t.throws(() => planLoad({ url, startAt: Number.NaN }), /startAt must be a valid time/);
  t.equal(planLoad({ url, startAt: new Date(1_800_000_000_000) }).plan.startAtMs, 1_800_000_000_000, 'a Date is epoch ms');
  t.same(planLoad({ url, segment: { index: 1, count: 2 } }).plan.segment, { index: 1, count: 2 });
  t.throws(() => planLoad({ url, segmnt: { index: 0, count: 2 } } as never), /did you mean segment\?/);
});
