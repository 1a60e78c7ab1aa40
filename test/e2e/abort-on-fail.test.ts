// `abortOnFail`: a 10 s run stops about a second in, once a threshold can no longer pass.
import t, { type Test } from 'tap';
import { runLoad } from '../../src/index.js';
import type { LoadOptions } from '../../src/shared/load-options.js';
import type { LoadResult } from '../../src/shared/load-result.js';
import { abortOnFailCheck, planThresholds } from '../../src/stats/thresholds.js';
import { testServer } from '../fixtures/test-server.js';
import { refusedPort } from '../fixtures/raw-http-server.js';


/**
 * The check runs about once per second: the run ends after its first measured second, and resolves
 * soon after that second's progress report. Measured from that report rather than from the call, so
 * the seconds a stalled host takes to start worker threads under tsx do not count.
 */
function endedEarly(t: Test, result: { durationMs: number }, resolvedAfterReportMs: number): void {
  t.ok(result.durationMs >= 1000 && result.durationMs < 1500, `durationMs ${result.durationMs} about 1 s of 10`);
  t.ok(resolvedAfterReportMs < 2000, `resolved ${Math.round(resolvedAfterReportMs)} ms after the first second's report`);
}

/** Runs a 10 s load and says how long after its first progress report the promise resolved. */
async function timed(options: LoadOptions): Promise<[LoadResult, number]> {
  let firstReportAt = Number.NaN;
  const result = await runLoad({
    ...options,
    onProgress: () => {
      if (Number.isNaN(firstReportAt)) firstReportAt = performance.now();
    },
  });
  return [result, performance.now() - firstReportAt];
}

t.test('abortOnFailCheck', async (t) => {
  t.equal(abortOnFailCheck(undefined), undefined);
  t.equal(abortOnFailCheck(planThresholds({ 'statusCodes.500': '< 5' })), undefined, 'no abortOnFail');
  t.equal(
    abortOnFailCheck(planThresholds({ 'errors.rate': { threshold: '< 0.1', abortOnFail: true } })),
    undefined,
    'a rate is never decided early, so there is nothing to check',
  );
  const check = abortOnFailCheck(planThresholds({ 'statusCodes.5xx': { threshold: '< 5', abortOnFail: true }, 'latency.p99': '< 1' }))!;
  t.equal(check({ statusCodes: { 200: 100, 500: 4 } }), false);
  t.equal(check({ statusCodes: { 200: 100, 500: 3, 503: 2 } }), true);
  t.equal(check({}), false, 'an unknown metric never aborts');
});

t.test('statusCodes.500 past its bound ends a 10 s run early', async (t) => {
  const server = await testServer(t, { errorRate: 0.5 });
  const [result, resolvedAfterReportMs] = await timed({
    url: server.url,
    connections: 2,
    duration: '10s',
    thresholds: { 'statusCodes.500': { threshold: '< 5', abortOnFail: true }, 'latency.p99': '< 1000' },
  });
  t.equal(result.aborted, true);
  t.equal(result.ok, false);
  endedEarly(t, result, resolvedAfterReportMs);
  const [statusThreshold, latencyThreshold] = result.thresholds!;
  t.equal(statusThreshold?.passed, false);
  t.equal(statusThreshold?.actual, result.statusCodes['500'], 'evaluated on the partial result');
  t.equal(latencyThreshold?.passed, true, 'the other thresholds are still evaluated');
});

t.test('checks.failed ends the run early', async (t) => {
  const server = await testServer(t, { status: 404 });
  const [result, resolvedAfterReportMs] = await timed({
    url: server.url,
    transport: 'undici',
    connections: 2,
    duration: '10s',
    expect: { status: 200 },
    thresholds: { 'checks.failed': { threshold: '== 0', abortOnFail: true } },
  });
  t.equal(result.aborted, true);
  t.equal(result.ok, false);
  endedEarly(t, result, resolvedAfterReportMs);
  t.equal(result.checks?.failed, result.requests.completed);
});

t.test('errors.total (network errors) ends the run early', async (t) => {
  const port = await refusedPort();
  const [result, resolvedAfterReportMs] = await timed({
    url: `http://127.0.0.1:${port}/`,
    connections: 4,
    duration: '10s',
    thresholds: { 'errors.total': { threshold: ['< 5'], abortOnFail: true } },
  });
  t.equal(result.aborted, true);
  t.equal(result.ok, false);
  endedEarly(t, result, resolvedAfterReportMs);
  t.ok((result.errors.byCode.ECONNREFUSED ?? 0) >= 5, `${result.errors.byCode.ECONNREFUSED} refused`);
});

t.test('a threshold that holds does not abort', async (t) => {
  const server = await testServer(t);
  const result = await runLoad({
    url: server.url,
    connections: 2,
    duration: 1300,
    thresholds: { 'statusCodes.500': { threshold: '< 1', abortOnFail: true } },
  });
  t.equal(result.aborted, false);
  t.equal(result.ok, true);
  t.ok(result.durationMs >= 1300, `ran its full ${result.durationMs} ms`);
});

t.test('failing thresholds that cannot be decided early let the run finish', async (t) => {
  const server = await testServer(t, { errorRate: 0.5 });
  const result = await runLoad({
    url: server.url,
    connections: 2,
    duration: 1300,
    expect: { status: '2xx' },
    thresholds: {
      'checks.rate': { threshold: '> 0.9', abortOnFail: true },
      'statusCodes.500': { threshold: '>= 1000000000', abortOnFail: true },
      'statusCodes.5xx': '< 1',
    },
  });
  t.equal(result.aborted, false, 'a rate can still change, a lower bound can still be reached, and only abortOnFail aborts');
  t.ok(result.durationMs >= 1300, `ran its full ${result.durationMs} ms`);
  t.equal(result.ok, false);
  t.same(result.thresholds?.map((threshold) => threshold.passed), [false, false, false]);
});

t.test('with workers, each shard checks its own numbers', async (t) => {
  const server = await testServer(t, { errorRate: 0.5 });
  const [result, resolvedAfterReportMs] = await timed({
    url: server.url,
    connections: 4,
    workers: 2,
    duration: '10s',
    thresholds: { 'statusCodes.500': { threshold: '< 5', abortOnFail: true } },
  });
  t.equal(result.workers, 2);
  t.equal(result.aborted, true);
  t.equal(result.ok, false);
  endedEarly(t, result, resolvedAfterReportMs);
});
