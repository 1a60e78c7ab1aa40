// The loop toolkit's shared pieces (runner/ramp.ts, runner/closed-loop.ts): one connection ramp and
// one amount counter for the HTTP engine, the task runner, the WebSocket runner and SSE subscriptions.
import t from 'tap';
import { planLoad } from '../../src/options.js';
import { AmountCounter } from '../../src/runner/closed-loop.js';
import { ConnectionRamp, connectionTarget } from '../../src/runner/ramp.js';

t.test('connectionTarget: linear toward each stage, held after the last', async (t) => {
  const stages = [{ durationMs: 1000, connections: 10 }, { durationMs: 1000, connections: 2 }];
  t.same([0, 500, 1000, 1500, 2000, 5000].map((ms) => connectionTarget(stages, 0, ms)), [0, 5, 10, 6, 2, 2]);
});

t.test('ConnectionRamp: steps only when the target moves, and only once measuring', async (t) => {
  const { plan } = planLoad({ url: 'http://127.0.0.1:1/', connections: 2, stages: [{ duration: 1000, connections: 10 }] });
  const ramp = new ConnectionRamp(plan);
  t.equal(ramp.active, 2);
  t.equal(ramp.step(100, 200), undefined, 'not before measuring starts');
  t.equal(ramp.step(700, 200), 2, 'half way: the count it moved from');
  t.equal(ramp.active, 6);
  t.equal(ramp.step(700, 200), undefined, 'no move, no step');
  t.equal(ramp.step(5000, 200), 6);
  t.equal(ramp.active, 10);
  const fixed = new ConnectionRamp(planLoad({ url: 'http://127.0.0.1:1/', connections: 3 }).plan);
  t.equal(fixed.step(5000, 0), undefined, 'no connection stages, no ramp');
  t.equal(fixed.active, 3);
});

t.test('AmountCounter: sent and given up count alike; no amount is never reached', async (t) => {
  const counter = new AmountCounter(3);
  counter.sent = 2;
  t.notOk(counter.amountReached());
  counter.skipped = 1;
  t.ok(counter.amountReached());
  const endless = new AmountCounter(undefined);
  endless.sent = 1e9;
  t.notOk(endless.amountReached());
});
