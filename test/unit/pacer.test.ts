// The open-loop pacer on its own: it wakes the loop when a slot is due, never before, and not while paused.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { Pacer } from '../../src/runner/pacer.js';

const GAP_MS = 20;

// The pacer's thread does not keep the process alive (the engine's sockets and timers do): this does here.
const keepAlive = setInterval(() => {}, 1000);
t.teardown(() => clearInterval(keepAlive));
const SLOTS = 5;

t.test('wakes when slots fall due, never before; the loop takes every slot exactly once', async (t) => {
  const base = performance.now() + 30;
  const dueAt = (slot: number) => (slot < SLOTS ? base + slot * GAP_MS : Infinity);
  let next = 0;
  const wakes: Array<{ at: number; firstDue: number; took: number }> = [];
  let finished!: () => void;
  const allTaken = new Promise<void>((resolve) => (finished = resolve));
  // As the engine does: on each wake, take every slot due by now, then say which slot comes next.
  const pacer = new Pacer(() => {
    const at = performance.now();
    const firstDue = dueAt(next);
    let took = 0;
    while (dueAt(next) <= at) {
      next++;
      took++;
    }
    wakes.push({ at, firstDue, took });
    if (next === SLOTS) finished();
    pacer.waitFor(next, dueAt);
  });
  t.teardown(() => pacer.close());
  await pacer.ready();
  pacer.waitFor(0, dueAt);
  await allTaken;
  await sleep(3 * GAP_MS);
  t.equal(next, SLOTS, 'every slot taken');
  t.equal(wakes.reduce((sum, wake) => sum + wake.took, 0), SLOTS, 'each once');
  t.ok(wakes.length >= 1 && wakes.length <= SLOTS, `${wakes.length} wake-ups for ${SLOTS} slots (fewer when the loop was held up)`);
  // The thread's clock is the loop's plus a constant delta: allow for float rounding only.
  t.ok(wakes.every((wake) => wake.at >= wake.firstDue - 0.001), 'no wake-up before the slot it was for was due');
  t.ok(wakes.every((wake) => wake.took >= 1), 'no wake-up with nothing due');
});

t.test('paused: no wake-up, however due the slot; waitFor starts it again', async (t) => {
  let wakes = 0;
  const pacer = new Pacer(() => {
    wakes++;
    pacer.pause();
  });
  t.teardown(() => pacer.close());
  await pacer.ready();
  const due = performance.now() + 10;
  pacer.waitFor(0, (slot) => (slot === 0 ? due : Infinity));
  pacer.pause();
  await sleep(100);
  t.equal(wakes, 0, 'paused before the slot was due: nothing');
  pacer.waitFor(0, (slot) => (slot === 0 ? due : Infinity));
  for (let waited = 0; wakes === 0 && waited < 5000; waited += 10) await sleep(10);
  t.equal(wakes, 1, 'waiting again for the (now past) slot: one wake-up');
  await sleep(50);
  t.equal(wakes, 1, 'and no more');
});

t.test('a closed pacer leaves its thread to the next one, which starts from slot 0 and hears nothing meant for the first', async (t) => {
  let firstWakes = 0;
  const first = new Pacer(() => firstWakes++);
  await first.ready();
  const start = performance.now();
  // Slots of the first are due now: its wake-up may be posted before it closes, and must be dropped.
  first.waitFor(0, (slot) => start + slot);
  first.close();
  const wokenBeforeClose = firstWakes;
  const base = performance.now() + 20;
  const dueAt = (slot: number) => (slot < SLOTS ? base + slot * GAP_MS : Infinity);
  let next = 0;
  let finished!: () => void;
  const allTaken = new Promise<void>((resolve) => (finished = resolve));
  const second = new Pacer(() => {
    while (dueAt(next) <= performance.now()) next++;
    if (next === SLOTS) finished();
    second.waitFor(next, dueAt);
  });
  t.teardown(() => second.close());
  const readyAt = performance.now();
  await second.ready();
  t.ok(performance.now() - readyAt < 5, 'the thread is running already');
  second.waitFor(0, dueAt);
  await allTaken;
  t.equal(next, SLOTS, 'the second pacer took all of its slots, from slot 0');
  t.equal(firstWakes, wokenBeforeClose, 'the first heard nothing after it closed');
});
