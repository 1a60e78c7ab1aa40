import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { findCapacity, mergeResults, runComparison, runLoad, SalvoOptionError, SalvoTaskSetupError, type TaskContext } from '../../src/index.js';
import { inSomeRun } from '../fixtures/timing.js';
import { runSalvo } from '../fixtures/cli.js';

const fixture = (name: string) => new URL(`../fixtures/tasks/${name}`, import.meta.url).href;

/** A directory for a task module's files, named to it through SALVO_TASK_DIR (worker threads get a copy of the environment). */
function taskDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'salvo-task-'));
  process.env.SALVO_TASK_DIR = dir;
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('closed loop: exactly amount calls, never more than concurrency in flight, each slot counting its iterations', async (t) => {
  let calls = 0;
  let inFlight = 0;
  let most = 0;
  const iterations = new Map<number, number[]>();
  const result = await runLoad({
    task: async (ctx) => {
      calls++;
      most = Math.max(most, ++inFlight);
      (iterations.get(ctx.slot) ?? iterations.set(ctx.slot, []).get(ctx.slot)!).push(ctx.iteration);
      await sleep(1);
      inFlight--;
    },
    concurrency: 7,
    amount: 500,
  });
  t.equal(calls, 500, 'the function was called amount times');
  t.equal(result.requests.sent, 500);
  t.equal(result.requests.completed, 500);
  t.equal(most, 7, 'concurrency calls in flight');
  t.same([...iterations.keys()].sort(), [0, 1, 2, 3, 4, 5, 6]);
  for (const [slot, seen] of iterations) t.same(seen, seen.map((_, index) => index), `slot ${slot}: iterations 0, 1, 2, ...`);
  t.equal(result.transport, 'task');
  t.equal(result.url, 'task:task');
  t.equal(result.connections, 7);
  t.same(result.statusCodes, {});
  t.same(result.errors, { total: 0, byCode: {} });
  t.ok(result.latency.p50 >= 1, `p50 ${result.latency.p50} ms covers the 1 ms wait`);
});

t.test('one call in ten failing with a coded error: counted under its code, a few distinct messages kept', async (t) => {
  let calls = 0;
  const result = await runLoad({
    task: async function charge() {
      const call = calls++;
      await Promise.resolve();
      if (call % 10 === 9) throw Object.assign(new Error(`card declined (call ${call})`), { code: 'ECARD' });
      if (call === 4) throw new TypeError('no code here');
    },
    concurrency: 3,
    amount: 1000,
  });
  t.equal(result.url, 'task:charge');
  t.equal(result.requests.sent, 1000);
  t.equal(result.errors.byCode.ECARD, 100);
  t.equal(result.errors.byCode.TypeError, 1, 'an error without a code counts under its name');
  t.equal(result.errors.total, 101);
  t.equal(result.requests.completed, 899);
  const samples = result.errors.samples!;
  t.same(samples.filter((sample) => sample.code === 'ECARD').map((sample) => sample.message), ['card declined (call 9)', 'card declined (call 19)', 'card declined (call 29)']);
  t.match(samples.find((sample) => sample.code === 'TypeError'), { message: 'no code here', stack: /task\.test\.ts/, where: 'task' });
});

t.test('a call past timeout: TIMEOUT, its signal aborted with a TimeoutError, the slot goes on; the run ends on time', async (t) => {
  const reasons: string[] = [];
  let calls = 0;
  const started = performance.now();
  const result = await runLoad({
    task: async (ctx) => {
      // The first call on each slot hangs (and ignores its signal); the rest are quick.
      if (ctx.iteration === 0) {
        ctx.signal.addEventListener('abort', () => reasons.push((ctx.signal.reason as DOMException).name));
        return new Promise(() => {});
      }
      calls++;
      await sleep(5);
    },
    concurrency: 2,
    duration: 800,
    timeout: 100,
  });
  const elapsed = performance.now() - started;
  t.equal(result.errors.byCode.TIMEOUT, 2);
  t.same(reasons, ['TimeoutError', 'TimeoutError']);
  t.ok(calls > 20, `${calls} calls after the timeouts: the slots went on`);
  t.equal(result.requests.unfinished, 2, 'the 2 calls in flight at the end');
  t.equal(result.requests.completed + result.errors.total + result.requests.unfinished, result.requests.sent, 'sent = completed + errors + unfinished');
  t.ok(elapsed < 800 + 1000, `ended in ${elapsed.toFixed(0)} ms`);
  t.match(result.warnings, [{ code: 'TASK_IGNORED_SIGNAL', message: /2 of the 2 calls/ }]);

  const honest = await runLoad({
    task: (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
    concurrency: 2,
    duration: 500,
    timeout: 100,
  });
  t.ok(honest.errors.byCode.TIMEOUT! >= 4, `${honest.errors.byCode.TIMEOUT} timeouts`);
  t.same(Object.keys(honest.errors.byCode), ['TIMEOUT'], 'a call that rejects once given up on counts once, as TIMEOUT');
  t.same(honest.warnings.filter((warning) => warning.code === 'TASK_IGNORED_SIGNAL'), [], 'a task that honours its signal gets no warning');
});

t.test('the end of the run aborts the signals of the calls in flight, which are unfinished', async (t) => {
  const reasons: string[] = [];
  const result = await runLoad({
    task: (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => (reasons.push((ctx.signal.reason as DOMException).name), reject(ctx.signal.reason)))),
    concurrency: 3,
    duration: 300,
  });
  await sleep(10);
  t.same(reasons, ['AbortError', 'AbortError', 'AbortError']);
  t.equal(result.requests.sent, 3);
  t.equal(result.requests.unfinished, 3);
  t.equal(result.errors.total, 0);
  t.equal(result.requests.completed, 0);
});

t.test('open loop: calls due on the schedule, latency from when each was due (corrected) beside the uncorrected', async (t) => {
  await inSomeRun(t, 3, async (timing) => {
    // One slot, a 10 ms call, 200 calls/s due: the calls queue behind each other, as requests behind a slow server.
    const result = await runLoad({ task: () => sleep(10), concurrency: 1, rate: 200, duration: 1000 });
    t.equal(result.rate, 200);
    t.ok(result.requests.missed > 0, `${result.requests.missed} calls missed: the slot could not keep up`);
    timing.ok(result.latencyUncorrected.p50 >= 10 && result.latencyUncorrected.p50 < 20, `uncorrected p50 ${result.latencyUncorrected.p50} ms is the call's own time`);
    timing.ok(result.latency.p99 > 200, `corrected p99 ${result.latency.p99} ms counts the wait for the slot`);
  });
  let calls = 0;
  const exact = await runLoad({ task: async () => void calls++, rate: 2000, amount: 300 });
  t.equal(calls, 300);
  t.equal(exact.requests.completed, 300);
  t.ok(exact.generator.sendLag !== undefined, 'the send lag of an open loop is measured');
});

t.test('rate stages ramp the calls; connection stages ramp the slots', async (t) => {
  const seconds: Array<number | undefined> = [];
  const ramped = await runLoad({ task: async () => {}, stages: [{ duration: 1000, rate: 100 }, { duration: 1000, rate: 300 }], onProgress: (event) => seconds.push(event.targetRate) });
  t.same(seconds, [50, 200]);
  t.ok(Math.abs(ramped.requests.sent + ramped.requests.missed - 250) <= 1, `sent ${ramped.requests.sent} and missed ${ramped.requests.missed}: the integral of the ramp`);
  await inSomeRun(t, 3, async (timing) => {
    let most = 0;
    let inFlight = 0;
    await runLoad({
      task: async () => {
        most = Math.max(most, ++inFlight);
        await sleep(2);
        inFlight--;
      },
      concurrency: 1,
      stages: [{ duration: 400, connections: 6 }],
    });
    t.ok(most <= 6, `${most} calls in flight, never more than the ramp's top`);
    // A stalled host can end the ramp before its last slots had a call in flight together.
    timing.ok(most >= 5, `${most} calls in flight at the top of the ramp`);
  });
});

t.test('a closed loop of calls that never wait still ends on time, and says the generator was the limit', async (t) => {
  await inSomeRun(t, 3, async (timing) => {
    const started = performance.now();
    const result = await runLoad({ task: () => undefined, concurrency: 4, duration: 500 });
    const elapsed = performance.now() - started;
    timing.ok(elapsed < 500 + 500, `ended in ${elapsed.toFixed(0)} ms`);
    timing.ok(result.requests.completed > 10_000, `${result.requests.completed} calls`);
    t.equal(result.generator.saturated, true);
    t.match(result.warnings, [{ code: 'GENERATOR_SATURATED' }]);
  });
});

t.test('warmup, signal, thresholds and checks apply', async (t) => {
  let calls = 0;
  const controller = new AbortController();
  const result = await runLoad({
    task: async (ctx: TaskContext) => {
      calls++;
      await sleep(2);
      // Both slots may have started a call since the last check: not === 150.
      if (calls >= 150) controller.abort();
      ctx.check('fast enough', ctx.iteration % 4 !== 0, 'every fourth call is slow');
    },
    concurrency: 2,
    warmup: 50,
    duration: 5000,
    signal: controller.signal,
    thresholds: { 'checks.rate': '> 0.9', 'errors.rate': '< 0.01' },
  });
  t.equal(result.aborted, true);
  t.ok(result.durationMs > 0 && result.durationMs < 1000, `aborted after ${result.durationMs} ms`);
  t.ok(result.requests.completed < calls, `the warm-up's calls (of ${calls}) are not counted: ${result.requests.completed}`);
  const checks = result.checks!;
  t.equal(checks.passed + checks.failed, result.requests.completed, 'one check per measured call');
  t.same(checks.examples, [{ name: 'fast enough', message: 'every fourth call is slow' }]);
  t.equal(result.ok, false, 'a checks.rate threshold fails on a quarter failing');
  t.match(result.thresholds, [{ metric: 'checks.rate', passed: false }, { metric: 'errors.rate', passed: true }]);
});

t.test('a module task over 2 workers: setup per thread (ctx.state), the default or a named export, teardown per thread', async (t) => {
  const dir = taskDir(t);
  const result = await runLoad({ task: fixture('counting.mjs'), concurrency: 5, workers: 2, amount: 400 });
  const threads = readdirSync(dir).map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as { calls: number; concurrency: number; slots: number[] });
  t.equal(threads.length, 2, 'teardown ran in each thread');
  t.equal(threads.reduce((sum, thread) => sum + thread.calls, 0), 400, 'the threads made amount calls');
  t.same(threads.map((thread) => thread.concurrency).sort(), [2, 3], 'setup was told its share of concurrency');
  t.same(threads.map((thread) => thread.slots.sort()).sort((a, b) => a.length - b.length), [[0, 1], [0, 1, 2]]);
  t.equal(result.requests.completed, 400);
  t.equal(result.workers, 2);
  t.equal(result.checks?.passed, 400);
  t.equal(result.byName?.sleep?.requests.completed, 400, "ctx.measure's step over both threads, merged");
  t.equal(result.url, `task:${fixture('counting.mjs')}`);

  rmSync(dir, { recursive: true, force: true });
  taskDir(t);
  const named = await runLoad({ task: `${fixture('counting.mjs')}#checkout`, amount: 30, concurrency: 3 });
  t.equal(named.requests.completed, 30);
  t.equal(named.checks, undefined, 'the named export checks nothing');
});

t.test('a setup that throws: a clear error before any load; over workers, the other threads tear down', async (t) => {
  const dir = taskDir(t);
  const error = await runLoad({ task: fixture('setup-throws.mjs'), amount: 10 }).catch((thrown: unknown) => thrown);
  t.type(error, SalvoTaskSetupError);
  t.match(error, { code: 'SALVO_TASK_SETUP_FAILED', message: /setup threw before the run started, so nothing was sent: cannot reach the database/ });
  t.same(readdirSync(dir), ['first'], 'no call, no teardown of a setup that failed');

  rmSync(join(dir, 'first'), { recursive: true });
  const overWorkers = await runLoad({ task: fixture('setup-throws.mjs'), workers: 3, concurrency: 3, duration: 2000 }).catch((thrown: unknown) => thrown);
  t.type(overWorkers, SalvoTaskSetupError);
  t.match(overWorkers, { message: /cannot reach the database/ });
  const files = readdirSync(dir).sort();
  t.equal(files.filter((file) => file.startsWith('called-')).length, 0, 'no thread called the task');
  t.equal(files.filter((file) => file.startsWith('teardown-')).length, 2, 'the two threads whose setup worked tore down');
});

t.test('bad task options name the option', async (t) => {
  const reject = async (options: object, option: string, message: RegExp) => {
    const error = await runLoad(options as never).catch((thrown: unknown) => thrown);
    t.type(error, SalvoOptionError);
    t.match(error, { option, message });
  };
  await reject({ task: async () => {}, url: 'http://127.0.0.1:1/' }, 'url', /url is about requests to a url and has no meaning in a task run/);
  await reject({ task: async () => {}, method: 'POST' }, 'method', /method is about requests/);
  await reject({ task: async () => {}, concurrency: 2, connections: 3 }, 'concurrency', /one option under two names/);
  await reject({ url: 'http://127.0.0.1:1/', concurrency: 2 }, 'concurrency', /concurrency is a task run's/);
  await reject({ task: async () => {}, workers: 2 }, 'task', /task is a function, which cannot be sent to worker threads/);
  await reject({ task: 42 }, 'task', /task must be an async function/);
  await reject({ task: './no-such-task.mjs' }, 'task', /could not import/);
  await reject({ task: `${fixture('counting.mjs')}#nope` }, 'task', /has no 'nope' export/);
  await reject({ task: `${fixture('counting.mjs')}#not-a-name` }, 'task', /must be a JavaScript name/);
});

t.test('runComparison and findCapacity take task runs', async (t) => {
  const sleeping = (ms: number) => async () => void (await sleep(ms));
  const comparison = await runComparison({ baseline: { task: sleeping(1), concurrency: 2, duration: 300 }, candidate: { task: sleeping(1), concurrency: 2, duration: 300 }, runs: 2 });
  t.equal(comparison.baseline.length, 2);
  t.equal(comparison.candidate[0]?.transport, 'task');
  t.ok(comparison.comparison.rows.some((row) => row.metric === 'latency.p50'));

  let calls = 0;
  const capacity = await findCapacity({ task: async () => void calls++, concurrency: 4, slo: { 'errors.rate': '< 0.01' }, start: 50, max: 100, stepDuration: 300, precision: 0.5 });
  t.ok(capacity.steps.length >= 1, `${capacity.steps.length} steps`);
  t.equal(capacity.url, 'task:task', 'an arrow function takes the name of the key it is given under');
  t.ok(calls >= 15, `${calls} calls over the steps`);
});

t.test('a segment of a task run makes its share of the calls, and mergeResults puts the segments back together', async (t) => {
  let calls = 0;
  const options = { task: async () => void calls++, concurrency: 4, amount: 301 };
  const [first, second] = [await runLoad({ ...options, segment: { index: 0, count: 2 } }), await runLoad({ ...options, segment: { index: 1, count: 2 } })];
  t.equal(calls, 301);
  t.equal(first.requests.completed + second.requests.completed, 301);
  const merged = mergeResults([first, second]);
  t.equal(merged.requests.completed, 301);
  t.equal(merged.transport, 'task');
});

t.test('every call ends in one of completed, errors and unfinished, also when each fails at once; a run where none succeeded says so', async (t) => {
  // backoff: false, so that the slots call again at once (with it they wait 5 ms doubling: task-edges.test.ts).
  const failing = await runLoad({ task: async () => Promise.reject(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })), concurrency: 3, duration: 300, backoff: false });
  const { sent, completed, unfinished } = failing.requests;
  t.ok(sent > 1000, `${sent} calls`);
  t.equal(completed + failing.errors.total + unfinished, sent, `sent ${sent} = completed ${completed} + errors ${failing.errors.total} + unfinished ${unfinished}`);
  t.match(failing.warnings, [{ code: 'GENERATOR_SATURATED' }, { code: 'NO_SUCCESS', message: /^no call succeeded: .* Most failed with ECONNREFUSED: the task threw or rejected; errors.samples has the messages/ }]);
  t.equal(failing.ok, false);
});

t.test('task scenarios run side by side on one clock: a closed loop and an open loop, each counted apart', async (t) => {
  let browsed = 0;
  let bought = 0;
  const result = await runLoad({
    scenarios: {
      browse: { task: async () => void (browsed++, await sleep(1)), concurrency: 2 },
      buy: { task: async () => void bought++, rate: 100, amount: 50 },
    },
    duration: 1000,
  });
  t.equal(bought, 50);
  t.equal(result.byScenario?.buy?.requests.completed, 50);
  t.equal(result.byScenario!.browse!.requests.sent, browsed);
  t.equal(result.requests.sent, browsed + 50, "the run's numbers are the scenarios' sum");
});

t.test('the command runs a task module: salvo --task MODULE#NAME', async (t) => {
  taskDir(t);
  const { code, stdout, stderr } = await runSalvo(['--task', 'test/fixtures/tasks/counting.mjs#checkout', '--concurrency', '3', '-a', '60', '--json', '-q']);
  t.equal(code, 0, stderr);
  const result = JSON.parse(stdout) as { transport: string; url: string; connections: number; requests: { completed: number } };
  t.match(result, { transport: 'task', url: 'task:./test/fixtures/tasks/counting.mjs#checkout', connections: 3, requests: { completed: 60 } });
});
