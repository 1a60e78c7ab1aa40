// Open-loop rate mode against server-side ground truth: when requests arrive (performance.now() in
// the server's onRequest), how many, and what latency a stalled server really causes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { runLoad } from '../../src/index.js';
import type { CreateTestServerOptions } from '../../src/testing/index.js';
import { refusedPort } from '../fixtures/raw-http-server.js';
import { serverCount } from '../fixtures/server-count.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun } from '../fixtures/timing.js';

async function timedServer(t: Test, options: CreateTestServerOptions = {}) {
  const arrivals: number[] = [];
  const server = await testServer(t, { ...options, onRequest: () => arrivals.push(performance.now()) });
  return { server, arrivals };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** How far arrival k strays from the line first + k / rate: a burst arrives ahead of it, a stall behind. */
function lagSpread(arrivals: number[], rate: number): number {
  let min = Infinity;
  let max = -Infinity;
  arrivals.forEach((at, k) => {
    const lag = at - arrivals[0]! - (k * 1000) / rate;
    min = Math.min(min, lag);
    max = Math.max(max, lag);
  });
  return max - min;
}

t.test('the target rate is met, with no burst at second boundaries', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const rate = 2000;
    const { server, arrivals } = await timedServer(t);
    const result = await runLoad({ url: server.url, rate, duration: 3000, connections: 10 });

    // A host that stalls the process right before the end can leave a few due slots unsent.
    t.equal(result.requests.sent + result.requests.missed, rate * 3, 'every slot due in 3 s was sent or counted as missed');
    timing.ok(result.requests.missed <= 20, `missed ${result.requests.missed}`);
    t.equal(result.requests.warmup, undefined, 'no warm-up by default (the pre-warm sends the server nothing)');
    t.equal(await serverCount(server, result.requests.sent), result.requests.sent, 'the server saw every request sent, and no other');
    const achieved = server.stats.requests / 3;
    timing.ok(Math.abs(achieved - rate) <= rate * 0.02, `server-side rate ${achieved}/s within 2% of ${rate}/s`);
    timing.ok(Math.abs(result.requests.perSecond - rate) <= rate * 0.02, `client-side ${result.requests.perSecond.toFixed(1)}/s within 2%`);
    // A slot due in the last millisecond that goes out just past the end opens a last partial second.
    t.same(result.timeline.slice(0, 3).map((s) => s.targetRate), [rate, rate, rate], 'each second shows its target');
    t.ok(result.timeline.length <= 4 && (result.timeline[3]?.sent ?? 0) <= 2, 'and no more than a straggler after them');

    // Per 100 ms window the share is 200. A burst at each second's start (autocannon) puts most of a
    // second's worth, 5 shares or more, in one window. A smooth pacer stays near one share, but a busy
    // 2-core host can stop the process for up to ~100 ms (measured), and what it held back goes out
    // at once: up to a second share in the next window.
    const windows = new Array<number>(Math.ceil((arrivals.at(-1)! - arrivals[0]!) / 100) + 1).fill(0);
    for (const at of arrivals) windows[Math.floor((at - arrivals[0]!) / 100)]!++;
    const fullest = Math.max(...windows);
    timing.ok(fullest <= 2 * (rate / 10), `fullest 100 ms window holds ${fullest} requests; its share is ${rate / 10}`);
    // Requests never run ahead of their slots: a per-second burst would put request 1000 of a second
    // hundreds of ms early. Only the host's stalls push some behind.
    const spread = lagSpread(arrivals, rate);
    timing.ok(spread < 250, `arrivals stay within ${spread.toFixed(1)} ms of the ideal line`);
  }),
);

t.test('requests are evenly spaced: the median gap is 1 / rate', (t) =>
  inSomeRun(t, 3, async (timing) => {
    // At 200/s a busy host's scheduling stalls (a few ms) touch few gaps, so the median is robust;
    // bursts (per second, or several requests per timer tick) make most gaps ~0.
    const rate = 200;
    const { server, arrivals } = await timedServer(t);
    const result = await runLoad({ url: server.url, rate, duration: 2000, connections: 4 });
    t.equal(result.requests.sent + result.requests.missed, 400);
    const gap = median(arrivals.slice(1).map((at, i) => at - arrivals[i]!));
    timing.ok(gap > 4.5 && gap < 5.5, `median gap between arrivals ${gap.toFixed(3)} ms, 1 / rate is 5 ms`);
    timing.ok(lagSpread(arrivals, rate) < 250, 'no burst');
  }),
);

t.test('a stalled server: latency counts from the intended send time', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const { server } = await timedServer(t);
    // 1000/s for 3 s, and the server answers nothing from 1.0 s to 1.5 s. The slots due during the
    // stall wait for a free connection; counted from when they were due, the ~500 of them (a sixth of
    // the run) take up to 500 ms: p99 near 470 ms, p90 near 200 ms. Counted from the actual write,
    // they look fast, because they are only written once the stall is over.
    // Connections: the requests already in flight when the stall starts, and those written in it while
    // connections are still free, do wait the stall out even uncorrected. With 10 connections that is
    // at most 10 requests, a third of the 1% above p99, so uncorrected p99 stays a normal round trip.
    // (With 100 connections, 100 requests would be written into the stall and uncorrected p99 would
    // show it too; 10 are still plenty for 1000/s at sub-millisecond round trips.)
    const timer = setTimeout(() => server.stall(500), 1000);
    t.teardown(() => clearTimeout(timer));
    // No pre-warm (1,000/s would have one by default), so the stall falls 1 s into the measured run.
    const result = await runLoad({ url: server.url, rate: 1000, duration: 3000, connections: 10, prewarm: false });

    t.equal(result.requests.sent + result.requests.missed, 3000);
    timing.ok(result.requests.missed <= 20, `missed ${result.requests.missed}: the backlog was sent once the server answered`);
    const { latency, latencyUncorrected } = result;
    timing.ok(latency.p99 >= 400, `corrected p99 ${latency.p99} ms reflects the 500 ms stall`);
    timing.ok(latency.p90 >= 150, `corrected p90 ${latency.p90} ms: a sixth of the slots waited`);
    timing.ok(latency.max >= 450 && latency.max < 800, `corrected max ${latency.max} ms is about the stall`);
    timing.ok(latencyUncorrected.p99 < 100, `uncorrected p99 ${latencyUncorrected.p99} ms hides it`);
    timing.ok(latencyUncorrected.max >= 450, `uncorrected max ${latencyUncorrected.max} ms: the requests caught in flight`);
  }),
);

t.test('slots no connection was free for are counted as missed', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const { server } = await timedServer(t, { delayMs: 50 });
    // One connection and 50 ms per response carry at most 20 requests/s: of 100/s, about 80 are missed.
    // Over 2 s, 200 slots are due (one every 10 ms from 0 to 1990 ms). The connection sends at 0, T, 2T,
    // ... while kT < 2000 ms, T being the round trip of a little over 50 ms: 40 requests (39 if T
    // exceeds 51.3 ms), so 160 missed; a host that is slow to answer makes it a few more.
    const result = await runLoad({ url: server.url, rate: 100, duration: 2000, connections: 1 });
    const { sent, missed } = result.requests;
    t.equal(sent + missed, 200, 'sent and missed add up to the slots due');
    t.equal(server.stats.requests, sent, 'the server saw each request sent, and no more');
    timing.ok(sent <= 40 && sent >= 30, `sent ${sent}: one per round trip`);
    timing.ok(missed >= 160 && missed <= 170, `missed ${missed}`);
    // Each request went out later than it was due, by 40 ms more every time.
    timing.ok(result.latencyUncorrected.p50 >= 50 && result.latencyUncorrected.p50 < 60, `uncorrected p50 ${result.latencyUncorrected.p50} is the server delay`);
    timing.ok(result.latency.max > 1300, `corrected max ${result.latency.max}: the queue of due slots kept growing`);
  }),
);

t.test('a zero rate with stages from 0: the first request goes at the start', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const { server, arrivals } = await timedServer(t);
    // 0 -> 400/s over 1 s: 200 slots, slot i at sqrt(i / 200) s, so the first quarter of them (50)
    // come in the first half second.
    const result = await runLoad({ url: server.url, stages: [{ duration: 1000, rate: 400 }], connections: 5 });
    t.equal(result.rate, 0);
    t.equal(result.requests.sent + result.requests.missed, 200);
    const firstHalf = arrivals.filter((at) => at - arrivals[0]! < 500).length;
    timing.ok(firstHalf >= 45 && firstHalf <= 55, `${firstHalf} of 200 arrived in the first half second`);
    const second = arrivals[1]! - arrivals[0]!;
    timing.ok(second > 65 && second < 150, `the second request came ${second.toFixed(1)} ms after the first; sqrt(1 / 200) s is 70.7 ms`);
  }),
);

t.test('every connection refused, alone in a process: the run still ends on time, errors counted', (t) =>
  // test/fixtures/refused-child.ts holds nothing open but the run. The pacing thread did not keep the
  // process alive while it started, and connections refused at once left nothing else that did: the
  // process exited (13, the promise unsettled) with the run unfinished. One child runs them all in
  // turn, each alone once the one before has ended; closed loop for comparison.
  // How long each run took is the host's timing as well as salvo's: that claim repeats.
  inSomeRun(t, 3, async (timing) => {
    const script = fileURLToPath(new URL('../fixtures/refused-child.ts', import.meta.url));
    const port = await refusedPort();
    const runs = ['net', 'http', 'undici', 'h2'].flatMap((transport) => [`${transport}:200`, `${transport}:-`]);
    const child = spawn(process.execPath, ['--import=tsx', script, String(port), ...runs], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const [code] = (await once(child, 'close')) as [number];
    t.equal(code, 0, 'exit code');
    const ended = out.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { run: string; tookMs: number; sent: number; errors: Record<string, number> });
    t.same(ended.map((run) => run.run), runs, 'every run ended, in turn');
    for (const run of ended) {
      t.ok((run.errors.ECONNREFUSED ?? 0) > 0, `${run.run}: refusals counted (${JSON.stringify(run.errors)})`);
      // Each request sent ended in its error: none reached the wire, none is left unaccounted for.
      t.equal(run.sent, Object.values(run.errors).reduce((sum, count) => sum + count, 0), `${run.run}: every request sent is an error`);
      timing.ok(run.tookMs < 3000, `${run.run}: ended in ${run.tookMs.toFixed(0)} ms of 500`);
    }
  }),
);
