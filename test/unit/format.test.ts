import t from 'tap';
import { formatResult, formatThresholdActual } from '../../src/stats/format.js';
import { wholeRunMergeInfo } from '../fixtures/merge-info.js';
import { noPhases } from '../fixtures/phases.js';
import type { LatencyStats, LoadResult } from '../../src/shared/load-result.js';

const latency: LatencyStats = {
  count: 9990, min: 0.5, mean: 2.3456, stddev: 1.1, max: 45.678, p50: 1.234, p75: 2.5, p90: 4.75, p95: 6, p99: 12.3456, p999: 40.1,
};

function makeResult(overrides: Partial<LoadResult> = {}): LoadResult {
  return {
    url: 'http://localhost:3000/',
    transport: 'net',
    connections: 10,
    workers: 2,
    rate: 1000,
    requests: { sent: 10_000, completed: 9_990, perSecond: 999, missed: 3, retried: 0, unfinished: 0 },
    latency,
    latencyUncorrected: { ...latency, p99: 8.5, max: 30.25 },
    statusCodes: { '500': 10, '200': 9_980 },
    errors: { total: 10, byCode: { TIMEOUT: 3, ECONNRESET: 7 } },
    failed: { total: 20, byStatus: { 500: 10 } },
    bytes: { sent: 1_234_567, received: 12_345_678 },
    durationMs: 10_000,
    timeline: [],
    aborted: false,
    warnings: [],
    generator: {
      cpuPercent: 4.25, eventLoopUtilization: 0.2, eventLoopDelayP99Ms: 1.5, sendLag: { p50: 0.05, p99: 0.25, max: 1.125 }, saturated: false,
    },
    checks: {
      passed: 19_970,
      failed: 10,
      byName: { status: { passed: 9_980, failed: 10 }, 'header:content-type': { passed: 9_990, failed: 0 } },
      examples: [{ name: 'status', message: 'status 500 is not 2xx' }],
    },
    thresholds: [
      { metric: 'latency.p99', expression: '< 10', actual: 12.3456, passed: false },
      { metric: 'errors.rate', expression: '< 0.01', actual: 0.001, passed: true },
      { metric: 'requests.perSecond', expression: '>= 900', actual: 999, passed: true },
    ],
    ok: false,
    histogram: '',
    histogramUncorrected: '',
    ...noPhases(),
    ...wholeRunMergeInfo(),
    ...overrides,
  };
}

t.test('a rate-mode run, line by line', async (t) => {
  t.equal(
    formatResult(makeResult()),
    [
      'http://localhost:3000/: transport net, 10 connections, 2 workers, 10.00 s, rate 1,000 req/s',
      '',
      'Latency (ms)    p50    p75    p90    p99  p99.9   mean  stddev    max',
      'corrected     1.234  2.500  4.750  12.35  40.10  2.346   1.100  45.68',
      'uncorrected   1.234  2.500  4.750  8.500  40.10  2.346   1.100  30.25',
      '',
      'Requests/s    999.00',
      'Throughput    1.23 MB/s (12.35 MB received, 1.23 MB sent)',
      'Requests      10,000 sent, 9,990 completed, 3 missed, 0 retried',
      'Status codes  200: 9,980  500: 10',
      'Errors        10 (ECONNRESET 7, TIMEOUT 3)',
      'Failed        20 of 10,000 (0.20%: status 500 10, errors 10)',
      'Generator     CPU 4.3% of a core, event loop 20% busy, delay p99 1.500 ms, send lag p50 0.050 / p99 0.250 / max 1.125 ms',
      'Checks        19,970 passed, 10 failed (99.95% passed)',
      '  status               9,980 passed, 10 failed',
      '  header:content-type  9,990 passed, 0 failed',
      '  ✗ status 500 is not 2xx',
      'Thresholds    1 of 3 failed',
      '  ✗ latency.p99 < 10           actual 12.35 ms',
      '  ✓ errors.rate < 0.01         actual 0.001',
      '  ✓ requests.perSecond >= 900  actual 999',
    ].join('\n'),
  );
});

t.test('a closed-loop run has one latency row and no rate', async (t) => {
  const text = formatResult(
    makeResult({
      rate: undefined,
      connections: 1,
      workers: 1,
      latencyUncorrected: latency,
      latency: { ...latency, max: 1045.678 },
      durationMs: 60_000,
      aborted: true,
      requests: { sent: 1_234_567, completed: 1_234_560, perSecond: 20_576.005, missed: 0, retried: 0, unfinished: 0 },
      bytes: { sent: 999, received: 999_996 },
      statusCodes: {},
      failed: { total: 0, byStatus: {} },
      errors: { total: 0, byCode: {} },
      checks: undefined,
      thresholds: undefined,
    }),
  );
  const lines = text.split('\n');
  t.equal(lines[0], 'http://localhost:3000/: transport net, 1 connection, 1 worker, 60.00 s, aborted');
  // No rate, but the two distributions differ (max): both rows show rather than hide a difference.
  t.match(text, /^corrected .* 1,045\.68$/m);
  t.match(text, /^uncorrected .* 45\.68$/m);

  const closed = formatResult(
    makeResult({ rate: undefined, latencyUncorrected: latency, checks: undefined, thresholds: undefined }),
  ).split('\n');
  t.equal(closed[3], 'latency       1.234  2.500  4.750  12.35  40.10  2.346   1.100  45.68');
  t.notOk(closed.some((l) => l.startsWith('uncorrected')));
  t.notOk(closed.some((l) => l.startsWith('Checks') || l.startsWith('Thresholds')));
  t.equal(closed[0], 'http://localhost:3000/: transport net, 10 connections, 2 workers, 10.00 s');

  t.match(text, /^Requests\/s    20,576\.01$/m);
  t.match(text, /^Throughput    16\.67 kB\/s \(1\.00 MB received, 999 B sent\)$/m);
  t.match(text, /^Requests      1,234,567 sent, 1,234,560 completed, 0 missed, 0 retried$/m);
  t.match(text, /^Status codes  none$/m);
  t.match(text, /^Errors        0$/m);
});

t.test('short runs, sub-millisecond latencies and GB-scale throughput', async (t) => {
  const fast: LatencyStats = { ...latency, p50: 0.0421, p99: 0.9994, max: 9.9994 };
  const text = formatResult(
    makeResult({
      rate: undefined,
      latency: fast,
      latencyUncorrected: fast,
      durationMs: 850.5,
      bytes: { sent: 0, received: 2_500_000_000 },
    }),
  );
  t.match(text, /, 850\.50 ms$/m);
  t.match(text, /^latency       0\.042 /m);
  t.match(text, / 0\.999 /m, 'p99 keeps 3 decimals below 10 ms');
  t.match(text, / 9\.999$/m);
  t.match(text, /^Throughput    2\.94 GB\/s \(2\.50 GB received, 0 B sent\)$/m);
});

t.test('an all-passing threshold block and a checks block without failures', async (t) => {
  const text = formatResult(
    makeResult({
      thresholds: [{ metric: 'checks.rate', expression: '> 0.99', actual: 1, passed: true }],
      checks: { passed: 4, failed: 0, byName: { body: { passed: 4, failed: 0 } }, examples: [] },
    }),
  );
  t.match(text, /^Thresholds    all 1 passed\n  ✓ checks\.rate > 0\.99  actual 1$/m);
  t.match(text, /^Checks        4 passed, 0 failed \(100\.00% passed\)\n  body  4 passed, 0 failed$/m);
  t.notMatch(text, /✗/);
});

t.test('formatThresholdActual', async (t) => {
  t.equal(formatThresholdActual('latency.p99', 42.5), '42.50 ms');
  t.equal(formatThresholdActual('latencyUncorrected.max', 1.23456), '1.235 ms');
  t.equal(formatThresholdActual('durationMs', 10_000), '10,000.00 ms');
  t.equal(formatThresholdActual('errors.rate', 0.012345), '0.0123');
  t.equal(formatThresholdActual('errors.rate', 0.0000123), '0.0000123');
  t.equal(formatThresholdActual('checks.rate', 1), '1');
  t.equal(formatThresholdActual('checks.rate', Number.NaN), 'no data');
  t.equal(formatThresholdActual('requests.completed', 1_234_567), '1,234,567');
  t.equal(formatThresholdActual('requests.perSecond', 1234.5678), '1,234.57');
});

t.test('every warning is printed with its code', async (t) => {
  const text = formatResult(makeResult({ warnings: [{ code: 'GENERATOR_SATURATED', message: 'salvo was the limit' }] }));
  t.match(text, /^Warning GENERATOR_SATURATED: salvo was the limit$/m);
  t.notMatch(formatResult(makeResult()), /Warning/);
});

t.test('phases: a compact table of the phases measured, tls left out on http:', async (t) => {
  const { phases } = noPhases();
  const measured = (count: number, p50: number) => ({ count, min: p50 / 2, mean: p50 * 1.1, p50, p90: p50 * 2, p99: p50 * 3, max: p50 * 4 });
  const text = formatResult(
    makeResult({ phases: { ...phases, connect: measured(10, 0.25), ttfb: measured(9_990, 20.5), receive: measured(9_990, 30) } }),
  );
  t.match(
    text,
    [
      'Phases (ms)  count    min    p50    p90    p99     max   mean',
      'connect         10  0.125  0.250  0.500  0.750   1.000  0.275',
      'ttfb         9,990  10.25  20.50  41.00  61.50   82.00  22.55',
      'receive      9,990  15.00  30.00  60.00  90.00  120.00  33.00',
      '',
      'Requests/s',
    ].join('\n'),
  );
  t.notMatch(text, /^tls/m);
  t.notMatch(formatResult(makeResult()), /Phases/, 'no table when nothing was measured');
});

t.test('a saturated generator is flagged on its line, and its warning follows', async (t) => {
  const text = formatResult(
    makeResult({
      generator: { cpuPercent: 101.25, eventLoopUtilization: 0.995, eventLoopDelayP99Ms: 12.5, saturated: true },
      warnings: [{ code: 'GENERATOR_SATURATED', message: 'the load generator was saturated' }],
    }),
  );
  t.match(text, /^Generator     CPU 101% of a core, event loop 100% busy, delay p99 12\.50 ms, SATURATED$/m);
  t.match(text, /^Warning GENERATOR_SATURATED: the load generator was saturated$/m);
});

t.test('rate stages: the header gives the range of the target, not the starting rate alone', async (t) => {
  const second = (index: number, targetRate: number) => ({
    second: index, sent: targetRate, completed: targetRate, errors: 0, retried: 0, p50: 1, p99: 2, connections: 10, targetRate, cpuPercent: 5, eventLoopUtilization: 0.1,
  });
  const staged = formatResult(makeResult({ rate: 0, timeline: [second(0, 50), second(1, 200), second(2, 300)] }));
  t.match(staged.split('\n')[0], /, rate 0 to 300 req\/s in stages$/);
  const plan = (stages: Array<{ durationMs: number; rate?: number; connections?: number }>, connections = 10) => ({ merge: { ...wholeRunMergeInfo().merge, plan: { ...wholeRunMergeInfo().merge.plan, connections, stages } } });
  const written = formatResult(makeResult({ rate: 0, ...plan([{ durationMs: 2000, rate: 200 }, { durationMs: 2000, rate: 600 }, { durationMs: 2000, rate: 1000 }]), timeline: [second(0, 50), second(5, 900)] }));
  t.match(written.split('\n')[0], /, rate 0 req\/s → 200 req\/s in 2 s → 600 req\/s in 2 s → 1,000 req\/s in 2 s$/, 'the stages as written: each ramps from the previous, to its rate');
  const holds = formatResult(makeResult({ rate: 100, ...plan([{ durationMs: 500, rate: 200 }, { durationMs: 2000, rate: 200 }]) }));
  t.match(holds.split('\n')[0], /, rate 100 req\/s → 200 req\/s in 0.5 s then holds 2 s$/, 'a stage that keeps the rate holds it');
  const clients = formatResult(makeResult({ connections: 5, ...plan([{ durationMs: 1000, connections: 20 }], 5) }));
  t.match(clients.split('\n')[0], /, 5 to 20 connections in stages, /, 'a 5 -> 20 ramp is not "5 connections"');
  const steady = formatResult(makeResult({ timeline: [second(0, 1000), second(1, 1000)] }));
  t.match(steady.split('\n')[0], /, rate 1,000 req\/s$/);
});

t.test('the summary speaks the protocol: streams, handshakes, a listen-only run', async (t) => {
  const h2 = makeResult({ transport: 'h2', merge: { ...wholeRunMergeInfo().merge, plan: { ...wholeRunMergeInfo().merge.plan, transport: 'h2', pipelining: 8 } } });
  t.match(formatResult(h2).split('\n')[0], 'transport h2, 10 connections, 8 streams per connection, 2 workers');
  const pipelined = makeResult({ merge: { ...wholeRunMergeInfo().merge, plan: { ...wholeRunMergeInfo().merge.plan, pipelining: 4 } } });
  t.match(formatResult(pipelined).split('\n')[0], '10 connections, pipelining 4, 2 workers');

  const listening = makeResult({
    transport: 'websocket', rate: undefined, statusCodes: { '101': 18, '403': 2 },
    requests: { sent: 0, completed: 800, perSecond: 200, missed: 0, retried: 0, unfinished: 0 },
    messages: { sent: 0, received: 800, perSecond: 200 }, websocket: { closeCodes: { '1006': 1 } },
  });
  const summary = formatResult(listening);
  t.match(summary.split('\n')[0], 'transport websocket, 10 clients');
  t.match(summary, /Messages +800 received \(listen only: none sent\)/);
  t.match(summary, /Handshakes +18 accepted \(101\), refused 403: 2/);
  t.match(summary, /Close codes +1006: 1/);
  t.notMatch(summary, /of 0 sent|Status codes|Requests/, 'no request words');
});
