// `salvo URL [flags]` -> runLoad options: what each flag becomes, exactly.
import t from 'tap';
import { UsageError } from '../../src/cli/command.js';
import { parseRunFlags } from '../../src/cli/run-flags.js';

const url = 'http://127.0.0.1:3000/api';

t.test('every flag becomes its runLoad option', async (t) => {
  const invocation = parseRunFlags([
    url, '-c', '50', '-d', '30', '-R', '2000', '-w', 'auto', '-p', '2', '--transport', 'undici', '--no-keep-alive', '--no-retry',
    '-t', '2s', '--warmup', '500ms', '-m', 'post', '-H', 'x-a: 1', '-H', 'Authorization: Bearer a:b', '-b', '{"a":1}',
    '--expect-status', '200', '--expect-status', '204', '--expect-body', 'ok', '-k',
    '--threshold', 'latency.p99<50', '--threshold', 'latency.p99 > 1', '--threshold', 'errors.rate <= 0.01', '--threshold', 'latency.p99<200 every 10s',
    '--json', '--html', 'r.html', '-q',
  ]);
  t.same(invocation.options, {
    url,
    connections: 50,
    duration: '30s',
    rate: 2000,
    workers: 'auto',
    pipelining: 2,
    transport: 'undici',
    keepAlive: false,
    retry: false,
    timeout: '2s',
    warmup: '500ms',
    method: 'post',
    headers: { 'x-a': '1', Authorization: 'Bearer a:b' },
    body: '{"a":1}',
    tls: { rejectUnauthorized: false },
    expect: { status: [200, 204], body: 'ok' },
    thresholds: { 'latency.p99': ['<50', '> 1', { threshold: '<200', window: '10s' }], 'errors.rate': ['<= 0.01'] },
  });
  t.match(invocation, { json: true, html: 'r.html', quiet: true, plannedMs: 30_000 });
  t.same(parseRunFlags([url, '--transport', 'h2', '-c', '4', '--h2-streams', '10']).options, { url, transport: 'h2', connections: 4, h2Streams: 10, duration: 10_000 });
  t.same(parseRunFlags([url, '--stream', 'sse', '--stream-subscribe', '--stream-timestamp', 't', '-c', '100']).options, {
    url,
    connections: 100,
    stream: { format: 'sse', timestamp: { field: 't' }, subscribe: true },
    duration: 10_000,
  });
  t.throws(() => parseRunFlags([url, '--stream-subscribe']), UsageError, '--stream-subscribe needs --stream sse');
  t.same(parseRunFlags([url, '--compressed', '--stream', 'sse', '--stream-tokens', 'choices.0.delta.content', '--no-stream-usage']).options, {
    url,
    compressed: true,
    stream: { format: 'sse', tokens: 'choices.0.delta.content', usage: false },
    duration: 10_000,
  });
});

t.test('defaults: 10 s unless an amount or stages set the length', async (t) => {
  t.same(parseRunFlags([url]).options, { url, duration: 10_000 });
  t.equal(parseRunFlags([url]).plannedMs, 10_000);
  const amount = parseRunFlags([url, '-a', '1000']);
  t.same(amount.options, { url, amount: 1000 });
  t.equal(amount.plannedAmount, 1000);
  const staged = parseRunFlags([url, '--rate-stage', '10s:100', '--rate-stage', '1m:500']);
  t.same(staged.options, { url, stages: [{ duration: '10s', rate: 100 }, { duration: '1m', rate: 500 }] });
  t.equal(staged.plannedMs, 70_000);
  t.same(parseRunFlags([url, '--connection-stage', '5:20']).options.stages, [{ duration: '5s', connections: 20 }]);
});

t.test('values that are not numbers are passed on for runLoad to reject by name', async (t) => {
  t.same(parseRunFlags([url, '-c', 'ten', '-R', '1e3']).options, { url, connections: 'ten', rate: 1000, duration: 10_000 });
});

t.test('a duration flag takes seconds (a bare number) or a unit, and says so when it gets neither', async (t) => {
  t.equal(parseRunFlags([url, '-d', '1.5']).options.duration, '1.5s');
  t.equal(parseRunFlags([url, '-d', ' 250ms ']).options.duration, '250ms');
  t.equal(parseRunFlags([url, '--warmup', '0']).options.warmup, '0s');
  t.equal(parseRunFlags([url, '--no-prewarm']).options.prewarm, false);
  t.equal(parseRunFlags([url, '--prewarm']).options.prewarm, true);
  t.equal(parseRunFlags([url]).options.prewarm, undefined);
  t.throws(() => parseRunFlags([url, '-d', 'soon']), {
    name: 'UsageError',
    message: `-d/--duration must be seconds (a bare number) or a string like '500ms', '10s', '1m'; got "soon"`,
  });
  t.throws(() => parseRunFlags([url, '--connection-stage', '5x:20']), { name: 'UsageError', message: /^--connection-stage "5x:20": TIME must be seconds/ });
});

t.test('a header given more than once is sent once with its values combined, in order', async (t) => {
  t.same(parseRunFlags([url, '-H', 'x-a: 1', '-H', 'X-A: 2', '-H', 'x-b: 3', '-H', 'x-a: 4']).options.headers, { 'x-a': '1, 2, 4', 'x-b': '3' });
  t.same(parseRunFlags([url, '-H', 'cookie: a=1', '-H', 'Cookie: b=2']).options.headers, { cookie: 'a=1; b=2' }, 'cookies with ; ');
});

t.test('--segment and --start-at become segment and startAt', async (t) => {
  const at = Date.parse('2030-01-02T03:04:05.678Z');
  t.same(parseRunFlags([url, '-a', '100', '--segment', '1/4', '--start-at', '2030-01-02T03:04:05.678Z']).options, {
    url, amount: 100, segment: { index: 1, count: 4 }, startAt: at,
  });
  t.equal(parseRunFlags([url, '--start-at', String(at)]).options.startAt, at, 'epoch ms');
  t.throws(() => parseRunFlags([url, '--segment', '1']), { name: 'UsageError', message: /^--segment must be INDEX\/COUNT/ });
});

t.test('--out and --out-label become outputs', async (t) => {
  const write = 'http://127.0.0.1:9090/api/v1/write';
  t.same(parseRunFlags([url, '-a', '10', '--out', `prometheus=${write}`]).options.outputs, [{ type: 'prometheus', url: write }]);
  t.same(
    parseRunFlags([url, '-a', '10', '--out', `prometheus=${write}`, '--out', 'prometheus=http://b/w', '--out-label', 'testid=checkout-v2', '--out-label', 'team=a=b']).options.outputs,
    [
      { type: 'prometheus', url: write, labels: { testid: 'checkout-v2', team: 'a=b' } },
      { type: 'prometheus', url: 'http://b/w', labels: { testid: 'checkout-v2', team: 'a=b' } },
    ],
    'labels on every output; a value may hold =',
  );
  t.throws(() => parseRunFlags([url, '--out', write]), { name: 'UsageError', message: /^--out must look like prometheus=URL/ });
  t.throws(() => parseRunFlags([url, '--out', `influxdb=${write}`]), { name: 'UsageError', message: /the only kind is prometheus/ });
  t.throws(() => parseRunFlags([url, '--out', `prometheus=${write}`, '--out-label', 'testid']), { name: 'UsageError', message: /^--out-label must look like NAME=VALUE/ });
  t.throws(() => parseRunFlags([url, '--out-label', 'testid=x']), { name: 'UsageError', message: /^--out-label labels the series of --out/ });
});

t.test('command-line syntax errors are UsageErrors naming the flag', async (t) => {
  t.throws(() => parseRunFlags([]), new UsageError('no URL given: salvo needs the URL to load, such as salvo http://127.0.0.1:3000/ -c 50 -d 30s'));
  t.match(parseRunFlags(['--task', './checkout.mjs#pay', '--concurrency', '5', '-a', '10']).options, { task: './checkout.mjs#pay', concurrency: 5, amount: 10 });
  t.notOk('url' in parseRunFlags(['--task', './checkout.mjs']).options, 'a task run has no url');
  t.throws(() => parseRunFlags(['http://127.0.0.1:1/', '--task', './checkout.mjs']), /--task runs a function instead of loading a URL: give one or the other/);
  t.throws(() => parseRunFlags([url, url]), { name: 'UsageError', message: /one URL at a time/ });
  t.throws(() => parseRunFlags([url, '--conections', '5']), { name: 'UsageError', message: "Unknown option '--conections'" });
  t.throws(() => parseRunFlags([url, '-c']), { name: 'UsageError', message: /Option '-c, --connections <value>' argument missing/ });
  t.throws(() => parseRunFlags([url, '-b', 'x', '-i', 'file']), { name: 'UsageError', message: 'give one of --body, --body-file and --json-body; got --body and --body-file' });
  t.throws(() => parseRunFlags([url, '-i', '/nonexistent/body']), { name: 'UsageError', message: /^--body-file: cannot read \/nonexistent\/body/ });
});

t.test('--help and --version need no URL', async (t) => {
  t.match(parseRunFlags(['--help']), { help: true });
  t.match(parseRunFlags(['-v']), { version: true });
});
