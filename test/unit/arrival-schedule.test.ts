import t from 'tap';
import { planLoad } from '../../src/options.js';
import { ARRIVAL_BLOCK, planSlotSchedule, type SlotSchedule } from '../../src/runner/arrival-schedule.js';
import { planSchedule } from '../../src/runner/schedule.js';
import { segmentPlan, shardPlan } from '../../src/workers/shard.js';
import type { LoadOptions } from '../../src/shared/load-options.js';
import type { Plan } from '../../src/shared/plan.js';
import { coefficientOfVariation, exponentialCdf, gaps, ksCritical01, ksStatistic, mean } from '../fixtures/statistics.js';

const url = 'http://127.0.0.1:9/';

function plan(options: Partial<LoadOptions>): Plan {
  return planLoad({ url, connections: 16, ...options }).plan;
}

/** Every due time of `schedule` before `endMs`, in order. */
function dueTimes(schedule: SlotSchedule, endMs: number): number[] {
  const times: number[] = [];
  for (let slot = 0; ; slot++) {
    const time = schedule.timeOf(slot);
    if (time >= endMs) return times;
    times.push(time);
  }
}

/** The due times of every share, merged in order: what the server would see. */
function mergedTimes(plans: Plan[], endMs: number): number[] {
  return plans.flatMap((share) => dueTimes(planSlotSchedule(share)!, endMs)).sort((a, b) => a - b);
}

t.test('the same seed gives the same schedule over 1 worker, 4 workers and 2 segments of 2 workers', async (t) => {
  const options: Partial<LoadOptions> = { rate: 1000, duration: 6000, warmup: 500, arrivals: { distribution: 'poisson', seed: 42 } };
  const one = dueTimes(planSlotSchedule(plan(options))!, 6500);
  t.equal(one.length, 6500, 'as many arrivals as the constant rate sends in warm-up and duration');
  t.ok(one.length > ARRIVAL_BLOCK, 'the run spans more than one block of draws');
  const four = mergedTimes(shardPlan(plan({ ...options, workers: 4 })), 6500);
  t.same(four, one, '4 workers: exactly the 1-worker instants');
  const whole = plan({ ...options, workers: 2 });
  const segments = [0, 1].flatMap((index) => shardPlan(segmentPlan(whole, { index, count: 2 })));
  t.equal(segments.length, 4);
  t.same(mergedTimes(segments, 6500), one, '2 segments of 2 workers: exactly the 1-worker instants');
  const three = mergedTimes(shardPlan(plan({ ...options, workers: 3 })), 6500);
  t.same(three, one, '3 workers (a rate that 3 does not divide): exactly the 1-worker instants');
  const other = dueTimes(planSlotSchedule(plan({ ...options, arrivals: { distribution: 'poisson', seed: 43 } }))!, 6500);
  t.not(other[1], one[1], 'another seed, other instants');
});

t.test('poisson gaps are exponential at the rate, gamma below shape 1 burstier at the same mean', async (t) => {
  const poisson = gaps(dueTimes(planSlotSchedule(plan({ rate: 500, duration: 20_000, arrivals: 'poisson' }))!, 20_000));
  const d = ksStatistic(poisson, exponentialCdf(0.5));
  t.ok(d < ksCritical01(poisson.length), `KS D ${d.toFixed(4)} < ${ksCritical01(poisson.length).toFixed(4)} (alpha 0.01, n ${poisson.length})`);
  t.ok(Math.abs(mean(poisson) - 2) < 0.01, `mean gap ${mean(poisson)} ms at 500/s`);
  t.ok(Math.abs(coefficientOfVariation(poisson) - 1) < 0.05, `poisson CV ${coefficientOfVariation(poisson)}`);
  const constant = gaps(dueTimes(planSchedule(plan({ rate: 500, duration: 20_000 }))!, 20_000));
  t.ok(ksStatistic(constant, exponentialCdf(0.5)) > 0.3, 'even spacing fails the same test');

  const gamma = gaps(dueTimes(planSlotSchedule(plan({ rate: 500, duration: 20_000, arrivals: { distribution: 'gamma', shape: 0.25 } }))!, 20_000));
  t.equal(gamma.length, poisson.length, 'the same count as poisson and constant');
  t.ok(Math.abs(mean(gamma) - 2) < 0.01, `gamma mean gap ${mean(gamma)} ms`);
  const cv = coefficientOfVariation(gamma);
  t.ok(cv > 1.7 && cv < 2.3, `gamma shape 0.25: CV ${cv.toFixed(3)}, 1 / sqrt(shape) = 2`);
  const even = coefficientOfVariation(gaps(dueTimes(planSlotSchedule(plan({ rate: 500, duration: 20_000, arrivals: { distribution: 'gamma', shape: 4 } }))!, 20_000)));
  t.ok(even > 0.4 && even < 0.6, `gamma shape 4: CV ${even.toFixed(3)}, 1 / sqrt(shape) = 0.5`);
});

t.test('counts: exact over a duration, the rate followed under stages, countBefore the inverse of timeOf', async (t) => {
  const cases: Array<[string, Partial<LoadOptions>, number]> = [
    ['333/s for 7.3 s', { rate: 333, duration: 7300 }, 7300],
    ['ramp 0 -> 2000/s over 3 s, hold 2 s', { stages: [{ duration: 3000, rate: 2000 }, { duration: 2000, rate: 2000 }] }, 5000],
  ];
  for (const [label, options, end] of cases) {
    const even = planSchedule(plan(options))!;
    const drawn = planSlotSchedule(plan({ ...options, arrivals: { distribution: 'gamma', shape: 0.5, seed: 7 } }))!;
    const times = dueTimes(drawn, end);
    t.equal(times.length, even.countBefore(end), `${label}: as many as the constant rate`);
    const broken = times.filter((time, slot) => (drawn as unknown as { countBefore(ms: number): number }).countBefore(time) !== slot);
    t.equal(broken.length, 0, `${label}: countBefore(timeOf(i)) is i`);
    t.equal(drawn.missedSlots(0, end, undefined, times.length), 0);
    t.equal(drawn.missedSlots(0, end, undefined, 10), times.length - 10);
  }
  const ramp = dueTimes(planSlotSchedule(plan({ stages: [{ duration: 4000, rate: 2000 }], arrivals: 'poisson' }))!, 4000);
  const firstHalf = ramp.filter((time) => time < 2000).length;
  t.ok(Math.abs(firstHalf - 1000) < 150, `a ramp 0 -> 2000/s over 4 s: ${firstHalf} of ${ramp.length} in its first half (1,000 of 4,000 expected)`);
  const amountOnly = planSlotSchedule(plan({ rate: 100, amount: 50, arrivals: 'poisson' }))!;
  t.ok(amountOnly.timeOf(49) < amountOnly.timeOf(50) && Number.isFinite(amountOnly.timeOf(10_000)), 'no end: draws go on');
});

t.test('arrivals is checked by name', async (t) => {
  t.throws(() => plan({ arrivals: 'poisson' }), { code: 'SALVO_INVALID_OPTION', option: 'arrivals', message: /give rate/ });
  t.throws(() => plan({ rate: 10, arrivals: 'uniform' as 'poisson' }), { option: 'arrivals.distribution', message: /^arrivals/ });
  t.throws(() => plan({ rate: 10, arrivals: { distribution: 'gamma' } }), { option: 'arrivals.shape', message: /^arrivals/ });
  t.throws(() => plan({ rate: 10, arrivals: { distribution: 'gamma', shape: 0 } }), { option: 'arrivals.shape', message: /^arrivals/ });
  t.throws(() => plan({ rate: 10, arrivals: { distribution: 'poisson', shape: 2 } }), { option: 'arrivals.shape', message: /^arrivals/ });
  t.throws(() => plan({ rate: 10, arrivals: { distribution: 'poisson', seed: -1 } }), { option: 'arrivals.seed', message: /^arrivals/ });
  t.throws(() => plan({ rate: 10, arrivals: { distribution: 'poisson', speed: 1 } as never }), { option: 'arrivals.speed', message: /^arrivals/ });
  t.equal(plan({ rate: 10, arrivals: 'constant' }).arrivals, undefined, "'constant' is the even schedule");
  t.throws(() => planLoad({ url: 'ws://127.0.0.1:9/', arrivals: 'poisson', websocket: { message: 'x', rate: 5 } }), { option: 'arrivals', message: /arrivals/ });
});

t.test('the warm-up and the measured run each get the constant rate\'s count', async (t) => {
  for (const [label, options] of [
    ['50/s, 0.5 s warm-up, 1.5 s', { rate: 50, warmup: 500, duration: 1500 }],
    ['3/s, a 100 ms warm-up with no arrival in it, 2 s', { rate: 3, warmup: 100, duration: 2000 }],
    ['ramp from 50 to 100/s after a 0.5 s warm-up', { rate: 50, warmup: 500, stages: [{ duration: 1000, rate: 100 }, { duration: 1000, rate: 100 }] }],
  ] as Array<[string, Partial<LoadOptions>]>) {
    const even = planSchedule(plan(options))!;
    const drawn = planSlotSchedule(plan({ ...options, arrivals: 'poisson' }))! as SlotSchedule & { countBefore(ms: number): number };
    const warmup = plan(options).warmupMs;
    const end = warmup + plan(options).durationMs!;
    t.equal(drawn.countBefore(warmup), even.countBefore(warmup), `${label}: the warm-up's count`);
    t.equal(drawn.countBefore(end) - drawn.countBefore(warmup), even.countBefore(end) - even.countBefore(warmup), `${label}: the measured run's count`);
    t.equal(drawn.missedSlots(warmup, end, undefined, 0), even.missedSlots(warmup, end, undefined, 0), `${label}: what a run that sent nothing missed`);
    const times = dueTimes(drawn, end);
    t.equal(times.filter((time) => time < warmup).length, drawn.countBefore(warmup), `${label}: due times agree with the counts`);
  }
});

t.test('a steered drawn schedule: 1 share and 4 shares hold the new rate from the same arrival', async (t) => {
  const options: Partial<LoadOptions> = { rate: 1000, warmup: 500, duration: 10_000, arrivals: { distribution: 'poisson', seed: 42 } };
  const endMs = 10_500;
  const unsteered = dueTimes(planSlotSchedule(plan(options))!, endMs);
  // Each case: the changes (whole run's rate from a time on), in order; 9 s is in the measured run's
  // last block of draws, 3 s to 100/s leaves fewer arrivals to the run than were due by then.
  const cases: Array<[string, Array<[number, number]>]> = [
    ['3 s: up to 2,500/s', [[3000, 2500]]],
    ['3 s: down to 100/s', [[3000, 100]]],
    ['9 s: up to 3,000/s', [[9000, 3000]]],
    ['in the warm-up, 0.3 s: up to 2,000/s', [[300, 2000]]],
    ['2 s: up to 3,000/s, then 6 s: down to 400/s', [[2000, 3000], [6000, 400]]],
  ];
  for (const [label, changes] of cases) {
    const steer = (shares: Plan[]): number[] => {
      const schedules = shares.map((share) => planSlotSchedule(share)!);
      for (const [ms, rate] of changes) for (const schedule of schedules) schedule.holdFrom(ms, rate / shares.length);
      return schedules.flatMap((schedule) => dueTimes(schedule, endMs)).sort((a, b) => a - b);
    };
    const one = steer([plan(options)]);
    const single = planSlotSchedule(plan(options))! as SlotSchedule & { countBefore(ms: number): number };
    for (const [ms, rate] of changes) single.holdFrom(ms, rate);
    const broken = one.filter((time, slot) => single.countBefore(time) !== slot || single.timeOf(slot) !== time);
    t.equal(broken.length, 0, `${label}: countBefore(timeOf(i)) is i after the changes`);
    t.same(steer(shardPlan(plan({ ...options, workers: 4 }))), one, `${label}: 4 shares send exactly the 1-share schedule`);
    const [firstMs] = changes[0]!;
    t.same(one.filter((time) => time < firstMs), unsteered.filter((time) => time < firstMs), `${label}: arrivals due before the change keep their times`);
    t.ok(one.every((time, index) => index === 0 || time >= one[index - 1]!), `${label}: due times in order`);
    // After each change, the count in its stretch follows the new rate: the draws decide only
    // where the cut falls, a few arrivals either way (5 standard deviations of a Poisson count, and then some).
    changes.forEach(([ms, rate], index) => {
      const until = changes[index + 1]?.[0] ?? endMs;
      const count = one.filter((time) => time >= ms && time < until).length;
      const expected = (rate * (until - ms)) / 1000;
      const bound = 5 * Math.sqrt(expected) + 5;
      t.ok(Math.abs(count - expected) < bound, `${label}: ${count} arrivals in [${ms}, ${until}) ms, ${expected} expected (bound ${bound.toFixed(0)})`);
    });
    const last = changes.at(-1)!;
    const after = gaps(one.filter((time) => time >= last[0]));
    t.ok(Math.abs(mean(after) - 1000 / last[1]) < (0.1 * 1000) / last[1], `${label}: mean gap ${mean(after).toFixed(3)} ms after the last change, ${1000 / last[1]} expected`);
  }
});
