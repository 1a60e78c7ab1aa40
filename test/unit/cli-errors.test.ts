// What `salvo` says about bad input, in process: exit status 2, the flag or option named, nothing on
// stdout, nothing sent. (cli.test.ts checks the same through a child process.)
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../../src/cli/commands.js';
import { Capture } from '../fixtures/cli.js';
import { testServer } from '../fixtures/test-server.js';

async function salvo(args: string[]) {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(args, { stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

t.test('each bad input is named, exit 2, and nothing is sent', async (t) => {
  const server = await testServer(t);
  const cases: Array<[string[], string]> = [
    [['--conections', '5'], "Unknown option '--conections'"],
    [['-c'], "Option '-c, --connections <value>' argument missing"],
    [['-c', '0'], 'connections must be a positive integer; got 0'],
    [['-c', 'many'], 'connections must be a positive integer; got "many"'],
    [['-d', 'soon'], `-d/--duration must be seconds (a bare number) or a string like '500ms', '10s', '1m'; got "soon"`],
    [['-d', '1x'], `-d/--duration must be seconds (a bare number) or a string like '500ms', '10s', '1m'; got "1x"`],
    [['--warmup', '2 min'], `--warmup must be seconds (a bare number) or a string like '500ms', '10s', '1m'; got "2 min"`],
    [['-t', ''], `-t/--timeout must be seconds (a bare number) or a string like '500ms', '10s', '1m'; got ""`],
    [['--rate-stage', '1x:100'], `--rate-stage "1x:100": TIME must be seconds (a bare number) or a string like '500ms', '10s', '1m'; got "1x"`],
    [['--threshold', 'latency.p99<50ms'], `--threshold "latency.p99<50ms" must look like 'latency.p99<50' (metric, comparison, number); the number has no unit`],
    [['--threshold', 'latncy.p99<5'], '--threshold "latncy.p99<5": "latncy.p99" names no metric; known: latency.<stat>'],
    [['--threshold', 'latency.p99<5 every 1.5s'], `--threshold "latency.p99<5 every 1.5s": every takes whole seconds (the timeline's), such as 'every 10s'`],
    [['--segment', '1of4'], '--segment must be INDEX/COUNT, such as 0/4 (the first of 4); got "1of4"'],
    [['--segment', '4/4'], 'the --segment index must be an integer from 0 to count - 1 (3); got 4'],
    [['--start-at', 'tomorrow'], '--start-at must be an ISO 8601 time (2030-01-01T12:00:00Z) or epoch milliseconds; got "tomorrow"'],
    [['--start-at', '1700000000'], '--start-at must be epoch milliseconds'],
    [['--rate=-5'], 'rate must be a positive integer; got -5'],
    [['-R', '-5'], "Option '-R' argument is ambiguous."],
    [['--transport', 'carrier-pigeon'], `transport must be one of 'net', 'undici', 'http', 'h2'; got "carrier-pigeon"`],
    [['-p', '2', '--no-keep-alive'], 'pipelining 2 needs keep-alive (leave out --no-keep-alive): a connection that closes after each response carries one request'],
    [['--ws-rate', '5'], 'websocket needs a ws: or wss: url'],
    [['--threshold', 'latency.p99~5'], `--threshold "latency.p99~5" must look like 'latency.p99<50' (metric, comparison, number)`],
    [['-H', 'no-colon'], `--header "no-colon" must look like 'name: value'`],
    [['--rate-stage', '10s'], '--rate-stage "10s" must look like TIME:RATE, such as 30s:1000'],
    [['--expect-status', 'great'], 'expect.status'],
    [['--ca', '/nonexistent/ca.pem'], '--ca: cannot read /nonexistent/ca.pem'],
  ];
  const seen: string[] = [];
  const stderrs = (n: number) => (t.equal(seen.length, n), seen.join(''));
  for (const [flags, message] of cases) {
    const { code, stdout, stderr } = await salvo([server.url, ...flags]);
    seen.push(stderr);
    t.equal(code, 2, `${flags.join(' ')}: exit 2`);
    t.equal(stdout, '', `${flags.join(' ')}: nothing on stdout`);
    t.ok(stderr.startsWith(`salvo: ${message}`), `${flags.join(' ')}: ${stderr.split('\n')[0]}`);
    t.match(stderr, /\n\(salvo --help lists the flags\)\n$/);
  }
  t.notMatch(stderrs(cases.length), /milliseconds or|thresholds\[|segment\.|startAt/, 'no library option names, no milliseconds for a bare number');
  t.equal(server.stats.requests, 0, 'no request was sent');
});

t.test('option names that differ from their flag are given as the flag', async (t) => {
  const ws = await salvo(['ws://127.0.0.1:9/', '-R', '100']);
  t.equal(ws.code, 2);
  t.match(ws.stderr, /^salvo: rate is an HTTP option .*\(for messages per second per connection use --ws-rate\); got rate 100\n/);
  const noMessage = await salvo(['ws://127.0.0.1:9/', '--ws-rate', '5']);
  t.match(noMessage.stderr, /^salvo: --ws-rate needs --ws-message, the message to send/);
  const capacity = await salvo(['capacity', 'http://127.0.0.1:9/', '--slo', 'latency.p99<5', '--step-duration', 'soon']);
  t.match(capacity.stderr, /^salvo: --step-duration must be seconds \(a bare number\) or a string like '500ms', '10s', '1m'; got "soon"\n/);
});

t.test('salvo capacity: bad search flags are named and quoted, never NaN; nothing is sent', async (t) => {
  const server = await testServer(t);
  const slo = ['--slo', 'latency.p99<50'];
  const cases: Array<[string[], string]> = [
    [['--start', 'abc'], '--start must be an integer of at least 1; got "abc"'],
    [['--start', ''], '--start must be an integer of at least 1; got ""'],
    [['--max', '1e9x'], '--max must be an integer of at least 1; got "1e9x"'],
    [['--precision', 'fine'], `--precision must be a fraction between 0 and 1 (0.05 is 5%); got "fine"`],
    [['--pause', '1x'], `--pause must be seconds (a bare number) or a string like '500ms', '10s', '1m'; got "1x"`],
    [['--confirm-duration', 'abc'], `--confirm-duration must be seconds (a bare number) or a string like '500ms', '10s', '1m'; got "abc"`],
    [['--ws-message', 'hi'], "Unknown option '--ws-message'"],
    [['--ws-rate', '5'], "Unknown option '--ws-rate'"],
    [['--ws-timestamp', 'ts'], "Unknown option '--ws-timestamp'"],
  ];
  for (const [flags, message] of cases) {
    const { code, stdout, stderr } = await salvo(['capacity', server.url, ...slo, ...flags]);
    t.equal(code, 2, `${flags.join(' ')}: exit 2`);
    t.equal(stdout, '');
    t.equal(stderr, `salvo: ${message}\n(salvo capacity --help lists the flags)\n`, flags.join(' '));
  }
  const sloTypo = await salvo(['capacity', server.url, '--slo', 'latncy.p99<50']);
  t.match(sloTypo.stderr, /^salvo: --slo "latncy.p99<50": "latncy.p99" names no metric/);
  const ws = await salvo(['capacity', 'ws://127.0.0.1:9/', ...slo]);
  t.match(ws.stderr, /^salvo: salvo capacity searches HTTP request rates: a ws: or wss: URL has no request rate/);
  t.equal(server.stats.requests, 0, 'no request was sent');
  const help = await salvo(['capacity', '--help']);
  t.equal(help.code, 0);
  t.notMatch(help.stdout, /--ws-/, 'capacity --help lists no WebSocket flag');
  t.match(help.stdout, /--connections/);
});

t.test('a subcommand points at its own help', async (t) => {
  const { code, stderr } = await salvo(['report', 'a.json', 'b.json']);
  t.equal(code, 2);
  t.equal(stderr, 'salvo: salvo report takes one result file; got 2\n(salvo report --help lists the flags)\n');
  const help = await salvo(['report', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /^usage: salvo report RESULT\.json \[-o REPORT\.html\]/);
});

t.test('salvo report: a missing file, a JSON that is no result, an unknown flag', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'salvo-cli-'));
  const missing = await salvo(['report', join(dir, 'missing.json')]);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /^salvo: cannot read .*missing\.json: ENOENT/);
  await writeFile(join(dir, 'other.json'), '{"hello": 1}');
  const notResult = await salvo(['report', join(dir, 'other.json')]);
  t.equal(notResult.code, 2);
  t.match(notResult.stderr, /^salvo: .*other\.json is not a salvo result/);
  await writeFile(join(dir, 'broken.json'), '{"hello":');
  const broken = await salvo(['report', join(dir, 'broken.json')]);
  t.equal(broken.code, 2);
  t.match(broken.stderr, /^salvo: .*broken\.json is not JSON/);
  const badFlag = await salvo(['report', join(dir, 'other.json'), '--out', 'x.html']);
  t.equal(badFlag.code, 2);
  t.equal(badFlag.stderr, "salvo: Unknown option '--out'\n(salvo report --help lists the flags)\n");
});
