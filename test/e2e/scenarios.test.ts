// `scenarios`: an open-loop scenario at a fixed rate and a closed-loop one at once, against a server
// that counts requests per path: each scenario's counts are what the server saw on its path, its
// rate its own, and the run's numbers their exact sum.
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { formatResult, mergeResults, runLoad, type LoadResult, type ProgressEvent } from '../../src/index.js';
import { renderReport } from '../../src/report/render.js';
import { inSomeRun } from '../fixtures/timing.js';
import { testServer } from '../fixtures/test-server.js';

async function countingServer(t: Test) {
  const byPath: Record<string, number> = {};
  const server = http.createServer((request, response) => {
    const path = request.url!.split('?')[0]!;
    byPath[path] = (byPath[path] ?? 0) + 1;
    response.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, byPath, reset: () => Object.keys(byPath).forEach((key) => delete byPath[key]) };
}

/** The scenarios add up to the run. */
function addsUp(t: Test, result: LoadResult): void {
  const parts = Object.values(result.byScenario!);
  for (const field of ['sent', 'completed', 'missed', 'retried'] as const) {
    t.equal(parts.reduce((sum, part) => sum + part.requests[field], 0), result.requests[field], `scenarios add up to requests.${field}`);
  }
  t.equal(parts.reduce((sum, part) => sum + part.bytes.received, 0), result.bytes.received, 'and to bytes.received');
  t.equal(parts.reduce((sum, part) => sum + part.errors.total, 0), result.errors.total, 'and to errors.total');
  t.equal(result.timeline.reduce((sum, second) => sum + second.completed, 0), result.requests.completed, 'the timeline holds every response');
}

t.test('an open-loop scenario at a fixed rate beside a closed loop: each its own rate and counts', async (t) => {
  const server = await countingServer(t);
  const RATE = 300;
  await inSomeRun(t, 3, async (timing) => {
    server.reset();
    const result = await runLoad({
      url: server.url,
      duration: 2000,
      connections: 2,
      scenarios: {
        browse: { url: `${server.url}/browse`, rate: RATE, connections: 10 },
        checkout: { requests: [{ path: '/cart' }, { name: 'pay', method: 'POST', path: '/pay', body: '{}' }] },
      },
    });
    const { browse, checkout } = result.byScenario!;
    // Sent, not completed: the requests in flight at the end reached the server, unanswered.
    t.equal(browse!.requests.sent, server.byPath['/browse'], 'browse: what the server saw on its path');
    t.equal(checkout!.requests.sent, (server.byPath['/cart'] ?? 0) + (server.byPath['/pay'] ?? 0), 'checkout: what the server saw on its paths');
    t.equal(checkout!.byName!.pay!.requests.sent, server.byPath['/pay'], 'a scenario\'s names');
    t.same(Object.keys(result.byName!), ['GET /browse', 'GET /cart', 'pay'], 'the run has every scenario\'s names');
    t.equal(browse!.requests.sent + browse!.requests.missed, RATE * 2, 'browse: every slot of its own schedule sent or missed');
    t.equal(browse!.rate, RATE);
    t.equal(result.rate, RATE, 'the run\'s rate is the open-loop scenarios\'');
    t.equal(result.connections, 12, 'the run\'s connections are the scenarios\'');
    t.equal(checkout!.connections, 2, 'checkout has the run\'s connections as its default');
    addsUp(t, result);
    const summary = formatResult(result);
    t.match(summary, /^Scenario +Req\/s +Target\/s +p50 +p99 +Sent +Completed +Errors +Status codes$/m, 'the summary has a table of scenarios');
    t.match(summary, new RegExp(`^browse +[\\d,.]+ +${RATE} +[\\d.]+ ms +[\\d.]+ ms +${browse!.requests.sent.toLocaleString('en-US')} `, 'm'), 'browse with its target');
    t.match(summary, /^checkout +[\d,.]+ +- +/m, 'checkout, a closed loop, without one');
    t.notMatch(summary.split('\n')[0]!, /rate/, 'the run names no target rate: its closed-loop scenario has none');
    const report = renderReport(result);
    t.notMatch(report, /"label":"target"/, 'the report draws no target line for the whole run');
    t.notMatch(report, /target rate/, 'nor names one');
    t.match(report, /<th[^>]*>target\/s<\/th>/, 'its table of scenarios has their targets');
    t.match(summary, new RegExp(`^pay +[\\d,.]+ .* 200: ${checkout!.byName!.pay!.statusCodes['200']!.toLocaleString('en-US')}$`, 'm'), 'and one of names');
    timing.ok(Math.abs(browse!.requests.perSecond - RATE) <= RATE * 0.02, `browse ${browse!.requests.perSecond.toFixed(1)}/s within 2% of ${RATE}/s`);
    timing.ok(checkout!.requests.perSecond > 3 * RATE, `checkout saturates on its own: ${checkout!.requests.perSecond.toFixed(0)}/s`);
  });
});

t.test('start and duration place a scenario inside the run', async (t) => {
  const server = await countingServer(t);
  await inSomeRun(t, 3, async (timing) => {
    server.reset();
    const result = await runLoad({
      url: server.url,
      connections: 1,
      duration: 3000,
      scenarios: { early: { url: `${server.url}/early` }, late: { url: `${server.url}/late`, start: '2s', duration: '1s' } },
    });
    const { early, late } = result.byScenario!;
    t.equal(early!.durationMs, 3000);
    t.equal(late!.durationMs, 1000);
    timing.ok(Math.abs(result.durationMs - 3000) < 50, `the run spans its scenarios: ${result.durationMs} ms`);
    const offset = late!.startedAt - early!.startedAt;
    timing.ok(Math.abs(offset - 2000) < 50, `late started 2 s after the run: ${offset.toFixed(1)} ms`);
    t.equal(late!.requests.sent, server.byPath['/late']);
    t.same(result.timeline.slice(0, 2).map((second) => Object.keys(second.byName ?? {})), [['GET /early'], ['GET /early']], 'the late scenario\'s names appear in its seconds only');
    addsUp(t, result);
  });
});

t.test('thresholds on a scenario; abortOnFail in one scenario ends them all', async (t) => {
  const server = await countingServer(t);
  const result = await runLoad({
    url: server.url,
    connections: 1,
    duration: 20_000,
    scenarios: { a: { url: `${server.url}/a` }, b: { url: `${server.url}/b`, amount: 50 } },
    thresholds: {
      'requests.completed{scenario:b}': '== 50',
      'requests.completed{scenario:a}': { threshold: '< 200', abortOnFail: true },
      'errors.rate{scenario:c}': '< 0.01',
    },
  });
  t.equal(result.byScenario!.b!.requests.completed, 50);
  t.equal(result.byScenario!.a!.aborted, true, 'a aborted on its threshold');
  t.ok(result.durationMs < 10_000, `long before its 20 s: ${result.durationMs} ms`);
  t.same(result.thresholds!.map((threshold) => threshold.passed), [true, false, false]);
  t.match(result.thresholds![2]!.message, /no scenario "c" in this run \(scenarios: "a", "b"\)/);
  t.equal(result.ok, false);
});

t.test('two segments of a scenarios run merge exactly, scenario by scenario', async (t) => {
  const server = await countingServer(t);
  const options = {
    url: server.url,
    connections: 2,
    startAt: Date.now() + 1000,
    scenarios: { one: { url: `${server.url}/one`, amount: 301 }, two: { url: `${server.url}/two`, amount: 200, connections: 4 } },
  };
  const segments = await Promise.all([0, 1].map((index) => runLoad({ ...options, segment: { index, count: 2 } })));
  const merged = mergeResults(segments.map((result) => JSON.parse(JSON.stringify(result)) as LoadResult));
  t.equal(merged.byScenario!.one!.requests.completed, 301);
  t.equal(merged.byScenario!.two!.requests.completed, 200);
  t.same(server.byPath, { '/one': 301, '/two': 200 });
  t.equal(merged.byName!['GET /one']!.requests.completed, 301);
  addsUp(t, merged);
});

t.test('a scenario\'s bad option is named from the run\'s options', async (t) => {
  const url = 'http://127.0.0.1:9/';
  await t.rejects(runLoad({ url, scenarios: { browse: { rate: -1 } } }), { option: 'scenarios.browse.rate', message: /^scenarios\.browse: rate/ });
  await t.rejects(runLoad({ url, scenarios: { browse: { rat: 5 } as never } }), { code: 'SALVO_INVALID_OPTION', option: 'scenarios.browse.rat' });
  await t.rejects(runLoad({ url, scenarios: { browse: { thresholds: {} } as never } }), { code: 'SALVO_INVALID_OPTION', option: 'scenarios.browse.thresholds' });
  await t.rejects(runLoad({ url, scenarios: {} }), { code: 'SALVO_INVALID_OPTION', option: 'scenarios' });
  await t.rejects(runLoad({ url, scenarios: { a: 5 as never } }), { code: 'SALVO_INVALID_OPTION', option: 'scenarios.a' });
});

t.test('a WebSocket scenario beside an HTTP one', async (t) => {
  const http = await countingServer(t);
  const ws = await testServer(t, { websocket: true });
  const result = await runLoad({
    url: http.url,
    connections: 2,
    scenarios: {
      browse: { url: `${http.url}/browse`, amount: 200 },
      chat: { url: ws.url, connections: 3, amount: 300, websocket: { message: 'ping' } },
    },
  });
  const { browse, chat } = result.byScenario!;
  t.equal(browse!.requests.completed, 200);
  t.equal(http.byPath['/browse'], 200, 'the HTTP server saw the browse scenario\'s requests');
  t.equal(chat!.transport, 'websocket');
  t.equal(chat!.messages?.received, 300, 'the WebSocket scenario\'s echoes');
  t.equal(ws.stats.websocket?.messagesReceived, 300, 'the WebSocket server saw its messages');
  t.same(Object.keys(result.byName!), ['GET /browse'], 'the run\'s names are the HTTP requests\'');
  t.equal(result.requests.completed, 500, 'the run adds both up');
});

t.test('onProgress hears each second of the whole run once, in order, with each scenario\'s part', async (t) => {
  const server = await countingServer(t);
  const events: ProgressEvent[] = [];
  const result = await runLoad({
    url: server.url,
    connections: 1,
    duration: '3s',
    onProgress: (event) => events.push(event),
    // early on two worker threads: its seconds come merged from them, latencies included
    scenarios: { early: { path: '/early', rate: 50, workers: 2 }, late: { path: '/late', rate: 20, start: '1s', duration: '2s' } },
  });
  t.same(events.map((event) => event.second), [0, 1, 2], 'one event per second of the run, not one per scenario\'s second');
  t.same(Object.keys(events[0]!.byScenario!), ['early'], 'a scenario not started yet has no part');
  t.same(Object.keys(events[2]!.byScenario!).sort(), ['early', 'late']);
  for (const event of events) {
    const parts = Object.values(event.byScenario!);
    t.equal(parts.reduce((sum, part) => sum + part.sent, 0), event.sent, `second ${event.second}: the scenarios add up to its sent`);
    if (event.completed > 0) t.ok(Number.isFinite(event.p50) && Number.isFinite(event.p99), `second ${event.second}: latencies of the whole run`);
  }
  t.equal(events.at(-1)!.totals.sent, result.requests.sent, 'the last event\'s totals are the run\'s');
  t.equal(events.at(-1)!.byScenario!.late!.totals.sent, result.byScenario!.late!.requests.sent, 'and a scenario\'s totals its own');
  t.same(result.timeline.map((second) => second.sent), events.map((event) => event.sent), 'the events are the timeline\'s seconds');
});

t.test('a scenario\'s path resolves against the run\'s url; the run names its own url and each scenario its target', async (t) => {
  const server = await countingServer(t);
  const result = await runLoad({
    url: server.url,
    connections: 1,
    scenarios: { browse: { path: '/browse?page=2', amount: 30 }, pay: { path: '/pay', method: 'POST', body: '{}', amount: 20, rate: 100 } },
  });
  t.same(server.byPath, { '/browse': 30, '/pay': 20 }, 'the server saw each scenario\'s path');
  t.equal(result.url, server.url, 'the run\'s url is its own, not the first scenario\'s');
  t.equal(result.byScenario!.browse!.url, `${server.url}/browse?page=2`);
  t.equal(result.merge.plan.scenarios!.pay!.rate, 100, 'each scenario\'s shape is in the plan');
  t.equal(result.merge.plan.stages, undefined, 'the run\'s plan has no one scenario\'s shape');
  await t.rejects(runLoad({ url: server.url, scenarios: { a: { path: 'pay' } } }), { code: 'SALVO_INVALID_OPTION', option: 'scenarios.a.path' });
});

t.test('thresholds are judged once, on the run; a scenario\'s result keeps its own ok', async (t) => {
  const server = await countingServer(t);
  const result = await runLoad({
    url: server.url,
    connections: 1,
    scenarios: { a: { path: '/a', amount: 10 }, b: { path: '/b', amount: 5 } },
    thresholds: { 'requests.completed': '== 15', 'requests.completed{scenario:b}': '== 4' },
  });
  t.same(result.thresholds!.map((threshold) => threshold.passed), [true, false]);
  t.equal(result.ok, false);
  t.equal(result.byScenario!.b!.thresholds, undefined, 'a scenario is not judged on its own');
  t.equal(result.byScenario!.b!.merge.thresholds, undefined, 'nor carries thresholds to judge again on merging');
});

t.test('the plan of a run is its scenarios: a plain run is one, default', async (t) => {
  const { planRun } = await import('../../src/scenarios.js');
  const plain = await planRun({ url: 'http://127.0.0.1:9/', rate: 10 });
  t.same(plain.scenarios.map(({ name, startMs, plan }) => ({ name, startMs, kind: plan.kind, rate: plan.rate })), [{ name: 'default', startMs: 0, kind: 'http', rate: 10 }]);
  t.equal(plain.named, false);
  const run = await planRun({ url: 'ws://127.0.0.1:9/', scenarios: { chat: { websocket: { message: 'x' } }, api: { url: 'http://127.0.0.1:9/', path: '/a', start: '1s' } } });
  t.same(run.scenarios.map(({ name, startMs, plan }) => [name, startMs, plan.kind, plan.url]), [['chat', 0, 'websocket', 'ws://127.0.0.1:9/'], ['api', 1000, 'http', 'http://127.0.0.1:9/a']]);
  t.equal(run.named, true);
});

t.test('the run\'s options are defaults: a scenario leaves out those its kind has no use for, and is checked on its own', async (t) => {
  const server = await countingServer(t);
  let calls = 0;
  const result = await runLoad({
    url: server.url,
    method: 'POST',
    rate: 200,
    connections: 2,
    scenarios: { api: { path: '/api', amount: 20 }, work: { task: async () => void calls++, amount: 30, rate: undefined } },
  });
  t.equal(server.byPath['/api'], 20, 'the HTTP scenario takes the run\'s url, method and rate');
  t.equal(calls, 30, 'the task scenario runs without the run\'s url and method');
  t.equal(result.byScenario!.work!.transport, 'task');
  await t.rejects(runLoad({ url: server.url, scenarios: { work: { task: async () => {}, method: 'POST' } } }), { code: 'SALVO_INVALID_OPTION', option: 'scenarios.work.method' });
});
