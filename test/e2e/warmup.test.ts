// Warm-up: its requests reach the server but none of them, nor anything about them, is counted.
import t from 'tap';
import { formatResult, mergeResults, runLoad } from '../../src/index.js';
import { decodeHistogram } from '../../src/stats/histogram.js';
import { serverCount } from '../fixtures/server-count.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun, littlesLaw } from '../fixtures/timing.js';

t.test('open loop: warm-up requests are sent but absent from every statistic', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const server = await testServer(t);
    // The server stalls through the first 300 ms of the 500 ms warm-up: warm-up latencies reach 300 ms.
    // The backlog is gone long before measuring starts, so measured latency must not show the stall.
    server.stall(300);
    const result = await runLoad({
      url: server.url,
      rate: 1000,
      warmup: 500,
      duration: 1000,
      connections: 10,
      expect: { status: 200 },
    });
    const measured = result.requests.sent;
    t.equal(measured + result.requests.missed, 1000, 'measured slots: the 1000 due in [500, 1500) ms');
    t.equal(server.stats.requests, 500 + measured, 'the server saw the 500 warm-up slots and the measured ones');
    timing.ok(result.latency.max < 200, `measured max latency ${result.latency.max} ms: the warm-up stall is not in it`);
    t.equal(result.timeline.reduce((sum, s) => sum + s.sent, 0), measured, 'timeline: measured sends only');
    t.equal(result.timeline.reduce((sum, s) => sum + s.completed, 0), result.requests.completed);
    t.equal(result.statusCodes['200'], result.requests.completed);
    t.equal(result.checks?.passed, result.requests.completed, 'checks ran on measured responses only');
    const requestBytes = server.stats.bytesReceived / server.stats.requests;
    t.equal(result.bytes.sent, measured * requestBytes, 'bytes sent: measured requests only');
    t.equal(result.timeline[0]!.targetRate, 1000, 'the timeline starts when measuring does');
    timing.ok(result.durationMs >= 1000 && result.durationMs < 1100, `durationMs ${result.durationMs} excludes the warm-up`);
  }),
);

t.test('closed loop: server count = warm-up + measured', (t) =>
  inSomeRun(t, 3, async (timing) => {
    const server = await testServer(t, { delayMs: 10 });
    const result = await runLoad({ url: server.url, connections: 2, warmup: 300, duration: 700 });
    const warmup = server.stats.requests - result.requests.sent;
    // The server holds each request at least 10 ms: two connections fit at most 2 × 30 (+ the two
    // in flight) into 300 ms. At the mean latency the measured window saw they fit about
    // 2 × 300 / mean, somewhat fewer as the warm-up is the cold start (connecting, unoptimised code:
    // 0.87 of it seen); a warm-up that ended early, or was counted as measured, sends far fewer.
    const least = 0.6 * ((2 * 300) / result.latency.mean) - 2;
    timing.ok(warmup >= least && warmup <= 62, `${warmup} warm-up requests reached the server, none counted (at least ${least.toFixed(1)} at a mean of ${result.latency.mean.toFixed(3)} ms)`);
    // The measured 700 ms: Little's law at the mean latency the host allowed (an in-process 10 ms
    // timer fires after 10-14 ms here).
    timing.ok(...littlesLaw(result, 2));
    t.equal(result.statusCodes['200'], result.requests.completed);
  }),
);

t.test('the warm-up runs the record path into a recorder of its own: nothing of it in the histograms, names, phases or timeline', async (t) => {
  const server = await testServer(t);
  const result = await runLoad({
    url: server.url,
    rate: 500,
    warmup: 300,
    amount: 400,
    requests: [{ path: '/a', name: 'a' }, { path: '/b', name: 'b' }],
  });
  const { sent, completed, missed } = result.requests;
  t.equal(sent + missed, 400, 'amount is exact');
  const warmup = server.stats.requests - sent;
  t.ok(warmup > 0 && warmup <= 150, `the server saw ${warmup} warm-up requests (at most the 150 slots) besides the measured ones`);
  t.equal(result.errors.total, 0);
  t.same(result.statusCodes, { '200': completed }, 'status codes: measured responses only');
  t.equal(decodeHistogram(result.histogram).totalCount, completed, 'the latency histogram holds the measured responses only');
  t.equal(decodeHistogram(result.histogramUncorrected).totalCount, completed, 'so does the uncorrected one');
  t.equal(result.timeline.reduce((sum, second) => sum + second.completed, 0), completed, 'the timeline\'s completed add up');
  t.ok(result.phases!.ttfb.count <= completed && result.phases!.receive.count <= completed, `phases: no warm-up exchange (ttfb ${result.phases!.ttfb.count}, ${completed} completed)`);
  t.equal(result.byName!.a!.requests.completed + result.byName!.b!.requests.completed, completed, 'the names add up to the run');
  for (const name of ['a', 'b']) {
    const part = result.byName![name]!;
    t.equal(decodeHistogram(part.histogram).totalCount, part.requests.completed, `name ${name}: its histogram holds its measured responses only`);
  }
});

t.test('warm-up with rate stages needs rate', async (t) => {
  await t.rejects(
    runLoad({ url: 'http://127.0.0.1:1/', stages: [{ duration: 1000, rate: 100 }], warmup: 500 }),
    /warmup with rate stages needs rate/,
  );
  await t.rejects(
    runLoad({ url: 'http://127.0.0.1:1/', rate: 100, stages: [{ duration: 1000, connections: 5 }] }),
    /stages that ramp connections need a closed-loop run/,
  );
});

t.test('a given warm-up is counted in requests.warmup and nowhere else', async (t) => {
  const server = await testServer(t);
  // 2,000/s over 2 workers, 1,200 measured after a 600 ms warm-up. Every request reaches the server exactly once.
  const result = await runLoad({ url: server.url, rate: 2000, amount: 1200, workers: 2, connections: 10, warmup: 600 });
  const { sent, missed, warmup } = result.requests;
  t.equal(sent + missed, 1200, 'amount counts measured requests only');
  t.ok(warmup !== undefined && warmup >= 1190 && warmup <= 1200, `requests.warmup ${warmup}: the 1,200 slots of 600 ms at 2,000/s, merged over 2 workers`);
  t.equal(await serverCount(server, warmup! + sent), warmup! + sent, 'the server saw requests.warmup + requests.sent');
  t.equal(result.timeline.reduce((sum, second) => sum + second.sent, 0), sent, 'the timeline has the measured ones only');
  t.match(formatResult(result), new RegExp(`; ${warmup!.toLocaleString('en-US')} more sent in the 0\\.6 s warm-up, not measured`));
  t.match(formatResult(result).split('\n')[0], / after a 0\.6 s warm-up, rate 2,000 req\/s$/, 'the first line says the run warmed up');
  const merged = mergeResults([result, result]);
  t.equal(merged.requests.warmup, 2 * warmup!, 'mergeResults adds the warm-ups up');

  const cold = await runLoad({ url: server.url, rate: 2000, amount: 200, connections: 10 });
  t.equal(cold.requests.warmup, undefined, 'no warmup: no warm-up, no count, whatever the rate');
});

t.test('scenarios start together after the longest warm-up', async (t) => {
  const server = await testServer(t);
  const result = await runLoad({
    url: server.url,
    connections: 5,
    scenarios: { fast: { rate: 1000, duration: '1s', prewarm: true }, slow: { rate: 100, duration: '1s' } },
  });
  t.same(result.warnings.filter((warning) => warning.code === 'LATE_START'), [], 'no scenario starts late: the pre-warm of `fast` was waited for');
  t.equal(result.requests.warmup, undefined, 'no warm-up: `fast` pre-warms against a loopback server');
  t.ok(result.durationMs < 1100, `both measured the same second (${result.durationMs} ms)`);
});
