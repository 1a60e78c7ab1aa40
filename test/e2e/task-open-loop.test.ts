// A task run's open loop is HTTP's (runner/open-loop.ts): the call slot freed longest ago takes the
// next call, and the calls due in the run's last millisecond are made at the end, not missed.
import t from 'tap';
import { runLoad, type TaskContext } from '../../src/index.js';
import { inSomeRun } from '../fixtures/timing.js';

t.test('open loop: each call goes to the slot freed longest ago, so the calls go round every slot', async (t) => {
  const calls: Array<[number, number]> = [];
  const result = await runLoad({ task: async (ctx: TaskContext) => void calls.push([ctx.slot, ctx.iteration]), concurrency: 4, rate: 400, amount: 40, warmup: 0 });
  t.equal(result.requests.sent, 40);
  t.equal(result.requests.completed, 40);
  // Every call settles long before the next is due: slot 0, 1, 2, 3, 0, ... each counting its own iterations.
  t.same(
    calls,
    calls.map((_, index) => [index % 4, Math.floor(index / 4)]),
    'calls (slot, iteration) in order: round the slots',
  );
});

t.test('open loop: the call due in the last millisecond is made at the end (unfinished), not missed', async (t) => {
  await inSomeRun(t, 3, async (timing) => {
    // 10 calls/s for 901 ms: the tenth is due at 900 ms, in the run's last millisecond. The event
    // loop is held from 840 ms to past the end, so the end comes before that call's wake-up could.
    const slots: number[] = [];
    let firstAt = 0;
    const task = async (ctx: TaskContext): Promise<void> => {
      slots.push(ctx.slot);
      if (slots.length !== 1) return;
      firstAt = performance.now();
      setTimeout(() => {
        while (performance.now() < firstAt + 910);
      }, 840);
    };
    const result = await runLoad({ task, concurrency: 2, rate: 10, duration: 901, warmup: 0 });
    t.equal(result.requests.sent + result.requests.missed, 10, 'every slot sent or missed');
    t.equal(slots.length, result.requests.sent, 'each call made is in sent');
    timing.ok(result.requests.sent === 10 && result.requests.missed === 0, `10 calls made (${result.requests.sent}), none missed (${result.requests.missed})`);
    timing.ok(result.requests.unfinished === 1 && result.requests.completed === 9, `the last call unfinished (${result.requests.unfinished}), 9 completed (${result.requests.completed})`);
    timing.ok(slots.join() === '0,1,0,1,0,1,0,1,0,1', `the calls alternate between the two slots: ${slots.join()}`);
  });
});
