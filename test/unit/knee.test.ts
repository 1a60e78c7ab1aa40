import t from 'tap';
import { highest, kneedle, stoppedGaining } from '../../src/capacity/knee.js';
import { planSweep } from '../../src/capacity/sweep-options.js';
import type { SweepOptions } from '../../src/capacity/sweep-types.js';

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
