// The verdict on one capacity-search step, from made-up results: who is to blame for a failed step
// decides whether the search may report a capacity at all.
import t from 'tap';
import { judgeStep, type JudgeContext } from '../../src/capacity/judge.js';
import { parseThresholds } from '../../src/stats/thresholds.js';
import type { LatencyStats, LoadResult } from '../../src/shared/load-result.js';
import type { Thresholds } from '../../src/shared/terms.js';

function latency(p50: number, p99: number, mean = p50): LatencyStats {
  return { count: 100, min: p50 / 2, mean, stddev: 1, max: p99 * 1.5, p50, p75: p50, p90: p99, p95: p99, p99, p999: p99 };
}

interface Shape {
  rate: number;
  perSecond?: number;
  missed?: number;
  corrected: LatencyStats;
  uncorrected: LatencyStats;
  errors?: number;
  generator?: { saturated: boolean; eventLoopUtilization?: number };
}

/** A one-second step's result, with the SLO evaluated the way runLoad does. */
function result(slo: Thresholds, shape: Shape): LoadResult {
  const perSecond = shape.perSecond ?? shape.rate;
  const made = {
    url: 'http://127.0.0.1:1/',
    transport: 'net',
    connections: 10,
    workers: 1,
    rate: shape.rate,
    requests: { sent: Math.min(shape.rate, perSecond + 10), completed: perSecond, perSecond, missed: shape.missed ?? 0 },
    latency: shape.corrected,
    latencyUncorrected: shape.uncorrected,
    statusCodes: { '200': perSecond },
    errors: { total: shape.errors ?? 0, byCode: {} },
    bytes: { sent: 0, received: 0 },
    durationMs: 1000,
    timeline: [],
    aborted: false,
    warnings: [],
    ok: true,
    histogram: '',
    histogramUncorrected: '',
    ...(shape.generator ? { generator: shape.generator } : {}),
  } as unknown as LoadResult; // only what a verdict reads: other fields come and go with other work
  const compiled = parseThresholds(slo);
  made.thresholds = compiled.map((c) => {
    const actual = c.read(made) ?? Number.NaN;
    return { metric: c.metric, expression: c.expression, actual, passed: c.operator === '<' ? actual < c.value : actual > c.value };
  });
  made.ok = made.thresholds.every((r) => r.passed);
  return made;
}

function context(slo: Thresholds, lanes = 10): JudgeContext {
  return { compiledSlo: parseThresholds(slo), lanes, earlier: [] };
}

const slo = { 'latency.p99': '< 50' };

t.test('a step within the SLO at its rate passes', async (t) => {
  const step = judgeStep(context(slo), 'grow', 100, result(slo, { rate: 100, corrected: latency(1, 5), uncorrected: latency(1, 4) }), false);
  t.equal(step.passed, true);
  t.equal(step.limitedBy, undefined);
  t.same(step.failures, []);
});

t.test('the server answered slowly: the server is the limit', async (t) => {
  const step = judgeStep(context(slo), 'grow', 400, result(slo, { rate: 400, corrected: latency(80, 200), uncorrected: latency(70, 180) }), false);
  t.equal(step.passed, false);
  t.equal(step.limitedBy, 'server');
  t.match(step.failures[0], /^latency\.p99 < 50 \(actual 200\.00 ms\)$/);
});

t.test('every connection busy while the server kept the SLO: the connections are the limit', async (t) => {
  // 4 lanes, a 50 ms server: 80/s at most. At 160/s the slots wait for a connection.
  const slow = { 'latency.p99': '< 100' };
  const step = judgeStep(
    context(slow, 4),
    'grow',
    160,
    result(slow, { rate: 160, perSecond: 79, missed: 70, corrected: latency(300, 700), uncorrected: latency(50, 52, 50) }),
    false,
  );
  t.equal(step.limitedBy, 'connections');
  t.equal(step.failures.length, 3, 'the SLO, the achieved rate and the slots sent all failed');
  t.match(step.failures[1], /^completed 79\.0\/s, under 90% of the target$/);
  t.equal(step.failures[2], '70 of 159 slots never sent');
});

t.test('connections free and the server fast, yet slots went out late: the generator is the limit', async (t) => {
  const step = judgeStep(context(slo, 100), 'grow', 400, result(slo, { rate: 400, corrected: latency(10, 90), uncorrected: latency(1, 3) }), false);
  t.equal(step.limitedBy, 'generator');
});

t.test('a few slots missed at the end with lanes to spare: a stall of the generator, not the server', async (t) => {
  const shape = { rate: 500, perSecond: 495, missed: 10, corrected: latency(3, 63), uncorrected: latency(0.5, 17, 0.8) };
  t.equal(judgeStep(context(slo, 100), 'grow', 500, result(slo, shape), false).limitedBy, 'generator');
});

t.test("a generator whose event loop was busy is the limit whatever the latency; late sends alone are not, when the server broke the objective on its own time", async (t) => {
  const busy = { rate: 400, corrected: latency(80, 200), uncorrected: latency(70, 180), generator: { saturated: true, eventLoopUtilization: 0.97 } };
  t.equal(judgeStep(context(slo), 'grow', 400, result(slo, busy), false).limitedBy, 'generator', 'busy loop: its response times are its own delays too');
  const lateOnly = { ...busy, generator: { saturated: true, eventLoopUtilization: 0.2 } };
  t.equal(judgeStep(context(slo), 'grow', 400, result(slo, lateOnly), false).limitedBy, 'server', 'send lag alone: the server missed the objective from the write on');
  const warned = { ...result(slo, { ...busy, generator: undefined }), warnings: [{ code: 'GENERATOR_SATURATED', message: '' }] };
  t.equal(judgeStep(context(slo), 'grow', 400, warned, false).limitedBy, 'server', 'the warning alone does not outweigh the server\'s own time');
  t.equal(judgeStep(context(slo), 'grow', 400, result(slo, { ...busy, generator: undefined }), false).limitedBy, 'server', 'without either');
  const fastServer = { rate: 400, corrected: latency(80, 200), uncorrected: latency(1, 3), generator: { saturated: true, eventLoopUtilization: 0.2 } };
  t.equal(judgeStep(context(slo), 'grow', 400, result(slo, fastServer), false).limitedBy, 'generator', 'late sends with the server within the objective');
});

t.test('a server that stops answering holds every connection with nothing slow to measure: the server', async (t) => {
  const step = judgeStep(context(slo, 10), 'grow', 200, result(slo, { rate: 200, perSecond: 0, missed: 190, corrected: latency(0, 0), uncorrected: latency(0, 0) }), false);
  t.equal(step.limitedBy, 'server');
});

t.test('errors are the server failing, whatever the latency', async (t) => {
  const errorSlo = { 'latency.p99': '< 50', 'errors.rate': '< 0.01' };
  const step = judgeStep(context(errorSlo), 'grow', 100, result(errorSlo, { rate: 100, errors: 20, corrected: latency(1, 5), uncorrected: latency(1, 4) }), false);
  t.equal(step.limitedBy, 'server');
  t.match(step.failures[0], /^errors\.rate < 0\.01 \(actual 0\.1667\)/);
});

t.test('no latency in the SLO: a server that slowed down (queues) is still the limit, not the connections', async (t) => {
  const errorSlo = { 'errors.rate': '< 0.01' };
  const earlier = judgeStep(context(errorSlo), 'grow', 100, result(errorSlo, { rate: 100, corrected: latency(1, 5), uncorrected: latency(1, 4) }), false);
  const shape = { rate: 400, perSecond: 300, missed: 60, corrected: latency(400, 900), uncorrected: latency(330, 340, 330) };
  const queued = judgeStep({ ...context(errorSlo, 100), earlier: [earlier] }, 'grow', 400, result(errorSlo, shape), false);
  t.equal(queued.limitedBy, 'server', 'median from the write 330 ms against 1 ms unloaded');
  // One lane at 3.3 ms a response carries 300/s.
  const steady = { ...shape, corrected: latency(400, 900), uncorrected: latency(3, 5, 3.3), perSecond: 300 };
  const lanesBound = judgeStep({ ...context(errorSlo, 1), earlier: [earlier] }, 'grow', 400, result(errorSlo, steady), false);
  t.equal(lanesBound.limitedBy, 'connections', 'median from the write 3 ms: the server kept pace');
});

t.test('an aborted step is neither passed nor blamed', async (t) => {
  const step = judgeStep(context(slo), 'bisect', 100, result(slo, { rate: 100, corrected: latency(1, 5), uncorrected: latency(1, 4) }), true);
  t.equal(step.passed, false);
  t.equal(step.limitedBy, undefined);
  t.same(step.failures, ['aborted before the step ended']);
});

t.test("server-cpu: a step the server failed with its cores saturated (monitor) names its CPU", async (t) => {
  const failing = (server: unknown) => {
    const made = result(slo, { rate: 1000, corrected: latency(40, 200), uncorrected: latency(40, 200) });
    if (server !== undefined) made.server = server as LoadResult['server'];
    return judgeStep(context(slo), 'grow', 1000, made, false).limitedBy;
  };
  t.equal(failing({ cpuPercent: 185, cores: 2, sources: [] }), 'server-cpu', '185% of 2 cores: saturated');
  t.equal(failing({ cpuPercent: 170, cores: 2, sources: [] }), 'server', '170% of 2 cores: not saturated, the server still');
  t.equal(failing({ cpuPercent: 185, sources: [] }), 'server', 'cores unknown: no claim about the CPU');
  t.equal(failing({ machine: { cpuPercent: 190, cores: 2 }, sources: [] }), 'server-cpu', 'node_exporter alone: the machine saturated');
  t.equal(failing({ cpuPercent: 50, cores: 2, machine: { cpuPercent: 195, cores: 2 }, sources: [] }), 'server', 'the server process is what counts when it is watched (the machine holds salvo too)');
  t.equal(failing(undefined), 'server', 'no monitor: server');
  const passing = result(slo, { rate: 100, corrected: latency(5, 10), uncorrected: latency(5, 10) });
  passing.server = { cpuPercent: 199, cores: 2, sources: [] };
  t.equal(judgeStep(context(slo), 'grow', 100, passing, false).limitedBy, undefined, 'a step that passed has no limit, however busy the server');
});

t.test('an objective on one name judges that name, from the write when it decides who is to blame', async (t) => {
  const named = { 'latency.p99{name:checkout}': '< 50' };
  const withNames = (made: LoadResult, checkout: { corrected: LatencyStats; uncorrected: LatencyStats }): LoadResult => {
    const byName = { checkout: { ...made, latency: checkout.corrected, latencyUncorrected: checkout.uncorrected } } as unknown as LoadResult['byName'];
    const step = { ...made, byName };
    const compiled = parseThresholds(named);
    step.thresholds = compiled.map((c) => ({ metric: c.metric, expression: c.expression, actual: c.read(step)!, passed: c.read(step)! < c.value }));
    step.ok = step.thresholds.every((r) => r.passed);
    return step;
  };
  // The run as a whole is fast; checkout is slow from when it was due, fast from the write: the slots went out late.
  const run = result(named, { rate: 400, corrected: latency(1, 5), uncorrected: latency(1, 4) });
  const late = judgeStep(context(named, 100), 'grow', 400, withNames(run, { corrected: latency(40, 90), uncorrected: latency(1, 3) }), false);
  t.equal(late.passed, false, 'checkout broke its objective');
  t.match(late.failures[0], /^latency\.p99\{name:checkout\} < 50 \(actual 90\.00 ms\)$/);
  t.equal(late.limitedBy, 'generator', 'checkout kept it from the write on: not the server');
  const slow = judgeStep(context(named, 100), 'grow', 400, withNames(run, { corrected: latency(40, 90), uncorrected: latency(35, 80) }), false);
  t.equal(slow.limitedBy, 'server', 'checkout broke it on the server\'s own time');
});

t.test('a step whose responses are mostly 503s does not pass on its completed rate', async (t) => {
  const made = result(slo, { rate: 1000, corrected: latency(2, 5), uncorrected: latency(2, 5) });
  made.statusCodes = { '200': 300, '503': 700 };
  made.failed = { total: 700, byStatus: { '503': 700 } };
  const step = judgeStep(context(slo), 'grow', 1000, made, false);
  t.equal(step.passed, false);
  t.same(step.failures, ['succeeded 300.0/s (700 responses failed: 503), under 90% of the target']);
  const served = result(slo, { rate: 1000, corrected: latency(2, 5), uncorrected: latency(2, 5) });
  served.failed = { total: 0, byStatus: {} };
  t.equal(judgeStep(context(slo), 'grow', 1000, served, false).passed, true, 'all 200s pass');
});
