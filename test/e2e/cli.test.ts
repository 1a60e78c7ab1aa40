// The `salvo` command as a user runs it: a child process against the test server. Exit statuses,
// what goes to stdout (the result only) and to stderr (progress, messages), and what the server saw.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runLoad, type LoadResult } from '../../src/index.js';
import type { TestRequest } from '../../src/testing/index.js';
import { root, runProgram, runSalvo } from '../fixtures/cli.js';
import { localhostCert, localhostKey, rawServer } from '../fixtures/raw-http-server.js';
import { testServer } from '../fixtures/test-server.js';

/** The key structure of a JSON value: objects by their keys, arrays by their first element. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shape(v)]));
  }
  return typeof value;
}

t.test('--help lists the flags and the subcommands, on stdout, exit 0', async (t) => {
  const { code, stdout, stderr } = await runSalvo(['--help']);
  t.equal(code, 0);
  t.equal(stderr, '');
  for (const flag of ['-c, --connections', '-d, --duration', '-a, --amount', '-R, --rate', '-w, --workers', '-H, --header', '-m, --method', '-b, --body', '--transport', '-t, --timeout', '--threshold', '--json', '--html', '-k, --insecure', '--no-keep-alive']) {
    t.ok(stdout.includes(flag), `lists ${flag}`);
  }
  t.match(stdout, /^ {2}report +render the HTML report/m, 'lists the report subcommand');
});

t.test('no URL: says so, exit 2, nothing on stdout', async (t) => {
  const { code, stdout, stderr } = await runSalvo(['-c', '5']);
  t.equal(code, 2);
  t.equal(stdout, '');
  t.match(stderr, /no URL given/);
});

t.test('bad input names the flag or option, exits 2 and sends nothing', async (t) => {
  const server = await testServer(t);
  // The full list of messages is in cli-errors.test.ts, in process; here the child's exit status.
  const cases: Array<[string[], RegExp]> = [
    [['--conections', '5'], /^salvo: Unknown option '--conections'\n/],
    [['-c', '0'], /^salvo: connections must be a positive integer; got 0\n/],
  ];
  for (const [flags, message] of cases) {
    const { code, stdout, stderr } = await runSalvo([server.url, ...flags]);
    t.equal(code, 2, `${flags.join(' ')}: exit 2`);
    t.equal(stdout, '', `${flags.join(' ')}: nothing on stdout`);
    t.match(stderr, message, `${flags.join(' ')}: ${stderr.split('\n')[0]}`);
  }
  t.equal(server.stats.requests, 0, 'no request was sent');
});

t.test('--json prints only the result, shaped as a library run, with exact counts', async (t) => {
  const server = await testServer(t);
  const { code, stdout } = await runSalvo([server.url, '-a', '300', '-c', '3', '--json']);
  t.equal(code, 0);
  const fromCli = JSON.parse(stdout) as LoadResult;
  t.equal(server.stats.requests, 300, 'the server saw exactly the amount');
  t.equal(fromCli.requests.completed, 300);
  t.equal(fromCli.connections, 3);
  server.reset();
  const fromLibrary = await runLoad({ url: server.url, amount: 300, connections: 3 });
  // Which warnings a run raises depends on where its server ran: this library run shares its thread
  // with the server (GENERATOR_SATURATED), the CLI's child process does not. Both carry the array.
  const { warnings: cliWarnings, ...cliFields } = fromCli as LoadResult;
  const { warnings: libraryWarnings, ...libraryFields } = JSON.parse(JSON.stringify(fromLibrary)) as LoadResult;
  t.ok(Array.isArray(cliWarnings) && Array.isArray(libraryWarnings), 'warnings is an array in both');
  t.same(shape(cliFields), shape(libraryFields), 'the same fields as runLoad resolves with');
});

t.test('progress goes to stderr, one line per second when not a terminal; stdout stays JSON', async (t) => {
  const server = await testServer(t);
  const { code, stdout, stderr } = await runSalvo([server.url, '-d', '2', '-R', '100', '-c', '5', '--json']);
  t.equal(code, 0);
  const result = JSON.parse(stdout) as LoadResult;
  const lines = stderr.split('\n').filter((line) => line !== '');
  t.equal(lines.length, result.timeline.length, `one line per second: ${JSON.stringify(lines)}`);
  t.equal(lines.length, 2);
  lines.forEach((line, i) => {
    const second = result.timeline[i]!;
    t.match(line, new RegExp(`^${i + 1}s/2s \\[[#.]{20}\\]  ${second.completed} req/s  p50 [\\d.]+ ms  p99 [\\d.]+ ms  errors 0  ${second.connections} conns$`), line);
  });
  t.notMatch(stdout, /req\/s/, 'no progress on stdout');
});

t.test('exit 0 when every threshold passes, 1 when one fails; the summary on stdout', async (t) => {
  const server = await testServer(t);
  const passing = await runSalvo([server.url, '-a', '200', '-c', '2', '-q', '--threshold', 'requests.completed==200', '--threshold', 'errors.total<1']);
  t.equal(passing.code, 0);
  t.equal(passing.stderr, '', '-q: nothing on stderr');
  t.match(passing.stdout, /^Requests {6}200 sent, 200 completed, 0 missed, 0 retried$/m);
  t.match(passing.stdout, /Thresholds {4}all 2 passed/);
  const failing = await runSalvo([server.url, '-a', '200', '-c', '2', '-q', '--threshold', 'requests.completed<200']);
  t.equal(failing.code, 1);
  t.match(failing.stdout, /✗ requests.completed <200 +actual 200/);
  t.equal(server.stats.requests, 400);
});

t.test('method, headers and body reach the server', async (t) => {
  const seen: TestRequest[] = [];
  const server = await testServer(t, { onRequest: (request) => seen.push(request) });
  const { code } = await runSalvo([server.url, '-a', '5', '-c', '1', '-q', '-m', 'POST', '-H', 'x-salvo: yes', '-H', 'Content-Type: text/plain', '-b', 'hello']);
  t.equal(code, 0);
  t.equal(seen.length, 5);
  for (const request of seen) {
    t.equal(request.method, 'POST');
    t.equal(request.headers['x-salvo'], 'yes');
    t.equal(request.headers['content-type'], 'text/plain');
    t.equal(request.body.toString(), 'hello');
  }
});

t.test('https: the certificate is verified unless --ca trusts it or -k skips the check', async (t) => {
  const server = await rawServer(t, (socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'), {
    tls: { key: localhostKey, cert: localhostCert },
  });
  const url = `https://localhost:${server.port}/`;
  const verified = await runSalvo([url, '-c', '1', '-d', '300ms', '-q', '--json', '--threshold', 'errors.total==0']);
  t.equal(verified.code, 1, 'the errors fail the threshold');
  const refused = JSON.parse(verified.stdout) as LoadResult;
  t.equal(refused.requests.completed, 0);
  t.ok(Object.keys(refused.errors.byCode).some((code) => /SELF_SIGNED|CERT/.test(code)), JSON.stringify(refused.errors.byCode));
  t.equal(server.requests.length, 0);
  for (const flags of [['--ca', 'test/fixtures/localhost-cert.pem'], ['-k']]) {
    const { code, stdout } = await runSalvo([url, '-c', '2', '-a', '20', '-q', '--json', ...flags]);
    t.equal(code, 0, flags.join(' '));
    t.equal((JSON.parse(stdout) as LoadResult).requests.completed, 20, `${flags.join(' ')}: 20 completed`);
  }
  t.equal(server.requests.length, 40, 'the server answered all 40');
});

t.test('--html writes the report; salvo report renders one from saved JSON', async (t) => {
  const server = await testServer(t);
  const dir = await mkdtemp(join(tmpdir(), 'salvo-cli-'));
  const html = join(dir, 'run.html');
  const run = await runSalvo([server.url, '-a', '100', '-c', '2', '--json', '--html', html]);
  t.equal(run.code, 0);
  t.match(run.stderr, `report written to ${html}`);
  const written = await readFile(html, 'utf8');
  t.match(written, /^<!doctype html>/);
  t.match(written, '<script type="application/json" id="salvo-data">');
  t.notMatch(written, /<(script|link)[^>]+(src|href)=/, 'nothing loaded from elsewhere');

  const saved = join(dir, 'result.json');
  await writeFile(saved, run.stdout);
  const out = join(dir, 'report.html');
  const report = await runSalvo(['report', saved, '-o', out]);
  t.equal(report.code, 0);
  t.equal(report.stdout, '');
  t.equal(await readFile(out, 'utf8'), written, 'the same page as --html');
  const toStdout = await runSalvo(['report', saved]);
  t.equal(toStdout.stdout, written, 'without -o the page goes to stdout');

});

t.test('--html to a folder that does not exist fails before the run, not after it', async (t) => {
  const server = await testServer(t);
  const dir = await mkdtemp(join(tmpdir(), 'salvo-cli-'));
  const html = join(dir, 'no-such-folder', 'run.html');
  const run = await runSalvo([server.url, '-a', '100', '-c', '2', '--html', html]);
  t.equal(run.code, 2);
  t.equal(run.stdout, '');
  t.match(run.stderr, `--html: cannot write ${html}`);
  t.equal(server.stats.requests, 0, 'no load sent for a run whose report could not be kept');
});

t.test('the built bin runs as package.json names it', async (t) => {
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string; bin: { salvo: string } };
  const bin = join(root, manifest.bin.salvo);
  t.match(await readFile(bin, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  const { code, stdout } = await runProgram(bin, ['--version']);
  t.equal(code, 0);
  t.equal(stdout, `${manifest.version}\n`);
});
