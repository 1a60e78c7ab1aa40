import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { runLoad } from '../../src/index.js';
import { redisServer } from '../fixtures/redis-server.js';

/** The calls of one command that the server counted (`INFO commandstats`), 0 when none came. */
async function commandCalls(redis: Redis, command: string): Promise<number> {
  const info = await redis.info('commandstats');
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
}

async function client(t: Test, port: number): Promise<Redis> {
  const redis = new Redis({ port, host: '127.0.0.1' });
  t.teardown(() => redis.quit());
  return redis;
}

t.test("Redis SET and GET: the server's own command statistics equal the calls salvo counted", async (t) => {
  const { port } = await redisServer(t);
  const redis = await client(t, port);
  const admin = await client(t, port);
  await admin.config('RESETSTAT');
  const result = await runLoad({
    task: async (ctx) => {
      await ctx.measure('set', () => redis.set(`key:${ctx.slot}`, String(ctx.iteration)));
      const value = await ctx.measure('get', () => redis.get(`key:${ctx.slot}`));
      ctx.check('read back', value === String(ctx.iteration));
    },
    concurrency: 16,
    amount: 2000,
  });
  t.equal(result.requests.completed, 2000);
  t.equal(await commandCalls(admin, 'set'), 2000, 'SET calls at the server');
  t.equal(await commandCalls(admin, 'get'), 2000, 'GET calls at the server');
  t.same(result.checks?.byName, { 'read back': { passed: 2000, failed: 0 } });
  // ctx.measure's steps are the run's names, each with a whole run's statistics.
  t.same(Object.keys(result.byName ?? {}), ['set', 'get']);
  t.equal(result.byName?.set?.requests.completed, 2000);
  t.equal(result.byName?.get?.requests.completed, 2000);
  t.ok(result.byName!.get!.latency.p50 > 0 && result.byName!.get!.latency.p50 <= result.latency.p50, `GET p50 ${result.byName!.get!.latency.p50} ms within the call's ${result.latency.p50} ms`);
  t.equal(result.timeline.reduce((sum, second) => sum + (second.byName?.set?.completed ?? 0), 0), 2000, "each second's share of a step");
});

t.test('a Redis task module over 2 workers, then an open loop: INCR counted by the server equals salvo\'s calls', async (t) => {
  const { port } = await redisServer(t);
  const admin = await client(t, port);
  await admin.config('RESETSTAT');
  process.env.SALVO_REDIS_PORT = String(port);
  const task = fileURLToPath(new URL('../fixtures/tasks/redis-task.mjs', import.meta.url));
  const closed = await runLoad({ task, concurrency: 8, workers: 2, amount: 3000 });
  t.equal(closed.requests.completed, 3000);
  t.equal(await commandCalls(admin, 'incr'), 3000);
  t.equal(await admin.get('visits'), '3000');

  await admin.config('RESETSTAT');
  const open = await runLoad({ task, concurrency: 8, rate: 1000, duration: 1000 });
  // teardown's QUIT waited for the replies of the calls in flight at the end: every call sent was served.
  t.equal(await commandCalls(admin, 'incr'), open.requests.sent);
  t.equal(open.requests.sent + open.requests.missed, 1000);
});
