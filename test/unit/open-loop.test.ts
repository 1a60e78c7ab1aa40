// runner/open-loop.ts over a fake protocol: due slots go to free lanes in order, a slot that finds
// every lane busy waits while answers come, is missed while nothing succeeds (the outage rule), and
// at the end only the slots due in the last millisecond are sent.
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { planLoad } from '../../src/options.js';
import { ClosedLoop } from '../../src/runner/closed-loop.js';
import type { Measuring } from '../../src/runner/measuring.js';
import { OpenLoop, type OpenLoopLane } from '../../src/runner/open-loop.js';
import { planSchedule } from '../../src/runner/schedule.js';

const url = 'http://127.0.0.1:9/';

function setUp(t: { teardown(fn: () => void): void }, options: { rate: number; amount?: number }, lanes: number) {
  const { plan } = planLoad({ url, connections: lanes, ...options });
  let stops = 0;
  const loop = new ClosedLoop<OpenLoopLane>(plan, { parked() {}, resume() {}, stop: () => stops++ });
  const sent: Array<{ lane: number; slotAt: number }> = [];
  const open = new OpenLoop<OpenLoopLane>(planSchedule(plan)!, lanes, loop, {
    send(lane, intendedAt) {
      sent.push({ lane: lane.connection, slotAt: intendedAt });
      loop.sent++;
      loop.inFlight++;
    },
    stop: () => stops++,
  });
  const all = Array.from({ length: lanes }, (_, connection): OpenLoopLane => ({ connection, freedAt: 0, measured: true }));
  const begin = async (startAt: number) => {
    await open.ready();
    open.begin({ startAt, measureAt: startAt, endAt: Infinity, monitor: { recordSendLag() {} } } as unknown as Measuring);
  };
  t.teardown(() => open.halt(performance.now(), 0));
  return { loop, open, sent, lanes: all, begin, stops: () => stops };
}

t.test('due slots take the free lanes in order; with every lane busy the slot waits for an answer', async (t) => {
  const run = setUp(t, { rate: 1000, amount: 20 }, 3);
  const startAt = performance.now() - 1000; // every slot is due
  await run.begin(startAt);
  run.open.start(run.lanes);
  t.same(run.sent.map((s) => s.lane), [0, 1, 2], 'three lanes, three slots; the fourth waits');
  t.same(run.sent.map((s) => s.slotAt - startAt), [0, 1, 2], 'each slot at its own time on the schedule');
  t.equal(run.loop.skipped, 0, 'nothing missed while answers may come');
  run.loop.inFlight--;
  run.open.free(run.lanes[1]!, performance.now());
  t.same(run.sent.map((s) => s.lane), [0, 1, 2, 1], 'the freed lane takes slot 3');
  t.equal(run.sent[3]!.slotAt - startAt, 3);
});

t.test('the outage rule: no lane free and nothing succeeding, the due slots are missed, not kept for a burst', async (t) => {
  const run = setUp(t, { rate: 1000, amount: 20 }, 3);
  await run.begin(performance.now() - 1000);
  run.open.start(run.lanes);
  run.open.failing = true;
  run.loop.inFlight--;
  run.open.free(run.lanes[0]!, performance.now());
  t.equal(run.loop.sent, 4, 'the freed lane took one slot');
  t.equal(run.loop.skipped, 16, 'the other 16 of amount 20 were missed');
  t.ok(run.loop.amountReached());
  t.equal(run.stops(), 0, 'not stopped while 4 are in flight');
});

t.test('halt sends the slots due in the last millisecond only; earlier ones stay missed', async (t) => {
  const last = setUp(t, { rate: 1000 }, 2);
  const startAt = performance.now() + 10_000; // nothing due yet
  await last.begin(startAt);
  last.open.start(last.lanes);
  t.equal(last.sent.length, 0);
  t.equal(last.open.halt(performance.now(), startAt + 0.5), 0, 'slot 0, due in the last millisecond, is sent: none missed');
  t.same(last.sent.map((s) => s.slotAt - startAt), [0]);

  const earlier = setUp(t, { rate: 1000 }, 2);
  const at = performance.now() + 10_000;
  await earlier.begin(at);
  earlier.open.start(earlier.lanes);
  t.equal(earlier.open.halt(performance.now(), at + 2.5), 3, 'slots 0, 1 and 2 were due before the end: 0 and 1 are not in the last millisecond, so all three are missed');
  t.equal(earlier.sent.length, 0);
});
