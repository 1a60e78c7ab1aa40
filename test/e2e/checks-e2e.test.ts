// `expect` checks and `thresholds` end to end, counted against what the server answered.
import t from 'tap';
import { assertThresholds, runLoad, type TransportName } from '../../src/index.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun } from '../fixtures/timing.js';

const TRANSPORTS: TransportName[] = ['net', 'undici', 'http'];


t.test('planned checks reach worker threads whole: status list, RegExp body and header', async (t) => {
  const server = await testServer(t, { errorRate: 0.25, headers: { 'X-App': 'salvo-7' } });
  const result = await runLoad({
    url: server.url,
    connections: 4,
    workers: 2,
    amount: 200,
    expect: { status: [200, '3xx'], body: /^o[k]$/, headers: { 'x-app': /^salvo-\d$/ } },
  });
  const served200 = server.stats.statusCodes['200'] ?? 0;
  t.equal(result.workers, 2);
  t.same(result.checks?.byName, {
    status: { passed: served200, failed: 200 - served200 },
    body: { passed: 200, failed: 0 },
    'header:x-app': { passed: 200, failed: 0 },
  });
  t.ok(result.checks?.examples.some((e) => e.message === 'status 500 is not one of 200, 3xx'), 'the description travels too');
});

for (const transport of TRANSPORTS) {
  t.test(transport, async (t) => {
    t.test('status check: failures equal the server\'s 500s exactly', async (t) => {
      const server = await testServer(t, { errorRate: 0.3 });
      const result = await runLoad({ url: server.url, transport, connections: 3, amount: 600, expect: { status: '2xx' } });
      const served500 = server.stats.statusCodes['500'] ?? 0;
      t.ok(served500 > 100, `${served500} 500s`);
      t.same(result.checks, {
        passed: 600 - served500,
        failed: served500,
        byName: { status: { passed: 600 - served500, failed: served500 } },
        examples: [{ name: 'status', message: 'status 500 is not 2xx' }],
      });
    });

    t.test('body and header checks on every response', async (t) => {
      const server = await testServer(t, { errorRate: 0.25, headers: { 'X-App': 'salvo' } });
      const result = await runLoad({
        url: server.url,
        transport,
        connections: 2,
        amount: 300,
        expect: { status: 200, body: 'ok', headers: { 'x-app': 'salvo', 'X-Version': /^\d+$/ } },
      });
      const served200 = server.stats.statusCodes['200'] ?? 0;
      t.same(result.checks?.byName, {
        status: { passed: served200, failed: 300 - served200 },
        body: { passed: 300, failed: 0 },
        'header:x-app': { passed: 300, failed: 0 },
        'header:x-version': { passed: 0, failed: 300 },
      });
      t.equal(result.checks?.passed, served200 + 600);
      t.equal(result.checks?.failed, 300 - served200 + 300);
      t.ok(result.checks?.examples.some((e) => e.message === 'header x-version is missing'), 'a missing header is reported');
    });

    t.test('a chunked 20 kB body is checked whole', async (t) => {
      const server = await testServer(t, { chunked: true, bodySize: 20_000 });
      const result = await runLoad({ url: server.url, transport, connections: 2, amount: 50, expect: { body: /^ok o{19998}$/ } });
      t.same(result.checks?.byName, { body: { passed: 0, failed: 50 } }, 'a pattern the body does not match fails');
      const matching = await runLoad({ url: server.url, transport, connections: 2, amount: 50, expect: { body: /^oko{19998}$/ } });
      t.same(matching.checks?.byName, { body: { passed: 50, failed: 0 } });
    });

    t.test('warm-up responses are not checked', (t) =>
      inSomeRun(t, 3, async (timing) => {
        const server = await testServer(t, { delayMs: 2 });
        const result = await runLoad({ url: server.url, transport, connections: 2, warmup: 300, duration: 400, expect: { status: 200 } });
        t.ok(server.stats.requests - result.requests.sent >= 2, 'each connection\'s first request went out in the warm-up');
        // Two connections at ~2 ms make well over 50 in 300 ms, unless the host stalled the run.
        timing.ok(server.stats.requests > result.requests.completed + 50, `server ${server.stats.requests}, measured ${result.requests.completed}`);
        t.equal(result.checks?.passed, result.requests.completed, 'one check per measured response');
        t.equal(result.checks?.failed, 0);
      }),
    );
  });
}

t.test('no expect, no checks', async (t) => {
  const server = await testServer(t);
  const result = await runLoad({ url: server.url, amount: 10 });
  t.equal(result.checks, undefined);
});

t.test('thresholds that pass: ok, and assertThresholds returns', async (t) => {
  const server = await testServer(t);
  const result = await runLoad({
    url: server.url,
    connections: 2,
    amount: 200,
    expect: { status: 200 },
    thresholds: {
      'checks.failed': '== 0',
      'checks.rate': '>= 1',
      'statusCodes.2xx': '== 200',
      'requests.completed': ['>= 200', '<= 200'],
      'latency.p99': '< 1000',
    },
  });
  t.equal(result.ok, true);
  t.equal(result.aborted, false);
  t.equal(result.thresholds?.length, 6);
  t.ok(result.thresholds?.every((threshold) => threshold.passed));
  t.same(result.thresholds?.find((threshold) => threshold.metric === 'statusCodes.2xx'), {
    metric: 'statusCodes.2xx', expression: '== 200', actual: 200, passed: true,
  });
  t.doesNotThrow(() => assertThresholds(result));
});

t.test('thresholds that fail: not ok, with the actual values, and assertThresholds throws', async (t) => {
  const server = await testServer(t, { errorRate: 0.3 });
  const result = await runLoad({
    url: server.url,
    connections: 2,
    amount: 300,
    expect: { status: '2xx' },
    thresholds: { 'checks.failed': '< 1', 'statusCodes.500': '< 1', 'errors.total': '== 0' },
  });
  const served500 = server.stats.statusCodes['500'] ?? 0;
  t.equal(result.ok, false);
  t.equal(result.aborted, false, 'no abortOnFail: the run goes to its end');
  t.equal(result.requests.completed, 300);
  t.same(result.thresholds, [
    { metric: 'checks.failed', expression: '< 1', actual: served500, passed: false },
    { metric: 'statusCodes.500', expression: '< 1', actual: served500, passed: false },
    { metric: 'errors.total', expression: '== 0', actual: 0, passed: true },
  ]);
  t.throws(() => assertThresholds(result), { name: 'AssertionError', message: /^2 of 3 thresholds failed:\n {2}checks\.failed < 1: actual/ });
});
