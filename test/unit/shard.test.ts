import t from 'tap';
import { RateSchedule } from '../../src/runner/schedule.js';
import { planLoad } from '../../src/options.js';
import type { Plan } from '../../src/shared/plan.js';
import { apportion, shardPlan, splitEvenly, usableWorkers } from '../../src/workers/shard.js';
import type { LoadOptions } from '../../src/shared/load-options.js';

const url = 'http://127.0.0.1:1/';
const sum = (values: ReadonlyArray<number | undefined>) => values.reduce<number>((total, value) => total + (value ?? 0), 0);
const plan = (options: Omit<LoadOptions, 'url'>): Plan => planLoad({ url, ...options }).plan;

t.test('splitEvenly: exact, differing by at most one, remainder first', async (t) => {
  t.same(splitEvenly(5, 2), [3, 2]);
  t.same(splitEvenly(7, 3), [3, 2, 2]);
  t.same(splitEvenly(3, 3), [1, 1, 1]);
  for (let total = 1; total <= 60; total++) {
    for (let parts = 1; parts <= total; parts++) {
      const split = splitEvenly(total, parts);
      if (sum(split) !== total || Math.max(...split) - Math.min(...split) > 1) t.fail(`${total} over ${parts}: ${split}`);
    }
  }
});

t.test('apportion: exact sums, proportional, at least one each when possible', async (t) => {
  t.same(apportion(1001, [3, 2]), [601, 400]);
  t.same(apportion(1000, [1, 1, 1]), [334, 333, 333]);
  t.same(apportion(2, [2, 1]), [1, 1], 'the smaller part still gets one');
  t.same(apportion(3, [2, 2, 1]), [1, 1, 1]);
  for (const total of [1, 2, 3, 7, 10, 99, 100, 101, 997, 1000, 1001, 123_457]) {
    for (const weights of [[1], [1, 1], [3, 2], [2, 2, 1], [5, 5, 5, 4], [1, 1, 1, 1, 1, 1, 1], [40, 1, 1]]) {
      const parts = apportion(total, weights);
      if (sum(parts) !== total) t.fail(`${total} by ${weights}: ${parts} sums to ${sum(parts)}`);
      if (total >= weights.length && parts.some((part) => part < 1)) t.fail(`${total} by ${weights}: ${parts} has an empty part`);
      const weightSum = sum(weights);
      parts.forEach((part, index) => {
        const quota = (total * weights[index]!) / weightSum;
        if (total >= 10 * weights.length && Math.abs(part - quota) >= 1) t.fail(`${total} by ${weights}: ${part} is far from ${quota}`);
      });
    }
  }
});

t.test('usableWorkers: never more workers than connections, amount or rate', async (t) => {
  t.equal(usableWorkers(4, { connections: 2, amount: undefined, rate: undefined }), 2);
  t.equal(usableWorkers(4, { connections: 10, amount: 3, rate: undefined }), 3);
  t.equal(usableWorkers(4, { connections: 10, amount: undefined, rate: 1 }), 1);
  t.equal(usableWorkers(3, { connections: 10, amount: 100, rate: 100 }), 3);
  t.equal(plan({ connections: 3, workers: 8 }).workers, 3, 'planLoad reports the workers it will use');
  t.equal(plan({ connections: 3, workers: 8, amount: 2 }).workers, 2);
});

t.test('shardPlan: connections, amount and rate add up to exactly what was asked', async (t) => {
  const shards = shardPlan(plan({ connections: 5, workers: 2, amount: 1001, rate: 1000 }));
  t.same(shards.map((s) => s.connections), [3, 2]);
  t.same(shards.map((s) => s.amount), [501, 500], 'open loop: each its share of the first 1001 slots');
  t.same(shards.map((s) => s.rate), [500, 500], 'open loop: equal shares of the slots, whatever the connections');
  t.same(shardPlan(plan({ connections: 5, workers: 2, amount: 1001 })).map((s) => s.amount), [601, 400], 'closed loop: amount follows the connections');
  t.same(shards.map((s) => s.workers), [1, 1]);
  t.same(shards.map((s) => s.ratePhase), [0, 0.5]);

  for (const connections of [1, 2, 3, 5, 7, 10, 64, 101]) {
    for (const workers of [1, 2, 3, 4, 7, 16]) {
      for (const amount of [undefined, 1, 5, 1001, 99_999]) {
        for (const rate of [undefined, 1, 3, 1000, 12_345]) {
          const whole = plan({ connections, workers, amount, rate, ...(amount === undefined ? { duration: 1000 } : {}) });
          const split = shardPlan(whole);
          const label = `${connections} connections, ${workers} workers, amount ${amount}, rate ${rate}`;
          if (split.length !== whole.workers) t.fail(`${label}: ${split.length} shards for ${whole.workers} workers`);
          if (split.length > Math.min(workers, connections)) t.fail(`${label}: too many shards`);
          if (split.some((s) => s.connections < 1)) t.fail(`${label}: a shard without connections`);
          if (sum(split.map((s) => s.connections)) !== connections) t.fail(`${label}: connections`);
          if (amount !== undefined && (sum(split.map((s) => s.amount)) !== amount || split.some((s) => s.amount! < 1))) {
            t.fail(`${label}: amounts ${split.map((s) => s.amount)}`);
          }
          if (rate !== undefined && (Math.abs(sum(split.map((s) => s.rate)) - rate) > 1e-9 || split.some((s) => s.rate! < 1))) {
            t.fail(`${label}: rates ${split.map((s) => s.rate)}`);
          }
        }
      }
    }
  }
  t.pass('every combination adds up');
});

t.test('shardPlan: ramp stages are scaled per shard', async (t) => {
  const rateShards = shardPlan(plan({ connections: 4, workers: 3, rate: 90, stages: [{ duration: 1000, rate: 300 }, { duration: 500, rate: 0 }] }));
  t.same(rateShards.map((s) => s.connections), [2, 1, 1]);
  t.same(rateShards.map((s) => s.stages!.map((stage) => stage.rate)), [[100, 0], [100, 0], [100, 0]], 'rate stages split by slots, not connections');
  t.same(rateShards.map((s) => s.stages!.map((stage) => stage.durationMs)), [[1000, 500], [1000, 500], [1000, 500]]);

  const connectionShards = shardPlan(plan({ connections: 5, workers: 2, stages: [{ duration: 1000, connections: 9 }, { duration: 1000, connections: 1 }] }));
  t.same(connectionShards.map((s) => s.stages!.map((stage) => stage.connections)), [[5, 1], [4, 0]]);
  t.same(connectionShards.map((s) => s.ratePhase), [undefined, undefined], 'closed-loop shards need no phase');
});

t.test('phase-offset shards interleave into the whole schedule', async (t) => {
  // Connections that do not divide evenly (3 over 2, 16 over 3 or 7) change nothing: shares split the slots.
  for (const [rate, workers, connections] of [[1000, 2, 8], [999, 3, 12], [1000, 3, 16], [999, 4, 16], [90, 7, 16], [300, 2, 3], [333, 2, 10], [1000, 3, 10]] as const) {
    const label = `rate ${rate} over ${workers} workers, ${connections} connections`;
    const whole = new RateSchedule(rate, []);
    const shards = shardPlan(plan({ connections, workers, rate, duration: 1000 }));
    const schedules = shards.map((s) => new RateSchedule(s.rate!, [], s.ratePhase));
    for (const ms of [1, 250, 999.5, 1000, 1234, 1500, 2000, 3000]) {
      t.equal(sum(schedules.map((s) => s.countBefore(ms))), whole.countBefore(ms), `${label}: slots before ${ms} ms, exact`);
    }
    const times = schedules.flatMap((s) => Array.from({ length: 20 }, (_, slot) => s.timeOf(slot))).sort((a, b) => a - b);
    const expected = Array.from({ length: times.length }, (_, slot) => whole.timeOf(slot));
    t.ok(times.every((time, index) => Math.abs(time - expected[index]!) < 1e-9), `${label}: the same send times as one thread`);
  }
  const ramp = [{ durationMs: 1000, rate: 600 }];
  const rampShards = [0, 1, 2].map((k) => new RateSchedule(0, ramp.map((r) => ({ ...r, rate: r.rate / 3 })), k / 3));
  t.equal(sum(rampShards.map((s) => s.countBefore(1000))), new RateSchedule(0, ramp).countBefore(1000), 'a ramp splits exactly too');
});
