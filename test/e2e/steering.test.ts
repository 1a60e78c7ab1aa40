// startLoad's handle against a server in its own process that counts on its own clock: a rate
// changed mid-run (per-second arrivals follow it with no burst), a run stopped early (every request
// counted once, the server's count equal to `sent`), connections changed mid-run (sockets open).
import t from 'tap';
import { startLoad, type LoadResult, type ProgressEvent } from '../../src/index.js';
import { renderReport } from '../../src/report/index.js';
import { perSecond, steerServer } from '../fixtures/steer-server.js';
import { inSomeRun } from '../fixtures/timing.js';

/** The server's arrivals once it has `expected` of them (requests in flight at the end arrive a moment later), or after 2 s. */
async function settledArrivals(server: { arrivals(): Promise<number[]> }, expected: number): Promise<number[]> {
  const arrivals: number[] = [];
  const deadline = performance.now() + 2000;
  do {
    arrivals.push(...(await server.arrivals()));
    if (arrivals.length >= expected) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  } while (performance.now() < deadline);
  return arrivals;
}

/** The requests the steps' rates plan in each whole second: the integral of the piecewise-constant rate. */
function plannedPerSecond(result: LoadResult, initialRate: number, seconds: number): number[] {
  const changes = [{ atMs: 0, rate: initialRate }, ...(result.steps ?? []).map(({ atMs, rate }) => ({ atMs, rate: rate! }))];
  return Array.from({ length: seconds }, (_, second) => {
    let total = 0;
    changes.forEach(({ atMs, rate }, index) => {
      const until = changes[index + 1]?.atMs ?? Infinity;
      const overlap = Math.min(until, (second + 1) * 1000) - Math.max(atMs, second * 1000);
      if (overlap > 0) total += (rate * overlap) / 1000;
    });
    return total;
  });
}

t.test('setRate 1,000/s -> 3,000/s -> 1,000/s over 2 workers: the server follows within a second, no second above the plan by 2%', async (t) => {
  const server = await steerServer(t);
  await inSomeRun(t, 3, async (timing) => {
    const run = startLoad({
      url: server.url,
      rate: 1000,
      duration: '6s',
      workers: 2,
      connections: 40,
      onProgress: (event: ProgressEvent) => {
        if (event.second === 1) run.setRate(3000);
        if (event.second === 3) run.setRate(1000);
      },
    });
    const result = await run.result;
    const arrivals = await settledArrivals(server, result.requests.sent);
    t.equal(arrivals.length, result.requests.sent, 'the server counted every request sent, and no more');
    t.equal(result.requests.sent, result.requests.completed + result.errors.total + result.requests.unfinished, 'each request in one count');
    t.same(result.steps?.map(({ rate }) => rate), [3000, 1000], 'each change is a step of the result');
    t.match(renderReport(result), /id="steps"[^]*startLoad(&#39;|')s setRate/, "the report's Steps section draws them");
    const counts = perSecond(arrivals, result.startedAt, 6);
    const planned = plannedPerSecond(result, 1000, 6);
    const [up, down] = result.steps!.map(({ atMs }) => atMs);
    timing.ok(up! >= 2000 && up! < 2600 && down! >= 4000 && down! < 4600, `the changes took effect at ${up} and ${down} ms (the seconds 1 and 3 closed)`);
    timing.ok(counts[3]! >= 0.93 * 3000 && counts[3]! <= 1.02 * 3000, `the second after the rise saw ${counts[3]} requests (3,000 planned)`);
    timing.ok(counts[5]! >= 0.93 * 1000 && counts[5]! <= 1.02 * 1000, `the second after the fall saw ${counts[5]} requests (1,000 planned)`);
    // From the first change on, no whole second goes above what the steps plan (a catch-up burst would).
    const over = counts.flatMap((count, second) => (second >= 2 && count > 1.02 * planned[second]! + 2 ? [`second ${second}: ${count} > ${planned[second]!.toFixed(0)}`] : []));
    timing.ok(over.length === 0, `no second above its planned rate by more than 2% (${counts.join(', ')} vs ${planned.map((n) => n.toFixed(0)).join(', ')}) ${over.join('; ')}`);
    // Nor does the run ever get ahead of the plan: a stalled host only ever makes it late.
    let sent = 0;
    let due = 0;
    const ahead = counts.flatMap((count, second) => ((sent += count) > (due += planned[second]!) * 1.01 + 5 ? [`by second ${second}: ${sent} > ${due.toFixed(0)}`] : []));
    timing.ok(ahead.length === 0, `never ahead of the plan ${ahead.join('; ')}`);
    timing.ok(result.timeline[3]?.targetRate === 3000 && result.timeline[5]?.targetRate === 1000, `the timeline's target follows (${result.timeline.map((s) => s.targetRate).join(', ')})`);
  });
});

t.test('stop() at 2.5 s of a 10 s run: it resolves at once, every request sent counted once, and the server saw exactly `sent`', async (t) => {
  const server = await steerServer(t, 1);
  await inSomeRun(t, 3, async (timing) => {
    let stoppedAt = 0;
    const run = startLoad({
      url: server.url,
      rate: 1000,
      duration: '10s',
      workers: 2,
      onProgress: (event: ProgressEvent) => {
        if (event.second !== 1) return;
        setTimeout(() => {
          stoppedAt = performance.now();
          void run.stop();
        }, 450);
      },
    });
    const result = await run.result;
    const resolvedAfterMs = performance.now() - stoppedAt;
    await run.stop();
    const arrivals = await settledArrivals(server, result.requests.sent);
    const { sent, completed, unfinished } = result.requests;
    t.ok(result.aborted, 'a stopped run says it was ended early');
    t.equal(sent, completed + result.errors.total + unfinished, `each request in exactly one count (sent ${sent}, completed ${completed}, errors ${result.errors.total}, unfinished ${unfinished})`);
    t.equal(arrivals.length, sent, "the server's count equals requests.sent");
    t.throws(() => run.setRate(500), /setRate: the run has ended/, 'a change after the end names the method');
    timing.ok(resolvedAfterMs < 1000, `result resolved ${resolvedAfterMs.toFixed(0)} ms after stop()`);
    timing.ok(result.durationMs > 2300 && result.durationMs < 3000, `measured ${result.durationMs.toFixed(0)} ms of the 10 s`);
  });
});

t.test('setConnections down and up in a closed loop over 2 workers: the server sees the sockets close and open', async (t) => {
  const server = await steerServer(t, 5);
  await inSomeRun(t, 3, async (timing) => {
    const seen: Array<Promise<{ open: number; most: number }>> = [];
    const run = startLoad({
      url: server.url,
      connections: 8,
      duration: '4s',
      workers: 2,
      onProgress: (event: ProgressEvent) => {
        if (event.second === 0) run.setConnections(2);
        if (event.second === 1) seen.push(server.sockets());
        if (event.second === 1) run.setConnections(6);
        if (event.second === 2) seen.push(server.sockets());
      },
    });
    const result = await run.result;
    const [low, high] = await Promise.all(seen);
    t.same(result.steps?.map(({ connections }) => connections), [2, 6], 'each change is a step of the result');
    t.equal(result.requests.sent, result.requests.completed + result.errors.total + result.requests.unfinished, 'each request in one count');
    t.equal(result.errors.total, 0, 'ramping down released the connections cleanly: no errors');
    timing.ok(low?.open === 2, `2 sockets open after setConnections(2) (saw ${low?.open})`);
    timing.ok(high?.open === 6, `6 sockets open after setConnections(6) (saw ${high?.open})`);
    timing.ok(high!.most <= 8, `never more than the 8 planned (most ${high?.most})`);
  });
});

t.test("in this thread (workers: 1): setRate follows, and setConnections caps a rate run's connections", async (t) => {
  const server = await steerServer(t, 1);
  await inSomeRun(t, 3, async (timing) => {
    const seen: Array<Promise<{ open: number; most: number }>> = [];
    const run = startLoad({
      url: server.url,
      rate: 500,
      connections: 10,
      duration: '3s',
      onProgress: (event: ProgressEvent) => {
        if (event.second === 0) {
          run.setRate(1500);
          run.setConnections(3);
        }
        if (event.second === 1) seen.push(server.sockets());
      },
    });
    const result = await run.result;
    const [capped] = await Promise.all(seen);
    const arrivals = await settledArrivals(server, result.requests.sent);
    t.equal(arrivals.length, result.requests.sent, "the server's count equals requests.sent");
    t.same(result.steps?.map(({ rate, connections }) => rate ?? connections), [1500, 3], 'each change is a step');
    timing.ok(result.timeline[2]?.targetRate === 1500, `the schedule holds 1,500 in the last second (${result.timeline.map((s) => s.targetRate).join(', ')})`);
    const counts = perSecond(arrivals, result.startedAt, 3);
    timing.ok(counts[2]! >= 0.93 * 1500 && counts[2]! <= 1.02 * 1500, `the server saw ${counts[2]} in the last second`);
    timing.ok(capped?.open === 3, `3 sockets open under the cap (saw ${capped?.open})`);
  });
});

t.test("setRate on poisson arrivals over 2 workers: the server's count is sent, and the drawn run follows the new rate", async (t) => {
  const server = await steerServer(t);
  await inSomeRun(t, 3, async (timing) => {
    const run = startLoad({
      url: server.url,
      rate: 500,
      duration: '3s',
      workers: 2,
      connections: 40,
      arrivals: { distribution: 'poisson', seed: 7 },
      onProgress: (event: ProgressEvent) => {
        if (event.second === 0) run.setRate(1500);
      },
    });
    const result = await run.result;
    const arrivals = await settledArrivals(server, result.requests.sent);
    t.equal(arrivals.length, result.requests.sent, "the server's count equals requests.sent");
    t.same(result.steps?.map(({ rate }) => rate), [1500], 'the change is a step');
    const atMs = result.steps![0]!.atMs;
    // The measured run's count is the integral of the steered rate (the draws only place the arrivals).
    const planned = (500 * atMs + 1500 * (3000 - atMs)) / 1000;
    timing.ok(Math.abs(result.requests.sent - planned) <= 0.01 * planned + 5, `sent ${result.requests.sent}, the steered rate plans ${planned.toFixed(0)} (change at ${atMs} ms)`);
    // A Poisson second of 1,500 has a standard deviation of about 39: 15% is some 6 of them.
    const counts = perSecond(arrivals, result.startedAt, 3);
    timing.ok(atMs < 1600 && Math.abs(counts[2]! - 1500) <= 0.15 * 1500, `the server saw ${counts[2]} in the last second (1,500 planned)`);
  });
});

t.test('maxConnections: a closed loop over 2 workers starts at its 2 connections and setConnections raises it to 6', async (t) => {
  await inSomeRun(t, 3, async (timing) => {
    // A server per try: its `most` counts from its start.
    const server = await steerServer(t, 5);
    const seen: Array<Promise<{ open: number; most: number }>> = [];
    const run = startLoad({
      url: server.url,
      connections: 2,
      maxConnections: 6,
      duration: '3s',
      workers: 2,
      onProgress: (event: ProgressEvent) => {
        if (event.second === 0) {
          seen.push(server.sockets());
          run.setConnections(6);
        }
        if (event.second === 1) seen.push(server.sockets());
      },
    });
    t.throws(() => run.setConnections(7), { name: 'SalvoRangeError', message: /^setConnections: 7 is more than the 6 connections[^]*maxConnections: 7/ });
    const result = await run.result;
    const [before, after] = await Promise.all(seen);
    const arrivals = await settledArrivals(server, result.requests.sent);
    t.equal(arrivals.length, result.requests.sent, "the server's count equals requests.sent");
    t.same(result.steps?.map(({ connections }) => connections), [6], 'the raise is a step');
    t.equal(result.connections, 2, 'the result names the connections it started with');
    t.equal(result.errors.total, 0, 'no errors');
    timing.ok(before?.open === 2 && before.most === 2, `2 sockets open before the raise, the parked lanes' never opened (saw ${before?.open}, most ${before?.most})`);
    timing.ok(after?.open === 6 && after.most <= 6, `6 sockets open after setConnections(6) (saw ${after?.open}, most ${after?.most})`);
  });
});

t.test('the handle says what it cannot do, naming the method', async (t) => {
  const closed = startLoad({ url: 'http://127.0.0.1:9/', connections: 2, duration: '1s' });
  t.throws(() => closed.setRate(100), { name: 'SalvoOptionError', message: /^setRate: this run has no rate/ });
  t.throws(() => closed.setConnections(0), { name: 'SalvoRangeError', message: /^setConnections: expected/ });
  t.throws(() => closed.setConnections(3), { name: 'SalvoRangeError', message: /^setConnections: 3 is more than the 2 connections/ });
  t.throws(() => closed.setConnections(1.5), { name: 'SalvoRangeError', message: /^setConnections: expected a whole number/ });
  await closed.stop();
  const rated = startLoad({ url: 'http://127.0.0.1:9/', rate: 10, duration: '1s' });
  t.throws(() => rated.setRate(Number.NaN), { name: 'SalvoRangeError', message: /^setRate: expected a finite number/ });
  t.throws(() => rated.setRate(-1), { name: 'SalvoRangeError', message: /^setRate: expected/ });
  await rated.stop();
  t.throws(() => rated.setConnections(1), /^setConnections: the run has ended/);
});
