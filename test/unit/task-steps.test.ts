// tasks/steps.ts: a task's named steps (ctx.measure), one recorder per name: sent when started,
// latency corrected for a late call, errors by code, unfinished at the end, each second's part.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { decodeHistogram } from '../../src/stats/histogram.js';
import { StepRecorder } from '../../src/tasks/steps.js';

t.test('each name its own stats: sent at start, corrected and uncorrected latency, errors, unfinished', async (t) => {
  const steps = new StepRecorder(false);
  const start = performance.now();
  steps.start(start, start + 60_000);
  for (let i = 0; i < 3; i++) t.ok(steps.ended(steps.started('login', performance.now())!, 10, 5, undefined));
  const open = steps.started('login', performance.now())!;
  steps.ended(steps.started('pay', performance.now())!, 2, 0, 'TASK_FAILED');
  steps.failed(steps.started('pay', performance.now())!, 'TIMEOUT', performance.now());
  steps.unfinished(open);
  const stats = steps.finish(performance.now(), 1000, false)!;
  t.same(Object.keys(stats), ['login', 'pay'], 'in the order first seen');
  const login = stats.login!;
  t.same({ sent: login.sent, completed: login.completed, errors: login.errors, unfinished: login.unfinished }, { sent: 4, completed: 3, errors: 0, unfinished: 1 });
  const corrected = decodeHistogram(login.histogram).getValueAtPercentile(50) / 1000;
  const uncorrected = decodeHistogram(login.histogramUncorrected).getValueAtPercentile(50) / 1000;
  t.ok(Math.abs(corrected - 15) < 0.05, `corrected p50 ${corrected} ms: 10 ms taken + 5 ms late`);
  t.ok(Math.abs(uncorrected - 10) < 0.05, `uncorrected p50 ${uncorrected} ms`);
  const pay = stats.pay!;
  t.same({ sent: pay.sent, completed: pay.completed, errors: pay.errors, byCode: pay.errorsByCode }, { sent: 2, completed: 0, errors: 2, byCode: { TASK_FAILED: 1, TIMEOUT: 1 } });
  t.equal(new StepRecorder(false).finish(performance.now(), 1000, false), undefined, 'no step measured: no stats');
});

t.test('the run’s end: no step starts at or after it, and one ending after it stays in flight', async (t) => {
  const steps = new StepRecorder(false);
  const start = performance.now();
  steps.start(start, start + 40);
  const step = steps.started('slow', performance.now())!;
  t.ok(step);
  await sleep(60);
  t.notOk(steps.ended(step, 60, 0, undefined), 'ended after the end: not completed');
  t.equal(steps.started('slow', performance.now()), undefined);
  const stats = steps.finish(performance.now(), 40, false)!.slow!;
  t.same({ sent: stats.sent, completed: stats.completed }, { sent: 1, completed: 0 });
});

t.test('second(): each name’s part of a closed second, only when live', async (t) => {
  const steps = new StepRecorder(true);
  const measureAt = performance.now() - 3_500;
  steps.start(measureAt, measureAt + 60_000);
  for (let i = 0; i < 4; i++) steps.ended(steps.started('a', performance.now())!, 1, 0, undefined);
  steps.ended(steps.started('b', performance.now())!, 1, 0, 'X');
  // Summed over the seconds the records fell in (one, unless the host stalled across a second's end).
  const last = Math.floor((performance.now() - measureAt) / 1000);
  const sum = { a: { sent: 0, completed: 0, errors: 0, count: 0 }, b: { sent: 0, completed: 0, errors: 0, count: 0 } };
  for (let second = 3; second <= last; second++) {
    const parts = steps.second(second)!;
    t.ok(Object.keys(parts).every((name) => name === 'a' || name === 'b'));
    for (const name of ['a', 'b'] as const) {
      const part = parts[name];
      if (part === undefined) continue;
      sum[name].sent += part.sent;
      sum[name].completed += part.completed;
      sum[name].errors += part.errors;
      sum[name].count += decodeHistogram(part.histogram).totalCount;
    }
  }
  t.same(sum.a, { sent: 4, completed: 4, errors: 0, count: 4 });
  t.same(sum.b, { sent: 1, completed: 0, errors: 1, count: 0 });
  t.same(steps.second(last + 1), {}, 'a second with nothing in it has no part');
  t.equal(new StepRecorder(true).second(0), undefined, 'no steps: undefined');
});
