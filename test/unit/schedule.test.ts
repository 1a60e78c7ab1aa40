import t from 'tap';
import { RateSchedule } from '../../src/runner/schedule.js';

const close = (actual: number, expected: number, tolerance = 1e-6) => Math.abs(actual - expected) <= tolerance;

t.test('a constant rate: slot i at i / rate, nothing else', async (t) => {
  const schedule = new RateSchedule(2000, []);
  t.equal(schedule.timeOf(0), 0);
  t.ok(close(schedule.timeOf(1), 0.5));
  t.ok(close(schedule.timeOf(3999), 1999.5));
  t.ok(close(schedule.timeOf(2_000_000), 1_000_000), 'no drift over a long run');
  t.equal(schedule.countBefore(0), 0);
  t.equal(schedule.countBefore(0.25), 1, 'slot 0 is due at 0, so it is before 0.25');
  t.equal(schedule.countBefore(1000), 2000, 'strictly before: slot 2000 is due at 1000 itself');
  t.equal(schedule.countBefore(1000.001), 2001);
  t.equal(schedule.rateAt(12_345), 2000);
});

t.test('timeOf and countBefore are inverses', async (t) => {
  const schedules: Array<[string, RateSchedule]> = [
    ['constant 1000/s', new RateSchedule(1000, [])],
    ['constant 7/s, phase 0.4', new RateSchedule(7, [], 0.4)],
    ['ramp 100 -> 1000 over 3 s', new RateSchedule(100, [{ durationMs: 3000, rate: 1000 }])],
    ['ramp down 900 -> 0, then up', new RateSchedule(900, [{ durationMs: 500, rate: 0 }, { durationMs: 500, rate: 0 }, { durationMs: 700, rate: 333 }])],
    ['from 0, three stages, phase 2/3', new RateSchedule(0, [{ durationMs: 1000, rate: 600 }, { durationMs: 250, rate: 600 }, { durationMs: 2000, rate: 50 }], 2 / 3)],
  ];
  for (const [label, schedule] of schedules) {
    let previous = -Infinity;
    let failures = 0;
    const slots = schedule.countBefore(4000);
    for (let slot = 0; slot < slots; slot++) {
      const at = schedule.timeOf(slot);
      if (!(at >= previous)) failures++;
      if (schedule.countBefore(at) !== slot) failures++;
      if (schedule.countBefore(at + 0.01) < slot + 1) failures++;
      previous = at;
    }
    t.equal(failures, 0, `${label}: ${slots} slots in order, each counted from its own time on`);
    // Asked out of order, as the timeline does, the answers stay the same.
    t.equal(schedule.countBefore(schedule.timeOf(Math.floor(slots / 2))), Math.floor(slots / 2), `${label}: out of order`);
  }
});

t.test('a linear ramp follows the integral of the rate', async (t) => {
  // 100/s rising to 1000/s over 3 s: 250 + 550 + 850 slots in its three seconds, 1650 in all.
  const schedule = new RateSchedule(100, [{ durationMs: 3000, rate: 1000 }]);
  t.same([1000, 2000, 3000].map((ms) => schedule.countBefore(ms)), [250, 800, 1650]);
  t.equal(schedule.rateAt(1500), 550);
  t.equal(schedule.rateAt(3000), 1000);
  t.equal(schedule.countBefore(4000), 2650, 'the last rate holds after the last stage');
  // The gap between neighbouring slots is 1 / rate at that moment: smooth, with no step per second.
  for (const ms of [10, 999, 1001, 2500]) {
    const slot = schedule.countBefore(ms);
    const [from, to] = [schedule.timeOf(slot), schedule.timeOf(slot + 1)];
    const expected = 1000 / schedule.rateAt((from + to) / 2);
    t.ok(close(to - from, expected, expected * 1e-3), `gap near ${ms} ms: ${(to - from).toFixed(4)} ms, 1 / rate is ${expected.toFixed(4)}`);
  }
});

t.test('a ramp that starts from zero', async (t) => {
  // 0 -> 600/s over 1 s: the integral is 300 t^2 (t in s), so slot i is due at sqrt(i / 300) s.
  const schedule = new RateSchedule(0, [{ durationMs: 1000, rate: 600 }]);
  t.equal(schedule.timeOf(0), 0, 'the first slot goes at the start');
  t.ok(close(schedule.timeOf(3), Math.sqrt(3 / 300) * 1000), `slot 3 at ${schedule.timeOf(3)} ms`);
  t.ok(close(schedule.timeOf(75), 500), 'a quarter of the slots by half time');
  t.ok(close(schedule.timeOf(300), 1000), 'the stage ends exactly on slot 300');
  t.ok(close(schedule.timeOf(306), 1010), 'then 600/s');
  t.equal(schedule.countBefore(500), 75);
  t.equal(schedule.rateAt(250), 150);
});

t.test('a zero rate sends nothing, and the schedule ends where the rate does', async (t) => {
  const idle = new RateSchedule(0, []);
  t.equal(idle.timeOf(0), Infinity);
  t.equal(idle.countBefore(60_000), 0);

  // 100/s for 1 s, down to 0 over 1 s (50 more slots), 1 s at 0, then back up to 100/s over 1 s.
  const gap = new RateSchedule(100, [
    { durationMs: 1000, rate: 100 },
    { durationMs: 1000, rate: 0 },
    { durationMs: 1000, rate: 0 },
    { durationMs: 1000, rate: 100 },
  ]);
  t.equal(gap.countBefore(2000), 150);
  t.equal(gap.countBefore(2999), 150, 'nothing while the rate is 0');
  t.ok(gap.timeOf(149) < 2000, 'the last slot of the ramp down comes before it ends');
  t.ok(gap.timeOf(150) >= 3000, 'the next one waits for the rate to rise again');
  t.ok(close(gap.timeOf(150), 3000), 'and goes as soon as it does');

  const stops = new RateSchedule(100, [{ durationMs: 1000, rate: 0 }]);
  t.equal(stops.countBefore(1000), 50);
  // The integral is 100 t - 50 t^2 (t in s): it reaches 49 at t = 1 - sqrt(200) / 100.
  t.ok(close(stops.timeOf(49), 1000 - Math.sqrt(200) * 10), 'the last slot before the rate reaches 0');
  t.equal(stops.timeOf(50), Infinity, 'a schedule ending at rate 0 has no further slots');
  t.equal(stops.countBefore(1e9), 50);
});

t.test('phase shifts every slot by the same fraction of a gap', async (t) => {
  const whole = new RateSchedule(1000, []);
  const shifted = new RateSchedule(500, [], 0.5);
  const even = new RateSchedule(500, [], 0);
  // Two shards at half the rate, one half a gap later, together make the whole schedule.
  const merged = [...Array.from({ length: 50 }, (_, i) => even.timeOf(i)), ...Array.from({ length: 50 }, (_, i) => shifted.timeOf(i))].sort((a, b) => a - b);
  t.ok(merged.every((at, i) => close(at, whole.timeOf(i))), 'interleaved, each slot at i / 1000 s');
  t.ok(close(shifted.timeOf(0), 1), 'slot 0 of the shifted shard is due at 1 ms');
  t.equal(shifted.countBefore(1), 0);
  t.equal(shifted.countBefore(1.001), 1);
});

t.test('holdFrom (startLoad.setRate): the rate changes from that moment, with no slot added or lost and no catch-up', async (t) => {
  const schedule = new RateSchedule(1000, []);
  t.equal(schedule.timeOf(1500), 1500, 'slot 1500 due at 1.5 s at 1,000/s');
  schedule.holdFrom(2000.25, 3000);
  t.equal(schedule.timeOf(1999), 1999, 'slots before the change keep their times');
  t.equal(schedule.timeOf(2000), 2000, 'slot 2000 was due at 2 s, before the change');
  t.ok(close(schedule.timeOf(2001), 2000.25 + 0.75 / 3), 'the next slot comes 0.75 slot on, at the new spacing: no burst');
  t.ok(close(schedule.timeOf(2001 + 3000), 3000.25 + 0.75 / 3), 'then 3,000 a second');
  t.equal(schedule.countBefore(3000.25) - schedule.countBefore(2000.25), 3000, 'a second at the new rate holds 3,000 slots');
  t.equal(schedule.rateAt(1000), 1000);
  t.equal(schedule.rateAt(5000), 3000);
  schedule.holdFrom(4000, 500);
  t.equal(schedule.countBefore(5000) - schedule.countBefore(4000), 500, 'and down again');
  const next = schedule.countBefore(4000);
  t.ok(schedule.timeOf(next) >= 4000 && schedule.timeOf(next) < 4002, 'the first slot after it comes within one new spacing');
});

t.test('holdFrom in a ramp: the stages after it are dropped, the integral stays continuous', async (t) => {
  const schedule = new RateSchedule(0, [{ durationMs: 2000, rate: 2000 }, { durationMs: 2000, rate: 2000 }], 0.5);
  const before = schedule.countBefore(1000);
  t.equal(before, 500, 'a ramp 0 -> 2,000/s has 500 slots in its first second');
  schedule.holdFrom(1000, 100);
  t.equal(schedule.countBefore(1000), before, 'nothing before the change moves');
  t.equal(schedule.countBefore(11_000) - schedule.countBefore(1000), 1000, 'then 100/s for ever: the later stages are gone');
  t.equal(schedule.rateAt(500), 500, 'the ramp up to the change is kept');
  const zero = new RateSchedule(1000, []);
  zero.holdFrom(0, 0);
  t.equal(zero.timeOf(0), Infinity, 'a rate of 0 from the start: nothing is ever due');
  zero.holdFrom(1000, 10);
  t.ok(close(zero.timeOf(0), 1000), 'from 10/s at 1 s the first slot is due at once');
});
