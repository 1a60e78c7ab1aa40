// Runs where nothing worked or most requests failed: the warning and its advice, `ok`, the CLI's
// exit status per cause; no latency is not zero latency; the exceptions of the user's hooks.
import t from 'tap';
import { runLoad, type LoadResult } from '../../src/index.js';
import { formatResult } from '../../src/stats/format.js';
import { renderReport } from '../../src/report/render.js';
import { EXIT, runExitStatus } from '../../src/cli/command.js';
import { runCli } from '../../src/cli/commands.js';
import { createTestServer, type CreateTestServerOptions } from '../../src/testing/index.js';
import { testServer } from '../fixtures/test-server.js';
import { refusedPort } from '../fixtures/raw-http-server.js';
import { Capture } from '../fixtures/cli.js';

const advice = (result: LoadResult, code: string) => result.warnings.find((warning) => warning.code === code)?.message;

t.test('a refused port: NO_SUCCESS with advice, ok false, no latency, and a latency threshold fails with no data', async (t) => {
  const port = await refusedPort();
  const result = await runLoad({ url: `http://127.0.0.1:${port}/`, connections: 2, duration: 300, thresholds: { 'latency.p99': '< 50' } });
  t.match(advice(result, 'NO_SUCCESS'), new RegExp(`^no request succeeded: of ${result.requests.sent} sent, ${result.requests.sent} failed\\. Most failed with ECONNREFUSED: nothing is listening at 127\\.0\\.0\\.1:${port}`));
  t.equal(result.ok, false);
  t.equal(result.latency.count, 0);
  t.ok(Number.isNaN(result.latency.p99), 'p99 NaN, not 0');
  t.equal(JSON.parse(JSON.stringify(result)).latency.p99, null, 'null in JSON');
  t.same(result.thresholds?.map((threshold) => threshold.passed), [false]);
  const text = formatResult(result);
  t.match(text, /^Latency +no responses$/m);
  t.notMatch(text, /0\.000/, 'no zero latency rows');
  t.match(text, /✗ latency\.p99 < 50 +actual no data/);
  const html = renderReport(result);
  t.match(html, /<span class="badge failed">thresholds failed<\/span>/);
  t.match(html, /<p id="no-latency">no responses<\/p>/);
  t.equal(runExitStatus(result), EXIT.failed, 'the threshold first');
  const stdout = new Capture();
  const stderr = new Capture();
  t.equal(await runCli([`http://127.0.0.1:${port}/`, '-d', '0.3', '-q'], { stdout, stderr }), EXIT.noSuccess, 'the CLI exits 3');
  t.match(stdout.text, /Warning NO_SUCCESS: no request succeeded/);
});

t.test('an HTTP/2-only server read as HTTP/1.1: the advice is transport h2', async (t) => {
  const server = await testServer(t, { h2: true });
  for (const transport of ['net', 'undici', 'http'] as const) {
    const result = await runLoad({ url: server.url, transport, connections: 1, duration: 300 });
    t.match(advice(result, 'NO_SUCCESS'), /Most failed with (HPE_UNEXPECTED_EOF|HPE_INVALID_CONSTANT|HTTPParserError): .*use transport: 'h2' \(CLI: --transport h2\)/, transport);
  }
});

t.test('a server shedding load with 503: MOSTLY_FAILED (or NO_SUCCESS) names the status, a red badge, exit 4', async (t) => {
  const all = await testServer(t, { status: 503 });
  const shed = await runLoad({ url: all.url, amount: 40 });
  t.match(advice(shed, 'NO_SUCCESS'), /of 40 sent, 40 failed\. Most failed with status 503: the server failed or shed the load.*expect: \{ status: 503 \}/);
  const most = await testServer(t, { errorRate: 0.8 });
  const result = await runLoad({ url: most.url, amount: 400 });
  const fiveHundreds = result.failed.byStatus['500'] ?? 0;
  if (fiveHundreds > 200 && fiveHundreds < 400) {
    t.match(advice(result, 'MOSTLY_FAILED'), new RegExp(`^${fiveHundreds} of 400 requests failed \\([0-9.]+%\\)\\. Most failed with status 500`));
    t.equal(result.ok, true, 'ok stays with the thresholds');
    t.equal(runExitStatus(result), EXIT.mostlyFailed);
    t.match(renderReport(result), /<span class="badge failed">most requests failed<\/span>/);
  }
  t.notOk(advice(await runLoad({ url: all.url, amount: 20, expect: { status: 503 } }), 'NO_SUCCESS'), 'an expected 503 is a success');
});

t.test('a report without thresholds is grey; with them it follows the verdict', async (t) => {
  const server = await testServer(t);
  const plain = await runLoad({ url: server.url, amount: 20 });
  t.match(renderReport(plain), /<span class="badge neutral">no thresholds<\/span>/);
  t.equal(runExitStatus(plain), EXIT.ok);
  const judged = await runLoad({ url: server.url, amount: 20, thresholds: { 'failed.rate': '< 0.01' } });
  t.match(renderReport(judged), /<span class="badge passed">thresholds passed<\/span>/);
});

t.test("exceptions from the user's hooks are kept in errors.samples, printed, and exit 6", async (t) => {
  const server = await testServer(t);
  const result = await runLoad({
    url: server.url,
    connections: 1,
    amount: 20,
    requests: [
      { path: '/a', onResponse: (_status, body) => void JSON.parse(body.toString()) },
      { path: '/b', setupRequest: () => { throw new TypeError('no token yet'); } },
    ],
  });
  const samples = result.errors.samples ?? [];
  t.same(samples.map(({ code, where }) => [code, where]), [
    ['ON_RESPONSE_FAILED', 'requests[0].onResponse'],
    ['SETUP_REQUEST_FAILED', 'requests[1].setupRequest'],
  ], 'one sample per place and message, naming the hook');
  t.match(samples[0]?.message, /JSON/);
  t.match(samples[1], { message: 'no token yet', stack: /failure-advice\.test\.ts/ });
  t.same([result.requests.sent, result.errors.total, result.requests.completed], [20, 20, 0]);
  const text = formatResult(result);
  t.match(text, /✗ requests\[1\]\.setupRequest: no token yet\n {6}at .*failure-advice\.test\.ts/);
  t.match(renderReport(result), /Errors with a message/);
  t.equal(runExitStatus({ ...result, warnings: [] }), EXIT.hookFailed);
});

t.test('WebSocket messages none of which carried the timestamp: NOT_TIMED, no latency', async (t) => {
  const options: CreateTestServerOptions = { websocket: { echo: false, broadcastIntervalMs: 20 } };
  const server = await createTestServer(options);
  t.teardown(() => server.close());
  const result = await runLoad({ url: server.url, connections: 2, duration: 500, websocket: { timestamp: { field: 'sentAt' } }, thresholds: { 'latency.p99': '< 50' } });
  const received = result.messages!.received;
  t.ok(received > 10, `received ${received}`);
  t.equal(result.latency.count, 0);
  t.match(advice(result, 'NOT_TIMED'), new RegExp(`^${received} messages were received and none was timed: no message carried the timestamp field \`sentAt\``));
  t.same(result.thresholds?.map((threshold) => [threshold.passed, threshold.actual]), [[false, Number.NaN]]);
  t.match(formatResult(result), new RegExp(`^Latency +none of the ${received} messages received was timed`, 'm'));
});
