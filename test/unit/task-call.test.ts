// tasks/call.ts over a fake runner: a call slot's context: settling reported once (late after it was
// given up), steps and checks counted only for measured calls, the signal aborted on abandon, marks
// timed from the last mark.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { TaskCall, type CallOwner } from '../../src/tasks/call.js';
import type { Step } from '../../src/tasks/steps.js';

function owner(stepEndsInTime = true) {
  const seen = { settled: [] as Array<[boolean, unknown]>, late: 0, started: [] as string[], ended: [] as Array<[string, number, number, boolean]>, checks: [] as Array<[string, boolean, string | undefined]> };
  const o: CallOwner = {
    settled: (_call, failed, error) => seen.settled.push([failed, error]),
    settledLate: () => seen.late++,
    stepStarted: (name) => (seen.started.push(name), { name } as unknown as Step),
    stepEnded: (step, ms, lateMs, failed) => (seen.ended.push([(step as unknown as { name: string }).name, ms, lateMs, failed]), stepEndsInTime),
    check: (name, passed, message) => seen.checks.push([name, passed, message]),
  };
  return { seen, o };
}

t.test('settling: fulfilled and rejected reported; after abandon only as late', async (t) => {
  const { seen, o } = owner();
  const call = new TaskCall(3, { s: 1 }, o);
  call.begin(0, true, performance.now(), 0);
  call.onFulfilled();
  const boom = new Error('boom');
  call.onRejected(boom);
  t.same(seen.settled, [[false, undefined], [true, boom]]);
  const signal = call.signal;
  t.notOk(signal.aborted);
  call.abandon('TIMEOUT');
  t.ok(signal.aborted, 'the signal a call read aborts when it is given up');
  t.equal(signal.reason, 'TIMEOUT');
  call.onFulfilled();
  call.onRejected(boom);
  t.equal(seen.late, 2);
  t.equal(seen.settled.length, 2, 'nothing more settled in time');
  t.ok(new TaskCall(0, undefined, o).signal instanceof AbortSignal);
  const abandoned = new TaskCall(1, undefined, o);
  abandoned.abandon('END');
  t.ok(abandoned.signal.aborted, 'a signal read after abandon is aborted already');
  t.same([call.slot, call.state], [3, { s: 1 }]);
});

t.test('measure: a step of a measured call, its lateness counted; errors rethrown; open until it ends', async (t) => {
  const { seen, o } = owner();
  const call = new TaskCall(0, undefined, o);
  call.begin(7, true, performance.now(), 4);
  t.equal(call.iteration, 7);
  t.equal(await call.measure('db', async () => { await sleep(5); return 42; }), 42);
  await t.rejects(call.measure('pay', () => { throw new Error('declined'); }), { message: 'declined' });
  t.same(seen.ended.map(([name, , lateMs, failed]) => [name, lateMs, failed]), [['db', 4, false], ['pay', 4, true]]);
  t.ok(seen.ended[0]![1] >= 4, `the step took its ${seen.ended[0]![1].toFixed(1)} ms`);
  t.same(call.openSteps, [], 'both ended in time');
  const warmup = owner();
  const cold = new TaskCall(0, undefined, warmup.o);
  cold.begin(0, false, performance.now(), 0);
  await cold.measure('db', () => 1);
  cold.check('ok', false, 'no');
  cold.mark('x');
  t.same([warmup.seen.started, warmup.seen.checks], [[], []], 'a warm-up call counts no step and no check');
});

t.test('a step ending after the run stays open, to be counted unfinished; begin clears it', async (t) => {
  const { o } = owner(false);
  const call = new TaskCall(0, undefined, o);
  call.begin(0, true, performance.now(), 0);
  await call.measure('slow', () => 1);
  t.equal(call.openSteps.length, 1);
  call.begin(1, true, performance.now(), 0);
  t.equal(call.openSteps.length, 0);
});

t.test('mark: the time since the call began or the last mark; check returns its verdict', async (t) => {
  const { seen, o } = owner();
  const call = new TaskCall(0, undefined, o);
  call.begin(0, true, performance.now(), 2);
  await sleep(100);
  call.mark('first');
  call.mark('second');
  t.same(seen.ended.map(([name, , late]) => [name, late]), [['first', 2], ['second', 2]]);
  t.ok(seen.ended[0]![1] >= 95, `first mark ${seen.ended[0]![1].toFixed(1)} ms after begin`);
  t.ok(seen.ended[1]![1] < seen.ended[0]![1], 'the second counts from the first');
  t.equal(call.check('status', false, 'was 500'), false);
  t.equal(call.check('body', true), true);
  t.same(seen.checks, [['status', false, 'was 500'], ['body', true, undefined]]);
});
