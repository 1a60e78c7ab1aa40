// A task run's edges (issue 50): warm-up calls counted, failed calls backed off, a bound on setup and
// the user's own setup error on every path, steps that reconcile and are corrected for late calls,
// per-step seconds in onProgress, warnings that quote the run's numbers. Counts are checked against
// a real Redis server's own command statistics.
import { once } from 'node:events';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { runLoad, SalvoTaskSetupError, type ProgressEvent, type TaskContext } from '../../src/index.js';
import { redisServer } from '../fixtures/redis-server.js';
import { freePort } from '../fixtures/free-port.js';
import { runSalvo } from '../fixtures/cli.js';
import { inSomeRun } from '../fixtures/timing.js';
import { startPrometheus } from '../fixtures/prometheus.js';

const redisTask = fileURLToPath(new URL('../fixtures/tasks/redis-task.mjs', import.meta.url));
const redisSetup = fileURLToPath(new URL('../fixtures/tasks/redis-setup.mjs', import.meta.url));

/** The server's count of `command` calls (`INFO commandstats`), and of those that failed. */
async function commandStats(redis: Redis, command: string): Promise<{ calls: number; failed: number }> {
  const line = new RegExp(`^cmdstat_${command}:(.*)$`, 'm').exec(await redis.info('commandstats'))?.[1] ?? '';
  const field = (name: string) => Number(new RegExp(`(?:^|,)${name}=(\\d+)`).exec(line)?.[1] ?? 0);
  return { calls: field('calls'), failed: field('failed_calls') };
}

async function redis(t: Test): Promise<{ admin: Redis; port: number }> {
  const { port } = await redisServer(t);
  const admin = new Redis({ port, host: '127.0.0.1' });
  t.teardown(() => admin.quit());
  process.env.SALVO_REDIS_PORT = String(port);
  return { admin, port };
}

/** A server that accepts connections and never answers. */
async function silentServer(t: Test): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => void sockets.add(socket)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return (server.address() as net.AddressInfo).port;
}

t.test('warm-up calls are made and counted in requests.warmup: the server saw sent + warmup, on 1 and 2 workers, closed loop and rate', async (t) => {
  const { admin } = await redis(t);
  for (const workers of [1, 2]) {
    for (const shape of [{ rate: 500 }, { concurrency: 4 }]) {
      await admin.config('RESETSTAT');
      const result = await runLoad({ task: redisTask, concurrency: 4, ...shape, workers, warmup: '500ms', duration: 1000 });
      const { calls } = await commandStats(admin, 'incr');
      const what = `${workers} worker(s), ${'rate' in shape ? 'rate 500' : 'closed loop'}`;
      t.ok(result.requests.warmup !== undefined && result.requests.warmup > 0, `${what}: ${result.requests.warmup} warm-up calls counted`);
      t.equal(calls, result.requests.sent + result.requests.warmup!, `${what}: INCR at the server = sent ${result.requests.sent} + warmup ${result.requests.warmup}`);
      if ('rate' in shape) t.ok(Math.abs(result.requests.warmup! - 250) <= 25, `${what}: the warm-up's 250 slots were called (${result.requests.warmup})`);
    }
  }
});

t.test('failing calls back off as HTTP lanes do: the server counts every failed call, a few per slot; backoff: false calls again at once', async (t) => {
  const { admin } = await redis(t);
  // INCR of a key holding text fails at the server: a ReplyError for every call.
  await admin.set('visits', 'text');
  for (const workers of [1, 2]) {
    await admin.config('RESETSTAT');
    const closed = await runLoad({ task: redisTask, concurrency: 4, workers, duration: 1000 });
    const server = await commandStats(admin, 'incr');
    t.equal(server.calls, closed.requests.sent, `${workers} worker(s): INCR at the server = sent ${closed.requests.sent}`);
    t.equal(server.failed, closed.errors.byCode.ReplyError, 'every call failed at the server, under ReplyError');
    // 5 ms doubling to 1 s: at most 9 calls a slot in a second.
    t.ok(closed.requests.sent <= 4 * 9, `${closed.requests.sent} calls: each slot waited between failures`);

    await admin.config('RESETSTAT');
    const open = await runLoad({ task: redisTask, concurrency: 4, workers, rate: 400, duration: 1000 });
    t.equal((await commandStats(admin, 'incr')).calls, open.requests.sent, `rate, ${workers} worker(s): INCR at the server = sent ${open.requests.sent}`);
    t.equal(open.requests.sent + open.requests.missed, 400, 'every slot sent or missed');
    t.ok(open.requests.missed > 300, `${open.requests.missed} slots missed while every slot backed off, not sent in a burst`);
  }
  await admin.config('RESETSTAT');
  const eager = await runLoad({ task: redisTask, concurrency: 4, duration: 500, backoff: false });
  t.equal((await commandStats(admin, 'incr')).calls, eager.requests.sent);
  t.ok(eager.requests.sent > 200, `backoff: false: ${eager.requests.sent} calls in 0.5 s`);
});

t.test('setup is bounded by setupTimeout: a client waiting on a server that never answers rejects the run with a code, on 1 and 2 workers', async (t) => {
  process.env.SALVO_REDIS_PORT = String(await silentServer(t));
  for (const workers of [1, 2]) {
    const startedAt = performance.now();
    const error = await runLoad({ task: redisSetup, workers, amount: 10, setupTimeout: '300ms' }).catch((thrown: unknown) => thrown);
    t.ok(error instanceof SalvoTaskSetupError, `${workers} worker(s): a SalvoTaskSetupError`);
    t.match(error, { code: 'SALVO_TASK_SETUP_TIMEOUT', message: /setup had not finished within setupTimeout \(300 ms\), so nothing was sent/ });
    t.ok(performance.now() - startedAt < 10_000, 'and it came soon after the bound');
  }
  const cli = await runSalvo(['--task', redisSetup, '-a', '10', '--setup-timeout', '300ms', '--no-backoff', '-q']);
  t.equal(cli.code, 6, 'the command exits 6');
  t.match(cli.stderr, /setup had not finished within setupTimeout \(300 ms\).*SALVO_TASK_SETUP_TIMEOUT/);
  await t.rejects(runLoad({ task: async () => {}, setupTimeout: 'soon' }), { code: 'SALVO_INVALID_OPTION', option: 'setupTimeout' });
  await t.rejects(runLoad({ url: 'http://127.0.0.1:1', setupTimeout: '1s' }), { code: 'SALVO_INVALID_OPTION', option: 'setupTimeout' });
  await t.rejects(runLoad({ task: async () => {}, backoff: 'no' as unknown as boolean }), { code: 'SALVO_INVALID_OPTION', option: 'backoff' });
});

t.test("a setup that throws: the user's own error (message, stack, code) is the cause, on 1 and 2 workers, and the command exits 6", async (t) => {
  process.env.SALVO_REDIS_PORT = String(await freePort());
  for (const workers of [1, 2]) {
    const error = (await runLoad({ task: redisSetup, workers, amount: 10 }).catch((thrown: unknown) => thrown)) as SalvoTaskSetupError;
    t.match(error, { code: 'SALVO_TASK_SETUP_FAILED', message: /setup threw before the run started, so nothing was sent: connect ECONNREFUSED/ });
    const cause = error.cause as NodeJS.ErrnoException;
    t.equal(cause.code, 'ECONNREFUSED', `${workers} worker(s): the cause keeps its code`);
    t.match(cause.message, /connect ECONNREFUSED 127\.0\.0\.1:/);
    t.match(cause.stack, /ECONNREFUSED/, 'and its stack');
    t.equal(cause.syscall, 'connect', 'and its other fields');
  }
  const { code, stderr } = await runSalvo(['--task', redisSetup, '-a', '10', '-q']);
  t.equal(code, 6, 'the documented exit status of a failed setup');
  t.match(stderr, /SALVO_TASK_SETUP_FAILED/);
  t.match(stderr, /connect ECONNREFUSED/, "the user's error is printed");
  t.notMatch(stderr, /at runCli|file:\/\/.*bin\.ts.*\n.*process\.processTicksAndRejections/, 'no uncaught stack of salvo');
});

t.test("a step's latency counts its call's late start (rate), the uncorrected beside it", async (t) => {
  await inSomeRun(t, 3, async (timing) => {
    const result = await runLoad({ task: (ctx: TaskContext) => ctx.measure('query', () => sleep(20)), concurrency: 2, rate: 200, duration: 1000 });
    const step = result.byName!.query!;
    timing.ok(result.latency.p99 > 300, `call p99 ${result.latency.p99} ms: the calls queued for 2 slots`);
    timing.ok(step.latency.p99 > 300, `step p99 ${step.latency.p99} ms counts its call's wait`);
    timing.ok(step.latencyUncorrected.p50 >= 19 && step.latencyUncorrected.p50 < 60, `uncorrected step p50 ${step.latencyUncorrected.p50} ms is the step's own time`);
  });
  const closed = await runLoad({ task: (ctx: TaskContext) => ctx.measure('query', () => sleep(5)), concurrency: 2, amount: 20 });
  t.equal(closed.byName!.query!.latency.p99, closed.byName!.query!.latencyUncorrected.p99, 'a closed loop has nothing to correct');
});

t.test('each step reconciles at the end of a duration run: sent = completed + errors + unfinished, per name', async (t) => {
  const { admin } = await redis(t);
  const client = new Redis({ port: Number(process.env.SALVO_REDIS_PORT), host: '127.0.0.1' });
  t.teardown(() => client.quit());
  await admin.config('RESETSTAT');
  let started = 0;
  const result = await runLoad({
    task: async (ctx: TaskContext) => {
      await ctx.measure('incr', () => (started++, client.incr('steps')));
      await ctx.measure('nap', () => sleep(15));
    },
    concurrency: 6,
    duration: 700,
  });
  for (const [name, stats] of Object.entries(result.byName!)) {
    const { sent, completed, unfinished } = stats.requests;
    t.equal(sent, completed + stats.errors.total + unfinished, `${name}: sent ${sent} = completed ${completed} + errors ${stats.errors.total} + unfinished ${unfinished}`);
  }
  // A step that starts once the run has ended (its call still running, in `unfinished`) is not the run's.
  const late = started - result.byName!.incr!.requests.sent;
  t.ok(late >= 0 && late <= 6, `every step started in the run is in its sent (${late} started after its end)`);
  t.equal((await commandStats(admin, 'incr')).calls, started, 'every step started reached the server');
  const inFlight = result.byName!.incr!.requests.unfinished + result.byName!.nap!.requests.unfinished;
  t.ok(inFlight <= result.requests.unfinished && inFlight + late >= result.requests.unfinished, `the calls in flight at the end (${result.requests.unfinished}) had a step in flight (${inFlight}) or started one after it`);
});

t.test("onProgress hears each step's second in a task run", async (t) => {
  const events: ProgressEvent[] = [];
  const result = await runLoad({
    task: async (ctx: TaskContext) => {
      await ctx.measure('a', () => sleep(2));
      ctx.mark('b');
    },
    concurrency: 2,
    duration: 2100,
    onProgress: (event) => void events.push(event),
  });
  t.ok(events.length >= 2);
  const seen = events.slice(0, 2).map((event) => event.byName?.a?.completed ?? 0);
  t.ok(seen.every((completed) => completed > 0), `step a completed ${seen.join(', ')} in the first two seconds`);
  t.equal(events.reduce((sum, event) => sum + (event.byName?.b?.completed ?? 0), 0) <= result.byName!.b!.requests.completed, true);
  // Over 2 worker threads: the main thread adds up each second's steps of both.
  const stepping = `data:text/javascript,${encodeURIComponent("export default async (ctx) => { await ctx.measure('a', () => new Promise((resolve) => setTimeout(resolve, 2))); }")}`;
  const threaded: ProgressEvent[] = [];
  const overWorkers = await runLoad({ task: stepping, workers: 2, concurrency: 4, duration: 2100, onProgress: (event) => void threaded.push(event) });
  const heard = threaded.reduce((sum, event) => sum + (event.byName?.a?.completed ?? 0), 0);
  t.ok(threaded[0]?.byName?.a !== undefined && heard > 0 && heard <= overWorkers.byName!.a!.requests.completed, `2 workers: ${heard} of ${overWorkers.byName!.a!.requests.completed} steps heard second by second`);
});

t.test("a task run's steps are live in Prometheus: each second's per-name series, and the totals at the end", async (t) => {
  const prometheus = await startPrometheus(t);
  if (prometheus === undefined) return;
  const testid = 'task-steps';
  const result = await runLoad({
    task: async (ctx: TaskContext) => {
      await ctx.measure('query', () => sleep(2));
    },
    concurrency: 2,
    duration: 2500,
    outputs: [{ type: 'prometheus', url: prometheus.writeUrl, labels: { testid } }],
  });
  const completed = result.byName!.query!.requests.completed;
  const series = (metric: string) => `${metric}{testid="${testid}",name="query"}`;
  t.equal(await prometheus.scalar(`last_over_time(${series('salvo_name_responses_total')}[1h])`), completed, 'the final total is the result');
  t.equal(await prometheus.scalar(`last_over_time(salvo_calls_completed_total{testid="${testid}"}[1h])`), result.requests.completed, 'completed calls, which have no status');
  t.ok((await prometheus.scalar(`salvo_calls_completed_total{testid="${testid}"} @ ${(result.startedAt + 1500) / 1000}`))! > 0, 'live');
  t.equal(await prometheus.scalar(`last_over_time(${series('salvo_name_requests_sent_total')}[1h])`), result.byName!.query!.requests.sent);
  const live = await prometheus.scalar(`${series('salvo_name_responses_total')} @ ${(result.startedAt + 1500) / 1000}`);
  t.ok(live !== undefined && live > 0 && live < completed, `live while it ran: ${live} of ${completed} after the first second`);
  t.ok((await prometheus.scalar(`count_over_time(${series('salvo_name_latency_p99_seconds')}[1h])`))! >= 2, "each second's p99 of the step");
});

t.test('TASK_IGNORED_SIGNAL and NO_SUCCESS quote the numbers of the run as a whole', async (t) => {
  // Calls that never settle and ignore their signal, over 2 workers: each thread's warning is added up.
  const hangs = new URL('data:text/javascript,export default () => new Promise(() => {})').href;
  const result = await runLoad({ task: hangs, workers: 2, concurrency: 4, timeout: 100, duration: 1000 });
  const timeouts = result.errors.byCode.TIMEOUT ?? 0;
  t.ok(timeouts > 8, `${timeouts} timeouts`);
  const warning = result.warnings.find((w) => w.code === 'TASK_IGNORED_SIGNAL');
  t.match(warning?.message, new RegExp(`^${timeouts} of the ${timeouts} calls that passed timeout`), warning?.message ?? 'no warning');

  const stuck = await runLoad({ task: () => new Promise(() => {}), concurrency: 2, duration: 300 });
  const none = stuck.warnings.find((w) => w.code === 'NO_SUCCESS');
  t.notMatch(none?.message, /Most failed with :/, none?.message ?? 'no warning');
  t.match(none?.message, /None of the calls ended within the run \(2 still running at its end\)/);
});
