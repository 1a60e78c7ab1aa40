import t from 'tap';
import { highest, kneedle, stoppedGaining } from '../../src/capacity/knee.js';
import { planSweep } from '../../src/capacity/sweep-options.js';
import type { SweepOptions, SweepPoint } from '../../src/capacity/sweep-types.js';
import { summariseSweep } from '../../src/capacity/sweep.js';

t.test('kneedle: the point furthest above the diagonal of the scaled curve', async (t) => {
  t.equal(kneedle([100, 200, 300, 400], [100, 200, 300, 350]), 2, 'a rate sweep saturating past 300');
  t.equal(kneedle([100, 200, 300, 400, 500], [100, 200, 300, 360, 350]), 2, 'throughput falling past the top');
  t.equal(kneedle([1, 2, 4, 8], [100, 200, 390, 400]), 2, 'connections: 4 fill the server');
  t.equal(kneedle([1, 2, 3], [10, 20, 30]), undefined, 'a straight line has no bend');
  t.equal(kneedle([1, 2], [10, 15]), undefined, 'two points have no bend');
  t.equal(kneedle([1, 2, 3], [5, 5, 5]), undefined, 'a flat curve has no bend');
});

t.test('stoppedGaining: throughput up by less than half the connections\' rise', async (t) => {
  t.equal(stoppedGaining(4, 390, 8, 400), true);
  t.equal(stoppedGaining(2, 200, 4, 390), false);
  t.equal(stoppedGaining(10, 1000, 11, 1090), false, 'a 10% step that gained 9%');
  t.equal(stoppedGaining(10, 1000, 11, 1040), true, 'a 10% step that gained 4%');
  t.equal(highest([undefined, 3, 7, 7, 2]), 2, 'the earlier of two equal goodputs');
  t.equal(highest([0, 0]), undefined);
});

t.test('planSweep: loads and options checked by name before anything runs', async (t) => {
  const url = 'http://127.0.0.1:9/';
  const plan = (sweep: unknown, more: Partial<SweepOptions> = {}) => planSweep({ url, sweep: sweep as SweepOptions['sweep'], ...more });
  t.same((await plan({ from: 100, to: 400, steps: 4 })).loads, [100, 200, 300, 400]);
  t.equal((await plan({ from: 1, to: 16, steps: 4, over: 'connections' })).over, 'connections');
  t.same((await plan({ connections: [1, 2, 4] })).loads, [1, 2, 4]);
  await t.rejects(plan({ rates: [200, 100] }), { option: 'sweep', message: /must rise/ });
  await t.rejects(plan({ rates: [100, 2.5] }), { option: 'sweep.rates[1]', message: /whole number/ });
  await t.rejects(plan({ rates: [] }), { option: 'sweep.rates', message: /non-empty/ });
  await t.rejects(plan({ rates: [1], connections: [2] }), { option: 'sweep', message: /one of/ });
  await t.rejects(plan({ from: 1, to: 10, steps: 1 }), { option: 'sweep.steps', message: /at least 2 steps/ });
  await t.rejects(plan({ connections: [1, 2] }, { connections: 5 }), { option: 'connections', message: /sweep\.connections sets them/ });
  await t.rejects(plan({ rates: [10] }, { rate: 5 } as never), { option: 'rate', message: /cannot be given to sweep/ });
  await t.rejects(plan({ rates: [10] }, { stepDuration: 'soon' }), { option: 'stepDuration', message: /stepDuration/ });
  await t.rejects(plan({ connections: [1, 2] }, { arrivals: 'poisson' }), { option: 'arrivals', message: /give rate/ });
});

t.test('summariseSweep: the knee by goodput or Kneedle, where it saturated, and why in words', async (t) => {
  const point = (load: number, throughput: number, more: Partial<SweepPoint> = {}): SweepPoint =>
    ({ load, throughput, sentRate: load, p50: 1, p90: 2, p99: 3, errorRate: 0, saturated: false, result: {} as SweepPoint['result'], ...more });
  const plan = { url: 'http://127.0.0.1:9/', over: 'rate' as const, loads: [100, 200, 300, 400, 500] };
  const kneedled = summariseSweep(plan, [point(100, 100), point(200, 200), point(300, 300), point(400, 350, { saturated: true, why: 'completed 350.0/s, under 90% of the target', limitedBy: 'server' })], false, 1);
  t.equal(kneedled.knee, 2);
  t.equal(kneedled.kneeMethod, 'kneedle');
  t.equal(kneedled.saturatedAt, 400);
  t.match(kneedled.message, /^Knee at 300 req\/s \(throughput 300\.0\/s, p99 3\.00 ms\)\. The server saturated at 400 req\/s: completed 350/);
  const byGoodput = summariseSweep(plan, [point(100, 100, { goodput: 90 }), point(200, 200, { goodput: 150 }), point(300, 300, { goodput: 120 })], false, 1);
  t.equal(byGoodput.knee, 1, 'the highest goodput, though throughput still rose');
  t.equal(byGoodput.kneeMethod, 'goodput');
  const keptUp = summariseSweep(plan, [point(100, 100), point(200, 200)], false, 1);
  t.equal(keptUp.knee, undefined);
  t.match(keptUp.message, /kept up with every load up to 500 req\/s: the knee is beyond it/);
  const twoPoints = summariseSweep(plan, [point(100, 100), point(200, 150, { saturated: true, why: 'x', limitedBy: 'connections' })], false, 1);
  t.equal(twoPoints.knee, 0, 'two points have no bend: the one that kept up');
  t.match(twoPoints.message, /limited by the connections \(give more\), not the server/);
  t.equal(summariseSweep(plan, [point(100, 50, { saturated: true, why: 'x' })], false, 1).knee, undefined, 'saturated from the first load');
  t.match(summariseSweep(plan, [point(100, 100)], true, 1).message, /Aborted after 1 of 5 points/);
});
