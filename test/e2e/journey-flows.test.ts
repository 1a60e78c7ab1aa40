// Journeys in rate mode: `think` between steps never delays the next journey's slot (a stall shows in
// the corrected latency as it does without think time), and `flows` mix journeys by weight, each
// step counted under `flow/step` exactly as the server saw it.
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { runLoad } from '../../src/index.js';
import { inSomeRun } from '../fixtures/timing.js';

/** Counts requests by path; with `stallAfterMs`, holds every answer for `stallMs` once, that long after the first request. */
async function pathServer(t: Test, stall?: { afterMs: number; stallMs: number }) {
  const seen = new Map<string, number>();
  let firstAt = 0;
  let stallFrom = Infinity;
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    seen.set(request.url!, (seen.get(request.url!) ?? 0) + 1);
    const now = performance.now();
    if (firstAt === 0 && stall !== undefined) {
      firstAt = now;
      stallFrom = now + stall.afterMs;
      setTimeout(() => {
        for (const waiting of held.splice(0)) waiting.end('ok');
      }, stall.afterMs + stall.stallMs).unref();
    }
    if (now >= stallFrom && now < stallFrom + stall!.stallMs) held.push(response);
    else response.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** The server's counts once they stop moving (a request written as the run ended may still be on its way). */
async function settled(seen: Map<string, number>): Promise<Map<string, number>> {
  let last = -1;
  for (let i = 0; i < 20; i++) {
    const total = [...seen.values()].reduce((sum, count) => sum + count, 0);
    if (total === last) break;
    last = total;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return seen;
}

t.test('think time in rate mode: a 300 ms stall shows in the corrected latency as it does without think time', async (t) => {
  await inSomeRun(t, 3, async (timing) => {
    const rate = 100;
    const plain = await pathServer(t, { afterMs: 1000, stallMs: 300 });
    const without = await runLoad({ url: `${plain.url}/a`, rate, duration: '3s', connections: 100 });
    const thinking = await pathServer(t, { afterMs: 1000, stallMs: 300 });
    const withThink = await runLoad({
      url: thinking.url,
      rate,
      duration: '3s',
      connections: 100,
      requests: [{ path: '/a', think: 150 }, { path: '/b', think: [10, 30] }, { path: '/c' }],
    });
    const a = withThink.byName!['GET /a']!;
    // Exact whatever the host did: every slot of the schedule started a journey (or was missed).
    t.equal(without.requests.sent + without.requests.missed, 300, 'without think: 3 s at 100/s is 300 slots');
    t.equal(a.requests.sent + withThink.requests.missed, 300, 'with think: 300 journeys, one per slot, none delayed out of the run');
    const counts = await settled(thinking.seen);
    for (const step of ['a', 'b', 'c'])
      t.equal(counts.get(`/${step}`), withThink.byName![`GET /${step}`]!.requests.sent, `/${step}: the server saw what byName sent`);
    timing.ok(without.requests.missed === 0 && withThink.requests.missed === 0, 'no slot missed');
    const [max, maxThink] = [without.latency.max, a.latency.max];
    const [p99, p99Think] = [without.latency.p99, a.latency.p99];
    timing.ok(max >= 280 && max < 450, `without think the stall is the max latency: ${max.toFixed(1)} ms`);
    timing.ok(Math.abs(maxThink - max) < 60, `with think the first step's max is the same: ${maxThink.toFixed(1)} vs ${max.toFixed(1)} ms`);
    timing.ok(Math.abs(p99Think - p99) < 60, `and its p99: ${p99Think.toFixed(1)} vs ${p99.toFixed(1)} ms`);
    timing.ok(withThink.latency.max < 450, `no step waited for think time on top of the stall: ${withThink.latency.max.toFixed(1)} ms`);
  });
});

t.test('weighted flows from one rate: the mix follows the weights, and byName matches the server exactly', async (t) => {
  const { url, seen } = await pathServer(t);
  const result = await runLoad({
    url,
    rate: 400,
    duration: '2s',
    connections: 40,
    workers: 2,
    flows: [
      { name: 'browse', weight: 3, requests: [{ path: '/home' }, { path: '/item', think: 5 }] },
      { name: 'buy', weight: 1, requests: [{ path: '/cart' }, { name: 'pay', method: 'POST', path: '/pay', body: { card: 1 } }, { path: '/done' }] },
    ],
  });
  const counts = await settled(seen);
  const names: Record<string, string> = { '/home': 'browse/GET /home', '/item': 'browse/GET /item', '/cart': 'buy/GET /cart', '/pay': 'buy/pay', '/done': 'buy/GET /done' };
  t.same(Object.keys(result.byName!).sort(), Object.values(names).sort(), 'one name per step, prefixed by its flow');
  for (const [path, name] of Object.entries(names)) t.equal(counts.get(path), result.byName![name]!.requests.sent, `${path}: the server's count is ${name}'s`);
  const browse = counts.get('/home')!;
  const journeys = browse + counts.get('/cart')!;
  t.equal(journeys + result.requests.missed, 800, 'one journey per slot: 2 s at 400/s');
  // A binomial draw would stay within 4 standard deviations; the even spread is much closer.
  const bound = 4 * Math.sqrt(journeys * 0.75 * 0.25);
  t.ok(Math.abs(browse - 0.75 * journeys) <= bound, `browse took ${browse} of ${journeys} journeys (weight 3 of 4: ${(0.75 * journeys).toFixed(0)} ± ${bound.toFixed(0)})`);
});

t.test('flows from a module over 2 workers: each thread calls the hooks it imported, with the journey in context', async (t) => {
  const { url, seen } = await pathServer(t);
  const flows = fileURLToPath(new URL('../fixtures/workers/flow-hooks.mjs', import.meta.url));
  const result = await runLoad({ url, rate: 300, duration: '1s', connections: 20, workers: 2, flows });
  const counts = await settled(seen);
  const paths = [...counts.keys()];
  t.ok(paths.every((path) => /^\/(home|item)\/browse\/\d+$|^\/(cart|pay)\/buy\/\d+$/.test(path)), 'every step in its own flow, rewritten by its hook');
  const journeys = (flow: string, step: string) => paths.filter((path) => path.startsWith(`/${step}/${flow}/`)).map((path) => Number(path.split('/')[3]));
  const started = [...journeys('browse', 'home'), ...journeys('buy', 'cart')].sort((a, b) => a - b);
  t.equal(started.length + result.requests.missed, 300, 'one journey per slot');
  // Thread j of 2 numbers its journeys j, j + 2, ...: the run's journeys 0, 1, 2, ..., each once.
  t.equal(new Set(started).size, started.length, 'no journey number twice over the two threads');
  t.ok(started.every((number) => number < 300), 'none past the 300 slots');
  t.equal(result.errors.total, 0, 'no hook threw');
  t.equal(result.byName!['buy/GET /pay']!.requests.sent, journeys('buy', 'pay').length, 'byName counts the rewritten paths under their step');
});
