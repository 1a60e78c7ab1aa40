// Thresholds on one request name or scenario, k6's way: `latency.min{name:slow}`. Against a server
// whose paths differ in a way a threshold can tell exactly (a status, a fixed delay), so that a
// per-name threshold fails while the run's passes, and the reverse.
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { runLoad } from '../../src/index.js';
import { splitScope } from '../../src/stats/threshold-scope.js';
import { parseThresholds } from '../../src/stats/thresholds.js';

const SLOW_MS = 30;

/** `/slow` answers after SLOW_MS, `/checkout` with 500, anything else at once with 200. */
async function startServer(t: Test) {
  const server = http.createServer((request, response) => {
    if (request.url === '/slow') setTimeout(() => response.end('slow'), SLOW_MS);
    else if (request.url === '/checkout') {
      response.statusCode = 500;
      response.end('no');
    } else response.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('splitScope reads {name:...} and {scenario:...}', async (t) => {
  t.same(splitScope('latency.p99'), { metric: 'latency.p99' });
  t.same(splitScope('latency.p99{name:checkout}'), { metric: 'latency.p99', scope: { kind: 'name', key: 'checkout' } });
  t.same(splitScope('errors.rate{ scenario : browse }'), { metric: 'errors.rate', scope: { kind: 'scenario', key: 'browse' } });
  t.same(splitScope('latency.p99{name:GET /users}'), { metric: 'latency.p99', scope: { kind: 'name', key: 'GET /users' } });
  t.equal(splitScope('latency.p99{name:}'), undefined);
  t.equal(splitScope('latency.p99{method:GET}'), undefined);
  t.throws(() => parseThresholds({ 'latency.p99{status:200}': '< 5' }), { option: "thresholds['latency.p99{status:200}']", message: /unknown metric/ });
  t.throws(() => parseThresholds({ 'server.cpuPercent{name:a}': '< 5' }), { message: /unknown metric/ }, 'the server is the run\'s');
  t.throws(() => parseThresholds({ 'latency.p1{name:a}': '< 5' }), { message: /unknown metric/ });
});

t.test('a threshold per name fails while the run\'s passes, and the reverse', async (t) => {
  const url = await startServer(t);
  const result = await runLoad({
    url,
    connections: 3,
    amount: 300,
    requests: [{ path: '/fast' }, { name: 'slow', path: '/slow' }, { name: 'checkout', method: 'POST', path: '/checkout' }],
    thresholds: {
      // The name's 500s fail it; the run's requests are all answered.
      'statusCodes.5xx{name:checkout}': '< 1',
      'requests.completed': '== 300',
      // The run has 500s; the fast name has none.
      'statusCodes.5xx': '< 1',
      'statusCodes.5xx{name:GET /fast}': '== 0',
      // Every slow response waited SLOW_MS at the server (a timer may fire up to a ms early); the run's fastest did not.
      'latency.min{name:slow}': `>= ${SLOW_MS - 2}`,
      'latency.min': `>= ${SLOW_MS - 2}`,
      'requests.completed{name:slow}': '== 100',
      'latency.p99{name:nope}': '< 1000',
    },
  });
  const verdicts = Object.fromEntries(result.thresholds!.map((threshold) => [threshold.metric, threshold.passed]));
  t.same(verdicts, {
    'statusCodes.5xx{name:checkout}': false,
    'requests.completed': true,
    'statusCodes.5xx': false,
    'statusCodes.5xx{name:GET /fast}': true,
    'latency.min{name:slow}': true,
    'latency.min': false,
    'requests.completed{name:slow}': true,
    'latency.p99{name:nope}': false,
  });
  const missing = result.thresholds!.find((threshold) => threshold.metric === 'latency.p99{name:nope}')!;
  t.match(missing.message, /no request named "nope" in this run \(names: "GET \/fast", "slow", "checkout"\)/, 'a name the run never had fails, saying so');
  t.ok(Number.isNaN(missing.actual));
  t.equal(result.ok, false);
});

t.test('abortOnFail on a name ends the run early', async (t) => {
  const url = await startServer(t);
  const result = await runLoad({
    url,
    connections: 2,
    duration: 20_000,
    requests: [{ path: '/fast' }, { name: 'checkout', path: '/checkout' }],
    thresholds: { 'statusCodes.5xx{name:checkout}': { threshold: '< 1', abortOnFail: true }, 'statusCodes.5xx{name:GET /fast}': { threshold: '< 1', abortOnFail: true } },
  });
  t.equal(result.aborted, true, 'aborted on the checkout name\'s 500s');
  t.ok(result.durationMs < 10_000, `long before the 20 s: ${result.durationMs} ms`);
  t.same(result.thresholds!.map((threshold) => threshold.passed), [false, true]);
});

t.test('a single request\'s name and a windowed threshold on a name', async (t) => {
  const url = await startServer(t);
  const result = await runLoad({
    url: `${url}/slow`,
    connections: 2,
    duration: 2000,
    thresholds: {
      'latency.min{name:GET /slow}': `>= ${SLOW_MS - 2}`,
      'requests.completed{name:GET /slow}': { threshold: '> 0', window: '1s' },
    },
  });
  t.same(result.thresholds!.map((threshold) => threshold.passed), [true, true]);
  t.equal(result.thresholds![1]!.windows!.judged, result.timeline.length);
});
