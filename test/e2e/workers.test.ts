import t from 'tap';
import { separateServer } from '../fixtures/separate-server.js';
import { SalvoOptionError } from '../../src/shared/errors.js';
import { runLoad } from '../../src/index.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun, littlesLaw } from '../fixtures/timing.js';
import type { ProgressEvent } from '../../src/shared/load-result.js';

const fixture = (name: string) => new URL(`../fixtures/workers/${name}`, import.meta.url);


t.test('5 connections over 2 workers: exactly 5 at the server, one progress event per second', async (t) => {
  const target = await testServer(t);
  const events: ProgressEvent[] = [];
  const result = await runLoad({
    url: target.url,
    connections: 5,
    workers: 2,
    duration: 1500,
    onProgress: (event) => events.push(event),
  });
  t.equal(target.stats.connections, 5);
  t.equal(result.connections, 5);
  t.equal(result.workers, 2);
  t.ok(result.requests.completed > 100, `completed ${result.requests.completed}`);
  t.equal(result.requests.sent, target.stats.requests, 'every request the shards counted reached the server');
  t.equal(result.statusCodes['200'], result.requests.completed);
  t.equal(result.aborted, false);

  t.same(events.map((event) => event.second), result.timeline.map((entry) => entry.second));
  t.same(events.map((event) => event.second), [0, 1], 'a full second and the last partial one');
  events.forEach((event, index) => {
    const entry = result.timeline[index]!;
    t.equal(event.completed, entry.completed, `second ${event.second}: completed summed over the shards`);
    t.equal(event.p50, entry.p50, `second ${event.second}: p50 from the merged histograms`);
    t.equal(event.p99, entry.p99);
  });
  t.equal(events[0]?.connections, 5);
  t.same(events.at(-1)?.totals, { sent: result.requests.sent, completed: result.requests.completed, errors: 0, retried: 0 });
});

t.test('rate 1000 over 2 workers delivers 1000/s in total, not 2000', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const target = await testServer(t);
    const result = await runLoad({ url: target.url, connections: 10, workers: 2, rate: 1000, duration: 1500 });
    t.equal(result.rate, 1000);
    t.equal(target.stats.requests, result.requests.sent);
    t.equal(result.requests.sent + result.requests.missed, 1500, 'every slot due in 1.5 s was sent or counted as missed');
    timing.ok(Math.abs(target.stats.requests - 1500) <= 45, `the server saw ${target.stats.requests} requests in 1.5 s`);
    t.equal(result.timeline[0]?.targetRate, 1000, 'the shards\' target rates add up to the asked rate');
    timing.ok(Math.abs(result.timeline[0]!.sent - 1000) <= 30, `${result.timeline[0]!.sent} sent in the first second`);
  }),
);

t.test('workers split the slots, not the connections: 1234 ms at 1000/s over 2 workers and 3 connections is 1234 slots', async (t) => {
  const target = await testServer(t);
  const result = await runLoad({ url: target.url, connections: 3, workers: 2, rate: 1000, duration: 1234 });
  // Shares that followed their connections ran at 667 + 333/s and planned 1235 slots between them.
  t.equal(result.requests.sent + result.requests.missed, 1234, `sent ${result.requests.sent}, missed ${result.requests.missed}`);
  t.equal(target.stats.requests, result.requests.sent);
});

t.test('2 workers over 3 connections send one evenly spaced schedule, as one thread would', (t) =>
  inSomeRun(t, 4, async (timing) => {
    const arrivals: number[] = [];
    const target = await testServer(t, { onRequest: () => arrivals.push(performance.now()) });
    const result = await runLoad({ url: target.url, connections: 3, workers: 2, rate: 300, duration: 2000 });
    // The last requests written may still be on their way through this process's own event loop.
    for (let waited = 0; arrivals.length < result.requests.sent && waited < 2000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    t.equal(arrivals.length, result.requests.sent);
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!).sort((a, b) => a - b);
    const at = (q: number) => gaps[Math.floor(q * (gaps.length - 1))]!;
    // One schedule: every gap near 1000 / 300 = 3.33 ms. Shards with their own clocks and rates
    // that followed their connections (200 + 100/s) gave gaps of 0.7-1.9 ms at p10, 5-6 ms at p90.
    timing.ok(Math.abs(at(0.5) - 10 / 3) < 0.3, `median gap ${at(0.5).toFixed(3)} ms`);
    timing.ok(at(0.1) > 2.5 && at(0.9) < 4.2, `gaps p10 ${at(0.1).toFixed(3)}, p90 ${at(0.9).toFixed(3)} ms`);
  }),
);

t.test('amount 1001 over 2 workers sends exactly 1001', async (t) => {
  const target = await testServer(t);
  const result = await runLoad({ url: target.url, connections: 5, workers: 2, amount: 1001 });
  t.equal(target.stats.requests, 1001);
  t.equal(result.requests.sent, 1001);
  t.equal(result.requests.completed, 1001);
  t.equal(result.aborted, false);
});

t.test('amount with rate: exact count, paced over the whole run', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const target = await testServer(t);
    const result = await runLoad({ url: target.url, connections: 5, workers: 2, amount: 300, rate: 600 });
    t.equal(target.stats.requests, 300);
    t.equal(result.requests.completed, 300);
    // 300 requests at 600/s: the last slot is due just before 500 ms, in either shard.
    timing.ok(result.durationMs > 450 && result.durationMs < 700, `durationMs ${result.durationMs}`);
  }),
);

t.test('merged p50 against a 10 ms server is within 1 ms of 10', async (t) => {
  const server = await separateServer(t, 10);
  // As in transports.test.ts: a run against the delay really applied, repeated when the host stalled.
  await inSomeRun(t, 4, async (timing) => {
    const result = await runLoad({ url: server.url, connections: 4, workers: 2, duration: 1000, warmup: 200 });
    const applied = await server.appliedDelayMs();
    t.ok(applied >= 10, `server applied ${applied.toFixed(3)} ms, never less than its delay`);
    timing.hostKept(applied < 13, `the host let the server keep its delay (${applied.toFixed(3)} ms)`);
    // Both shards' 4 connections carried requests the whole second.
    timing.ok(...littlesLaw(result, 4));
    // As in transports.test.ts: means compare exactly, a median can sit below a stall-skewed mean.
    timing.ok(result.latency.mean >= applied - 0.1, `mean ${result.latency.mean} not below the applied mean`);
    timing.ok(result.latency.p50 - applied <= 1, `merged p50 ${result.latency.p50} within 1 ms of the applied ${applied.toFixed(3)}`);
    t.ok(result.requests.completed === 0 || result.latency.min >= 9.5, `min ${result.latency.min} ms`);
  });
});

t.test('requests and onProgress from modules: hooks run in each worker, progress here', async (t) => {
  const { events } = (await import(fixture('progress-log.mjs').href)) as { events: ProgressEvent[] };
  const tags: string[] = [];
  const paths: string[] = [];
  const target = await testServer(t, {
    onRequest: (request) => {
      paths.push(request.path);
      if (request.headers['x-tag'] !== undefined) tags.push(request.headers['x-tag']);
    },
  });
  const result = await runLoad({
    url: target.url,
    connections: 5,
    workers: 2,
    amount: 200,
    requests: fixture('tagged-requests.mjs').pathname,
    onProgress: fixture('progress-log.mjs').href,
  });
  t.ok(events.length >= 1, 'the module\'s onProgress was called');
  t.equal(events.at(-1)?.totals.completed, 200);
  t.equal(result.requests.completed, 200);
  t.equal(target.stats.requests, 200);
  const first = paths.filter((path) => path === '/first').length;
  t.equal(tags.length, first, 'setupRequest tagged every /first request');
  // Each shard's connections walk /first, /second whole (120 and 80 of the amount): half each.
  t.equal(first, 100, `${first} of 200 were /first`);
  t.ok(tags.some((tag) => tag.endsWith(':200')), 'onResponse state reached the next setupRequest');
  t.same([...new Set(tags.map((tag) => tag.split(':')[0]))].sort(), ['0', '1', '2'], 'connections 0-2 of shard 0 and 0-1 of shard 1');
});

t.test('requests from a module work in this thread too (workers: 1)', async (t) => {
  const tags: string[] = [];
  const target = await testServer(t, { onRequest: (request) => request.headers['x-tag'] && tags.push(request.headers['x-tag']) });
  const result = await runLoad({ url: target.url, connections: 2, amount: 20, requests: fixture('tagged-requests.mjs').href });
  t.equal(result.workers, 1);
  t.equal(target.stats.requests, 20);
  t.equal(tags.length, 10);
});

t.test('options that cannot be copied into threads are errors that name them', async (t) => {
  const target = await testServer(t);
  await t.rejects(
    runLoad({ url: target.url, workers: 2, duration: 200, tls: { checkServerIdentity: () => undefined } }),
    { name: 'SalvoOptionError', message: /tls\.checkServerIdentity is a function.*workers: 2/ },
  );
  await t.rejects(
    runLoad({ url: target.url, workers: 2, duration: 200, tls: { ca: [new WeakMap() as never] } }),
    { name: 'SalvoOptionError', message: /^tls cannot be copied into worker threads/ },
  );
  t.equal(target.stats.connections, 0, 'nothing was sent');
});

t.test('a bare function hook with workers > 1 is an error that says what to do', async (t) => {
  const target = await testServer(t);
  await t.rejects(
    runLoad({ url: target.url, workers: 2, duration: 200, requests: [{ setupRequest: (request) => request }] }),
    { name: 'SalvoOptionError', message: /requests\[0\]\.setupRequest is a function.*module/ },
  );
  await t.rejects(runLoad({ url: target.url, workers: 2, requests: 'requests.mjs' }), SalvoOptionError);
  await t.rejects(
    runLoad({ url: target.url, workers: 2, requests: './no-such-module.mjs' }),
    { name: 'SalvoOptionError', message: /requests: could not import/ },
  );
  t.equal(target.stats.connections, 0, 'nothing was sent');
});

t.test('abort stops every worker promptly and keeps the partial result', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const target = await testServer(t);
    const controller = new AbortController();
    let abortedAt = 0;
    const result = await runLoad({
      url: target.url,
      connections: 5,
      workers: 2,
      duration: 10_000,
      signal: controller.signal,
      onProgress: () => {
        abortedAt = performance.now();
        controller.abort();
      },
    });
    const tookMs = performance.now() - abortedAt;
    timing.ok(tookMs < 500, `resolved ${tookMs.toFixed(0)} ms after the abort`);
    t.equal(result.aborted, true);
    timing.ok(result.requests.completed > 100, `completed ${result.requests.completed}`);
    timing.ok(result.durationMs >= 1000 && result.durationMs < 1500, `durationMs ${result.durationMs}`);
    t.equal(result.requests.sent, target.stats.requests);
  }),
);

t.test('abort while the worker threads are starting', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const target = await testServer(t);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    const startedAt = performance.now();
    const result = await runLoad({ url: target.url, connections: 4, workers: 2, duration: 10_000, signal: controller.signal });
    timing.ok(performance.now() - startedAt < 1000, `resolved ${(performance.now() - startedAt).toFixed(0)} ms after the start`);
    t.equal(result.aborted, true);
    t.equal(result.requests.sent, target.stats.requests);

    const already = await runLoad({ url: target.url, workers: 2, duration: 10_000, signal: AbortSignal.abort() });
    t.equal(already.aborted, true);
    t.equal(already.requests.sent, 0);
  }),
);

t.test('a crashing worker ends the run and the other shard keeps its data', async (t) => {
  const target = await testServer(t);
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  t.teardown(() => void process.off('warning', onWarning));
  const result = await runLoad({
    url: target.url,
    connections: 5,
    workers: 2,
    duration: 2000,
    requests: fixture('crash-requests.mjs').href,
  });
  t.ok(result.durationMs < 1000, `the crash ended the run after ${result.durationMs} ms`);
  t.equal(result.errors.byCode.WORKER_CRASHED, 1);
  t.equal(result.aborted, true);
  t.ok(result.requests.completed > 0, `the surviving shard completed ${result.requests.completed}`);
  t.ok(target.stats.requests >= result.requests.sent);
  t.ok(warnings.some((message) => /worker 0 crashed: .*hook failed outside the request/s.test(message)), 'the error is reported');
});
