import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { runExitStatus } from '../../src/cli/command.js';
import { compareResults, formatResult, mergeResults, runLoad } from '../../src/index.js';
import type { TransportName } from '../../src/shared/terms.js';
import { inSomeRun } from '../fixtures/timing.js';
import { startSubscriptionServer, type SubscriptionServerOptions } from '../fixtures/subscription-server.js';

const CLIENTS = 3;
const EVENTS = 12;
const CUT_AFTER = 5;
const RETRY_MS = 150;

async function server(t: Test, options: SubscriptionServerOptions) {
  const started = await startSubscriptionServer(options);
  t.teardown(() => started.close());
  return started;
}

for (const transport of ['net', 'undici', 'http', 'h2'] as TransportName[]) {
  t.test(`${transport}: every event of every subscriber, a cut connection resumed from its Last-Event-ID after the server's retry`, async (t) => {
    await inSomeRun(t, 5, async (timing) => {
      const sse = await startSubscriptionServer({ events: EVENTS, intervalMs: 5, retryMs: RETRY_MS, cutAfter: CUT_AFTER, h2: transport === 'h2' });
      const result = await runLoad({ url: `${sse.url}/feed`, transport, connections: CLIENTS, duration: 1200, stream: { format: 'sse', subscribe: true, timestamp: { field: 't' } } });
      await sse.close();
      const stream = result.stream!;
      const subscriptions = stream.subscriptions!;
      t.equal(sse.written, CLIENTS * EVENTS, 'the server wrote each event once (none twice after the reconnection)');
      t.equal(stream.events, CLIENTS * EVENTS, 'events received = events the server sent');
      t.same([...sse.lastEventIds].sort(), [0, 1, 2].map((who) => `${who}-${CUT_AFTER}`), "each reconnection named its subscriber's last event before the cut");
      t.equal(sse.requests.get('/feed'), 2 * CLIENTS, 'one subscription and one reconnection per client');
      t.equal(result.requests.sent, 2 * CLIENTS);
      t.same(subscriptions.closes, { lost: CLIENTS }, 'the cut connections, lost mid-stream');
      t.equal(subscriptions.reconnects, CLIENTS);
      t.equal(subscriptions.subscribed, 2 * CLIENTS);
      t.equal(subscriptions.open, CLIENTS, 'every client subscribed at the end');
      t.equal(result.requests.unfinished, CLIENTS, 'open subscriptions are unfinished requests');
      t.equal(result.errors.total, CLIENTS, 'each cut is an error of its request');
      t.equal(result.requests.sent, result.requests.completed + result.errors.total + result.requests.unfinished!, 'sent = completed + errors + unfinished');
      for (const delay of sse.reconnectDelays) {
        timing.ok(delay >= RETRY_MS - 1 && delay < RETRY_MS + 30, `reconnected ${delay.toFixed(1)} ms after the cut, retry ${RETRY_MS} ms`);
      }
    });
  });
}

t.test('delivery latency per event against the server\'s known delay, and thresholds on the subscription figures', async (t) => {
  const DELAY_MS = 20;
  await inSomeRun(t, 5, async (timing) => {
    const sse = await startSubscriptionServer({ events: 10, intervalMs: 30, delayMs: DELAY_MS });
    const result = await runLoad({
      url: sse.url,
      connections: 4,
      duration: 800,
      stream: { format: 'sse', subscribe: true, timestamp: { field: 't' } },
      thresholds: { 'stream.delivery.p50': `< ${DELAY_MS + 5}`, 'stream.subscriptions.reconnects': '== 0', 'stream.subscriptions.open': '== 4', 'stream.events': '< 1' },
    });
    await sse.close();
    const stream = result.stream!;
    t.equal(stream.events, sse.written, 'events received = events written');
    t.same(stream.subscriptions!.closes, {}, 'nothing closed');
    t.same(result.thresholds!.map((threshold) => threshold.passed), [true, true, true, false], 'thresholds on delivery, reconnects, open subscriptions and events');
    t.match(formatResult(result), /Subscriptions\s+4 open, 4 subscribed, 0 reconnects/);
    t.match(formatResult(result), /4 unfinished \(subscriptions open at the end\)/);
    // A timer may fire a fraction of a ms early: the delays the server really applied are the truth.
    const applied = [...sse.applied].sort((a, b) => a - b);
    const median = applied[applied.length >> 1]!;
    t.ok(stream.delivery!.min >= applied[0]! - 0.01, `no delivery faster than the server's shortest delay (${stream.delivery!.min} ms, ${applied[0]!.toFixed(3)} ms)`);
    timing.hostKept(median < DELAY_MS + 1, `the server kept its ${DELAY_MS} ms delay (median ${median.toFixed(3)} ms)`);
    timing.ok(stream.delivery!.p50 - median < 1, `delivery p50 ${stream.delivery!.p50} ms within 1 ms of the server's median delay ${median.toFixed(3)} ms`);
  });
});

t.test('a stream the server ends is resubscribed after retry; 204, 503 and a page that is no event stream stop their client', async (t) => {
  const sse = await server(t, { events: 3, intervalMs: 5, retryMs: 100, endAfter: 2 });
  const ended = await runLoad({ url: `${sse.url}/feed`, connections: 2, duration: 600, stream: { format: 'sse', subscribe: true } });
  t.same(ended.stream!.subscriptions!.closes, { ended: 2 });
  t.equal(ended.stream!.events, 6, 'two events, then the third after resubscribing from id 2');
  t.same(sse.lastEventIds.sort(), ['0-2', '1-2']);
  t.equal(ended.requests.completed, 2, 'the ended responses completed');
  t.same(ended.statusCodes, { 200: 2 });

  for (const transport of ['net', 'undici', 'http', 'h2'] as TransportName[]) {
    const h2 = transport === 'h2' ? await server(t, { events: 1, intervalMs: 5, h2: true }) : sse;
    for (const [path, closes] of [['/204', { noContent: 2 }], ['/503', { rejected: 2 }], ['/html', { rejected: 2 }]] as const) {
      const before = h2.requests.get(path) ?? 0;
      const result = await runLoad({ url: `${h2.url}${path}`, transport, connections: 2, duration: 400, stream: { format: 'sse', subscribe: true } });
      const stopped = result.stream!.subscriptions!;
      t.same(stopped.closes, closes, `${transport} ${path}: ${JSON.stringify(closes)}`);
      t.equal((h2.requests.get(path) ?? 0) - before, 2, `${transport} ${path}: never subscribed again`);
      t.equal(stopped.subscribed, 0);
      t.equal(result.stream!.events, 0, `${transport} ${path}: a body that is no event stream is not read as one`);
      if (path === '/html') t.same(result.errors.byCode, { NOT_EVENT_STREAM: 2 }, `${transport}: a 200 of another type is an error`);
      else t.same(result.statusCodes, { [path.slice(1)]: 2 });
    }
  }
});

t.test('stages ramp the subscribers: the server holds as many as each step asks, and each step has its figures', async (t) => {
  await inSomeRun(t, 4, async (timing) => {
    const sse = await startSubscriptionServer({ events: 0, intervalMs: 25, broadcast: { stopAfterMs: 2100 } });
    const stages = [
      { duration: 500, connections: 2 },
      { duration: 300, connections: 6 },
      { duration: 500, connections: 6 },
      { duration: 300, connections: 3 },
      { duration: 700, connections: 3 },
    ];
    const result = await runLoad({ url: sse.url, connections: 2, stages, workers: 1, stream: { format: 'sse', subscribe: true, timestamp: { field: 't' } } });
    await sse.close();
    const stream = result.stream!;
    const steps = stream.subscriptions!.stages!;
    // A broadcast can race a ramp-down's close (written to a subscriber already gone): the host's timing.
    timing.ok(stream.events === sse.written, `events received ${stream.events} = the deliveries the server made ${sse.written}`);
    t.same([steps[0]!.open, steps[2]!.open, steps[4]!.open], [2, 6, 3], 'subscriptions open at the end of each steady step');
    t.equal(steps[0]!.sent, 2, 'the first step subscribes its two');
    t.equal(steps[1]!.sent + steps[2]!.sent, 4, 'the ramp-up adds four');
    t.equal(steps[3]!.sent + steps[4]!.sent, 0, 'the ramp-down subscribes none');
    t.equal(result.requests.sent, 6);
    t.equal(steps.reduce((sum, step) => sum + step.received, 0), stream.events, 'the steps\' events add up');
    t.same(stream.subscriptions!.closes, {}, 'a ramp-down is salvo\'s own close');
    const countAt = (ms: number) => sse.counts.find(([at]) => at >= ms)?.[1];
    timing.ok(countAt(250) === 2 && countAt(1050) === 6 && countAt(1850) === 3, `the server's subscribers mid-step: ${countAt(250)}, ${countAt(1050)}, ${countAt(1850)} (2, 6, 3)`);
    timing.ok(steps[2]!.perSecond > 6 * 35 && steps[2]!.perSecond < 6 * 41, `step 3: ${steps[2]!.perSecond.toFixed(1)} events/s from 6 subscribers of 40 broadcasts/s`);
  });
});

t.test('worker threads and merged results add the subscriptions up exactly', async (t) => {
  const sse = await server(t, { events: 4, intervalMs: 5, retryMs: 50, cutAfter: 2 });
  const result = await runLoad({ url: sse.url, connections: 4, workers: 2, duration: 700, stream: { format: 'sse', subscribe: true } });
  t.equal(result.stream!.events, 16);
  t.same(result.stream!.subscriptions!.closes, { lost: 4 });
  t.equal(result.stream!.subscriptions!.reconnects, 4);
  const merged = mergeResults([result, result]);
  t.equal(merged.stream!.subscriptions!.reconnects, 8);
  t.same(merged.stream!.subscriptions!.closes, { lost: 8 });
  const metrics = compareResults([result, result], [result, result]).rows.map((row) => row.metric);
  t.ok(metrics.includes('stream.perSecond') && !metrics.includes('stream.delivery.p99'), 'compared by their events/s by default (and by delivery p99 when timed)');
});

t.test('options a subscription has no use for are refused by name', async (t) => {
  const url = 'http://127.0.0.1:1';
  const sse = { format: 'sse', subscribe: true } as const;
  await t.rejects(runLoad({ url, stream: { format: 'ndjson', subscribe: true } }), { code: 'SALVO_INVALID_OPTION', option: 'stream.subscribe' });
  await t.rejects(runLoad({ url, stream: { ...sse, until: '[DONE]' } }), { code: 'SALVO_INVALID_OPTION', option: 'stream.until' });
  await t.rejects(runLoad({ url, stream: { ...sse, subscribe: 1 as unknown as boolean } }), { code: 'SALVO_INVALID_OPTION', option: 'stream.subscribe' });
  await t.rejects(runLoad({ url, stream: sse, rate: 10 }), { code: 'SALVO_INVALID_OPTION', option: 'rate' });
  await t.rejects(runLoad({ url, stream: sse, amount: 10 }), { code: 'SALVO_INVALID_OPTION', option: 'amount' });
  await t.rejects(runLoad({ url, stream: sse, pipelining: 2 }), { code: 'SALVO_INVALID_OPTION', option: 'pipelining' });
  await t.rejects(runLoad({ url, stream: sse, requests: [{ path: '/a' }, { path: '/b' }] }), { code: 'SALVO_INVALID_OPTION', option: 'requests' });
});

/** Python's http.server streaming SSE for ever, in a child process; its URL. */
async function pythonSse(t: Test, intervalMs: number): Promise<string> {
  const child = spawn('python3', [fileURLToPath(new URL('../fixtures/python-sse-server.py', import.meta.url)), String(intervalMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.teardown(() => child.stdin.end());
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  return `http://127.0.0.1:${line.toString().trim()}/events`;
}

t.test('a healthy subscription run is a success: ok, exit 0, and a summary that says what it held', async (t) => {
  const python = await pythonSse(t, 20);
  for (const transport of ['net', 'undici', 'http'] as TransportName[]) {
    const result = await runLoad({ url: python, transport, connections: 3, duration: 600, stream: { format: 'sse', subscribe: true } });
    const { events, subscriptions } = result.stream!;
    t.equal(subscriptions!.subscribed, 3, `${transport}: three subscriptions held`);
    t.equal(subscriptions!.open, 3);
    t.equal(result.requests.completed, 0, 'none ended: the server streams for ever');
    t.ok(events > 3 * 10, `${transport}: ${events} events received`);
    t.equal(result.ok, true, `${transport}: ok`);
    t.same(result.warnings.map((w) => w.code).filter((code) => code === 'NO_SUCCESS' || code === 'MOSTLY_FAILED'), [], 'no NO_SUCCESS');
    t.equal(runExitStatus(result), 0, 'the command would exit 0');
    const summary = formatResult(result);
    t.notMatch(summary, /no responses/);
    t.match(summary, /no subscription ended: 3 held open to the end/);
  }
  const sse = await server(t, { events: 1000, intervalMs: 10, h2: true });
  const h2 = await runLoad({ url: `${sse.url}/feed`, transport: 'h2', connections: 2, duration: 500, stream: { format: 'sse', subscribe: true } });
  t.equal(h2.stream!.subscriptions!.open, 2);
  t.equal(h2.ok, true, 'h2: ok');
  t.equal(runExitStatus(h2), 0);
  // Nothing held is still no success.
  const refused = await runLoad({ url: 'http://127.0.0.1:1/events', connections: 1, duration: 300, stream: { format: 'sse', subscribe: true } });
  t.equal(refused.ok, false, 'a run that held no subscription is no success');
  t.ok(refused.warnings.some((w) => w.code === 'NO_SUCCESS'));
});
