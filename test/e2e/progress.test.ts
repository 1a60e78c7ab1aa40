// onProgress: once per second, with that second's numbers, on time even when nothing completes.
import t from 'tap';
import { runLoad, type ProgressEvent } from '../../src/index.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun } from '../fixtures/timing.js';

t.test('one event per second with the last second and the totals', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const server = await testServer(t, { delayMs: 20 });
    const events: ProgressEvent[] = [];
    const result = await runLoad({ url: server.url, rate: 200, duration: 2000, connections: 10, onProgress: (event) => events.push(event) });
    t.same(events.map((e) => e.second), [0, 1], 'seconds numbered as in the timeline');
    t.same(events.map((e) => e.targetRate), [200, 200]);
    t.same(events.map((e) => e.completed), result.timeline.map((s) => s.completed), 'the same seconds as the timeline');
    t.same(events.map((e) => [e.p50, e.p99]), result.timeline.map((s) => [s.p50, s.p99]), 'the same latencies as the timeline');
    for (const event of events) {
      // Every response waited the server's 20 ms; how much more a slot waited is the host's doing
      // (the latencies against ground truth are in transports.test.ts), but never past the run's max.
      t.ok(event.p50 >= 20 && event.p50 <= result.latency.max, `second ${event.second}: p50 ${event.p50} within [20, ${result.latency.max}]`);
      t.ok(event.p99 >= event.p50, `p99 ${event.p99}`);
      t.equal(event.errors, 0);
      timing.ok(event.connections >= 4 && event.connections <= 10, `${event.connections} connections open`);
    }
    timing.ok(events[0]!.totals.sent >= 195 && events[0]!.totals.sent <= 205, `totals after the first second: ${JSON.stringify(events[0]!.totals)}`);
    t.same(events.at(-1)!.totals, { sent: result.requests.sent, completed: result.requests.completed, errors: 0, retried: 0 }, 'the last totals are the result');
  }),
);

t.test('progress comes on time while the server answers nothing', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const arrivals: number[] = [];
    const server = await testServer(t, { onRequest: () => arrivals.push(performance.now()) });
    // Longer than the run (2 s), and short: the server's held responses keep the process alive until then.
    server.stall(2500);
    const events: Array<{ at: number; event: ProgressEvent }> = [];
    const called = performance.now();
    await runLoad({
      url: server.url,
      rate: 100,
      duration: 2000,
      connections: 5,
      onProgress: (event) => events.push({ at: performance.now(), event }),
    });
    // Slot 0 is written when the run starts; each second closes on the engine's tick, not on a response.
    t.same(events.map(({ event }) => event.second), [0, 1]);
    // The run starts between `called` and the first arrival, so each second ends no earlier than
    // `called` + its end, and no later than the first arrival + its end: the event may not come before
    // the first bound (less a millisecond: timers are millisecond-grained), and only a host stall can
    // make it come long after the second.
    events.forEach(({ at, event }) => {
      const end = (event.second + 1) * 1000;
      t.ok(at >= called + end - 1, `second ${event.second} not reported before it ended (${(at - called - end).toFixed(1)} ms after the call's time + ${end})`);
      timing.ok(at - arrivals[0]! - end < 300, `second ${event.second} reported ${(at - arrivals[0]! - end).toFixed(1)} ms after it ended`);
      t.equal(event.completed, 0);
    });
    t.equal(events[0]!.event.totals.sent, 5, 'only the 5 connections had anything to send on');
  }),
);

t.test('an onProgress that throws: a warning each second, and the run goes on, with monitor or without', async (t) => {
  const server = await testServer(t);
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  t.teardown(() => void process.off('warning', onWarning));
  for (const monitor of [undefined, { processes: [process.pid] }]) {
    warnings.length = 0;
    const seconds: number[] = [];
    const result = await runLoad({
      url: server.url, rate: 50, duration: 2000, connections: 2, ...(monitor !== undefined ? { monitor } : {}),
      onProgress: (event) => {
        seconds.push(event.second);
        throw new Error(`boom ${event.second}`);
      },
    });
    // emitWarning delivers on the next tick.
    await new Promise(setImmediate);
    const label = monitor === undefined ? 'without monitor' : 'with monitor';
    t.same(seconds, [0, 1], `${label}: each second once, in order`);
    t.same(warnings, ['salvo: onProgress threw: Error: boom 0', 'salvo: onProgress threw: Error: boom 1'], `${label}: one warning each`);
    t.equal(result.requests.sent, 100, `${label}: the whole run was sent`);
  }
});
