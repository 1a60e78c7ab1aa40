// findCapacity against test servers whose limit is known: one that serves at most N requests a second
// and queues the rest, and a slow one that too few connections cannot load. Steps are 1 s, with no
// warm-up, so that the server's count is exactly the steps' sent requests.
import t, { type Test } from 'tap';
import { findCapacity, formatCapacity } from '../../src/index.js';
import type { FindCapacityOptions, CapacityResult, CapacityStepEvent } from '../../src/index.js';
import type { TestServer } from '../../src/testing/index.js';
import { testServer } from '../fixtures/test-server.js';
import { serverCount } from '../fixtures/server-count.js';
import { inSomeRun } from '../fixtures/timing.js';

/**
 * The median, not p99: a queue past capacity raises every request's latency and so the median
 * by tens of ms within a second, while this shared host's stalls only reach the tail.
 */
const SLO = { 'latency.p50': '< 10', 'errors.rate': '< 0.001' };
const QUICK = { stepDuration: '1s', warmup: 0, pause: '50ms', confirmDuration: '2s' } as const;

function sentByAllSteps(result: CapacityResult): number {
  return result.steps.reduce((sum, step) => sum + step.result.requests.sent, 0);
}

/** Growth doubles from start past capacity; bisection halves the bracket down to precision; 4 confirmations; each step may run twice. */
function stepBound(start: number, capacity: number, precision: number): number {
  const growth = Math.ceil(Math.log2((2 * capacity) / start)) + 1;
  const bisection = Math.ceil(Math.log2(1 / precision)) + 1;
  return 2 * (growth + bisection + 4);
}

async function searchFinds(t: Test, capacity: number, start: number): Promise<void> {
  await inSomeRun(t, 3, async (timing) => {
    const server: TestServer = await testServer(t, { capacity });
    const options: FindCapacityOptions = { url: server.url, connections: 100, slo: SLO, start, max: 10 * capacity, ...QUICK };
    const result = await findCapacity(options);
    t.equal(await serverCount(server, sentByAllSteps(result)), sentByAllSteps(result), "the server's count is the steps' sent requests");
    t.ok(result.steps.length <= stepBound(start, capacity, 0.05), `${result.steps.length} steps, within the bound`);
    t.ok(result.steps.every((step) => step.result.rate === step.rate), "each step ran at its own rate");
    t.comment(formatCapacity(result));
    timing.ok(result.limitedBy === 'server', `limited by ${result.limitedBy}: ${result.message}`);
    const found = result.capacity ?? Number.NaN;
    timing.ok(Math.abs(found - capacity) <= 0.05 * capacity, `found ${found} req/s; the server serves ${capacity}/s (precision 5%)`);
    timing.ok(result.confirmed, 'confirmed by a longer run');
    const { highestPassed, lowestFailed } = result;
    timing.ok(
      highestPassed !== undefined && lowestFailed !== undefined && lowestFailed - highestPassed <= 0.05 * highestPassed,
      `bracketed within precision: ${highestPassed} passed, ${lowestFailed} failed`,
    );
  });
}

t.test('finds a 300 req/s capacity within 5%', (t) => searchFinds(t, 300, 70));

t.test('finds an 800 req/s capacity within 5%', (t) => searchFinds(t, 800, 150));

t.test('an SLO that even the start rate fails: no capacity, said plainly', async (t) => {
  const server = await testServer(t, { delayMs: 30 });
  const events: CapacityStepEvent[] = [];
  const result = await findCapacity({
    url: server.url, slo: { 'latency.p50': '< 10' }, start: 50, ...QUICK, onStep: (event) => events.push(event),
  });
  t.equal(result.capacity, undefined);
  t.equal(result.limitedBy, 'server');
  t.equal(result.highestPassed, undefined);
  t.equal(result.lowestFailed, 50);
  t.equal(result.steps.length, 1, 'the search stops at the first step');
  t.equal(result.steps[0]!.limitedBy, 'server');
  t.ok(result.steps[0]!.p50 >= 30, `p50 ${result.steps[0]!.p50} ms: the server's 30 ms delay`);
  t.match(result.message, /^Even the lowest rate tried, start = 50 req\/s, failed the SLO on the server \(latency\.p50 < 10 \(actual \d+\.\d\d ms\)\)/);
  t.same(events.map((e) => [e.type, e.index, e.phase, e.rate]), [['start', 0, 'grow', 50], ['end', 0, 'grow', 50]]);
  t.equal(await serverCount(server, sentByAllSteps(result)), sentByAllSteps(result), "the server's count is the steps' sent requests");
  t.match(formatCapacity(result), /Capacity {6}none found \(limited by server\)/);
});

t.test('too few connections for the rate against a slow server: the generator is the limit, no capacity', (t) =>
  // 4 connections to a 50 ms server carry 80 requests/s at most; the server itself has no limit. A
  // stalled host can make its own CPU the limit first (limitedBy 'generator'): the verdict repeats.
  inSomeRun(t, 3, async (timing) => {
    const server = await testServer(t, { delayMs: 50 });
    const result = await findCapacity({ url: server.url, connections: 4, slo: { 'latency.p50': '< 100' }, start: 25, max: 1000, ...QUICK });
    t.comment(formatCapacity(result));
    timing.ok(result.limitedBy === 'connections', `limited by ${result.limitedBy}: ${result.message}`);
    t.equal(result.capacity, undefined, 'no capacity is claimed');
    t.equal(result.confirmed, false);
    const last = result.steps.at(-1)!;
    timing.ok(last.limitedBy === 'connections', `the last step limited by ${last.limitedBy}`);
    timing.ok(last.rate === 100, `the step that stopped it asked for ${last.rate}/s: 100/s is over the 80/s that 4 connections carry`);
    timing.ok(result.steps.slice(0, -1).every((step) => step.passed), 'every step before it passed');
    timing.ok(result.highestPassed === result.steps.at(-2)?.rate, `the highest passed is the step before: ${result.highestPassed}`);
    timing.ok(/all 4 connections were busy/.test(result.message) && /raise connections/.test(result.message), `the message says why: ${result.message}`);
    t.equal(await serverCount(server, sentByAllSteps(result)), sentByAllSteps(result), "the server's count is the steps' sent requests");
  }),
);

/** An objective a host's stalls cannot fail at a tenth of the server's capacity, for tests of the search's course. */
const ERRORS_ONLY = { 'errors.rate': '< 0.001' };

t.test('aborting stops the search with the steps so far, the running one partial', (t) =>
  // How soon the search returns after the abort, and the partial step's length, are the host's
  // timing as well as salvo's: those claims repeat.
  inSomeRun(t, 3, async (timing) => {
    const server = await testServer(t, { capacity: 4000 });
    const controller = new AbortController();
    const started = performance.now();
    let abortedAt = 0;
    const result = await findCapacity({
      url: server.url, connections: 50, slo: ERRORS_ONLY, start: 100, ...QUICK, stepDuration: '2s', signal: controller.signal,
      onStep: (event) => {
        if (event.type === 'start' && event.rate === 400) {
          setTimeout(() => {
            abortedAt = performance.now();
            controller.abort();
          }, 300);
        }
      },
    });
    const returnedAfterMs = performance.now() - abortedAt;
    t.equal(result.aborted, true);
    t.equal(result.limitedBy, 'aborted');
    t.equal(result.capacity, undefined);
    t.equal(result.steps.length, 3, 'two whole steps and the partial third');
    t.same(result.steps.map((s) => s.rate), [100, 200, 400]);
    t.equal(result.highestPassed, 200);
    const partial = result.steps[2]!;
    t.equal(partial.result.aborted, true);
    timing.ok(partial.result.durationMs < 2000, `the third step measured ${partial.result.durationMs.toFixed(0)} ms of its 2000`);
    t.same(partial.failures, ['aborted before the step ended']);
    t.match(result.message, /^Aborted after 3 steps, before the search concluded\. The highest rate that met the SLO was 200 req\/s\./);
    t.equal(await serverCount(server, sentByAllSteps(result)), sentByAllSteps(result), "the server's count is the steps' sent requests");
    timing.ok(returnedAfterMs < 1000, `returned ${returnedAfterMs.toFixed(0)} ms after the abort`);
    timing.ok(performance.now() - started < 6000, `the search took ${Math.round(performance.now() - started)} ms in all`);
  }),
);

t.test('a server that passes every rate up to max: capacity max, limited by max', async (t) => {
  const server = await testServer(t, { capacity: 5000 });
  const ends: number[] = [];
  const result = await findCapacity({
    url: server.url, connections: 20, slo: ERRORS_ONLY, start: 60, max: 200, ...QUICK, confirmDuration: '1s',
    onStep: (event) => void (event.type === 'end' && ends.push(event.rate)),
  });
  t.comment(formatCapacity(result));
  t.same(result.steps.map((step) => [step.phase, step.rate]), [['grow', 60], ['grow', 120], ['grow', 200], ['confirm', 200]], 'doubled, capped at max, confirmed there');
  t.same(ends, [60, 120, 200, 200], 'onStep reported each step as it ended');
  t.equal(result.limitedBy, 'max');
  t.equal(result.capacity, 200);
  t.equal(result.confirmed, true);
  t.equal(result.highestPassed, 200);
  t.equal(result.lowestFailed, undefined);
  t.equal(result.message, 'Every rate up to max, 200 req/s, met the SLO, confirmed by a 1 s run: the capacity is at least that. Raise max to search further.');
  t.equal(await serverCount(server, sentByAllSteps(result)), sentByAllSteps(result), "the server's count is the steps' sent requests");
});
