// Ramping stages: the rate (open loop) and the open connections (closed loop), checked per second
// in the timeline and against what the server saw.
import t from 'tap';
import { runLoad } from '../../src/index.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun } from '../fixtures/timing.js';

t.test('a rate ramp from 100/s to 1000/s shows in the timeline and at the server', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const arrivals: number[] = [];
    const server = await testServer(t, { onRequest: () => arrivals.push(performance.now()) });
    const result = await runLoad({ url: server.url, rate: 100, stages: [{ duration: '3s', rate: 1000 }], connections: 10 });

    // The rate climbs 300/s every second, so the seconds hold 250, 550 and 850 slots: 1650 in all.
    t.equal(result.rate, 100);
    t.same(result.timeline.map((s) => s.targetRate), [250, 550, 850], 'target per second: the integral of the ramp');
    t.equal(result.requests.sent + result.requests.missed, 1650);
    const sent = result.timeline.map((s) => s.sent);
    const completed = result.timeline.map((s) => s.completed);
    result.timeline.forEach((second) => {
      // A stall of a busy host moves a few dozen requests across a second boundary at most.
      timing.ok(Math.abs(second.sent - second.targetRate!) <= 40, `second ${second.second}: sent ${second.sent} of ${second.targetRate}`);
      timing.ok(second.connections >= 1 && second.connections <= 10, `second ${second.second}: ${second.connections} connections open`);
    });
    timing.ok(completed[0]! < completed[1]! && completed[1]! < completed[2]!, `completed rises: ${completed.join(', ')}`);
    timing.ok(sent[0]! < sent[1]! && sent[1]! < sent[2]!, `sent rises: ${sent.join(', ')}`);

    // Server side: arrivals per second of the run, counted from the first one (slot 0 goes at the start).
    const perSecond = [0, 0, 0];
    for (const at of arrivals) perSecond[Math.min(2, Math.floor((at - arrivals[0]!) / 1000))]!++;
    perSecond.forEach((count, second) => {
      const target = [250, 550, 850][second]!;
      timing.ok(Math.abs(count - target) <= 40, `server saw ${count} requests in second ${second}; the target is ${target}`);
    });
    // Within a second the spacing follows the ramp: the last 200 ms of second 0 run at ~370/s (74
    // requests), its first 200 ms at ~130/s (26); a rate that stepped once a second would even them.
    const inWindow = (from: number) => arrivals.filter((at) => at - arrivals[0]! >= from && at - arrivals[0]! < from + 200).length;
    timing.ok(inWindow(800) > 2 * inWindow(0), `first 200 ms: ${inWindow(0)} requests, last 200 ms of second 0: ${inWindow(800)}`);
  }),
);

t.test('rate stages without rate ramp from 0', async (t) => {
  const server = await testServer(t);
  const result = await runLoad({ url: server.url, stages: [{ duration: 1000, rate: 200 }, { duration: 1000, rate: 200 }], connections: 4 });
  // 0 -> 200/s over the first second (100 slots), then 200/s.
  t.same(result.timeline.map((s) => s.targetRate), [100, 200]);
  t.equal(result.requests.sent + result.requests.missed, 300);
});

t.test('connection stages open and close connections while the run goes on', (t) =>
  inSomeRun(t, 3, async (timing) => {
    // Each connection carries one request per 10 ms, so throughput follows the open connections.
    let firstAt = 0;
    const server = await testServer(t, { delayMs: 10, onRequest: () => (firstAt ||= performance.now()) });
    const samples: Array<{ at: number; open: number }> = [];
    const sampler = setInterval(() => {
      if (firstAt > 0) samples.push({ at: performance.now() - firstAt, open: server.stats.openConnections });
    }, 50);
    t.teardown(() => clearInterval(sampler));
    const result = await runLoad({
      url: server.url,
      connections: 2,
      stages: [
        { duration: 1000, connections: 10 },
        { duration: 1000, connections: 10 },
        { duration: 1000, connections: 2 },
      ],
    });
    clearInterval(sampler);

    // Planned: 2 -> 10 over the first second, 10 through the second, back to 2 over the third.
    const planned = (ms: number) => (ms < 1000 ? 2 + (8 * ms) / 1000 : ms < 2000 ? 10 : 10 - (8 * (ms - 2000)) / 1000);
    // The engine moves toward the plan on a 100 ms tick, and a closed connection reaches the server a
    // moment later: one connection behind, two with a busy host.
    const off = samples.filter(({ at, open }) => at >= 100 && at < 2950 && Math.abs(open - planned(at)) > 2.5);
    timing.ok(off.length === 0, `${samples.length} server-side samples follow the plan; off: ${JSON.stringify(off)}`);
    timing.ok(samples.some(({ open }) => open === 10), 'all 10 were open at the peak');
    timing.ok(samples.filter(({ at }) => at > 400 && at < 600).every(({ open }) => open >= 4 && open <= 8), 'about 6 open half way up');

    const connections = result.timeline.map((s) => s.connections);
    timing.ok(connections[0]! >= 8 && connections[1]! >= 9 && connections[2]! <= 4, `open at the end of each second: ${connections.join(', ')}`);
    // The connections open carried requests the whole time: Little's law at the run's mean latency
    // (a stealing host stretches the 10 ms waits, and the mean with them) for the average number the
    // server saw open, about 22/3 by the plan. Connections opened but left idle would carry a fraction.
    const measured = samples.filter(({ at }) => at < result.durationMs);
    const averageOpen = measured.reduce((sum, { open }) => sum + open, 0) / measured.length;
    timing.ok(Math.abs(averageOpen - 22 / 3) < 1, `on average ${averageOpen.toFixed(2)} open, 7.33 planned`);
    // (Sampled every 50 ms, that average is good to a few per cent, hence 5% above.)
    const expected = (averageOpen * result.durationMs) / result.latency.mean;
    const { completed } = result.requests;
    timing.ok(completed >= 0.8 * expected && completed <= 1.05 * expected, `completed ${completed}: ${averageOpen.toFixed(2)} connections at a mean of ${result.latency.mean.toFixed(3)} ms make ${expected.toFixed(1)}`);
    t.equal(result.timeline[0]!.targetRate, undefined, 'no target rate in a closed-loop run');
  }),
);
