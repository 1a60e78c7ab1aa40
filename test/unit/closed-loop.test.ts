// runner/closed-loop.ts: what counts toward amount (sent and skipped), when a slot may send (not
// stopped, not above a ramp's target, not past amount), and the ramp that parks and brings back slots.
import t from 'tap';
import { planLoad } from '../../src/options.js';
import { AmountCounter, ClosedLoop, type LoopSlot } from '../../src/runner/closed-loop.js';

const url = 'http://127.0.0.1:9/';
const owner = () => {
  const seen = { parked: [] as number[], resumed: [] as number[], stops: 0 };
  return { seen, owner: { parked: (slot: LoopSlot) => seen.parked.push(slot.connection), resume: (slot: LoopSlot) => seen.resumed.push(slot.connection), stop: () => seen.stops++ } };
};

t.test('AmountCounter: sent and skipped both count toward amount; none without one', async (t) => {
  const counter = new AmountCounter(10);
  counter.sent = 7;
  t.notOk(counter.amountReached());
  counter.skipped = 3;
  t.ok(counter.amountReached(), '7 sent + 3 given up is the amount');
  const endless = new AmountCounter(undefined);
  endless.sent = 1e9;
  t.notOk(endless.amountReached());
});

t.test('admits until amount; the run stops when the last answer is in', async (t) => {
  const { seen, owner: o } = owner();
  const loop = new ClosedLoop(planLoad({ url, connections: 2, amount: 5 }).plan, o);
  const slot = { connection: 0 };
  let admitted = 0;
  while (loop.admits(slot)) {
    admitted++;
    loop.sent++;
    loop.inFlight++;
  }
  t.equal(admitted, 5, 'exactly amount sends admitted');
  t.equal(seen.stops, 0, 'not stopped while 5 are in flight');
  loop.inFlight = 0;
  t.ok(loop.done());
  t.equal(seen.stops, 1, 'stopped once nothing is in flight');
  t.notOk(new ClosedLoop(planLoad({ url, connections: 2 }).plan, o).done(), 'no amount: never done');
});

t.test('a ramp parks the slots above its target and brings them back as it climbs', async (t) => {
  const { seen, owner: o } = owner();
  const { plan } = planLoad({ url, connections: 1, stages: [{ duration: '1s', connections: 1 }, { duration: '1s', connections: 3 }, { duration: '1s', connections: 3 }] });
  const loop = new ClosedLoop(plan, o);
  t.equal(loop.active, 1);
  const slots = [0, 1, 2].map((connection) => ({ connection }));
  t.same(slots.map((slot) => loop.admits(slot)), [true, false, false], 'only connection 0 sends at first');
  t.same(seen.parked, [1, 2]);
  loop.ramp(500, 1000);
  t.equal(loop.active, 1, 'before measuring starts nothing moves');
  loop.ramp(1000 + 2000, 1000);
  t.equal(loop.active, 3, 'two seconds in, the second stage has reached 3');
  t.same(seen.resumed.sort(), [1, 2], 'both parked slots brought back');
  t.same(slots.map((slot) => loop.admits(slot)), [true, true, true]);
  loop.stopped = true;
  t.notOk(loop.admits(slots[0]!), 'nothing once stopped');
});
