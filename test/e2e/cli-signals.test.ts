// The `salvo` command as a child process: Ctrl-C (SIGINT) in a run and in a comparison, what reaches
// the server from repeated -H, and --segment/--start-at results that salvo merge puts together.
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { LoadResult } from '../../src/index.js';
import type { TestRequest } from '../../src/testing/index.js';
import { root, runSalvo, type CliRun } from '../fixtures/cli.js';
import { testServer } from '../fixtures/test-server.js';

/** Runs salvo from source and sends it SIGINT once its stderr matches `when`. */
function interruptedSalvo(args: string[], when: RegExp): Promise<CliRun & { interruptedAfter: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import=tsx', 'src/cli/bin.ts', ...args], { cwd: root, timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let interruptedAfter = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (interruptedAfter === '' && when.test(stderr)) {
        interruptedAfter = stderr;
        child.kill('SIGINT');
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, interruptedAfter }));
  });
}

t.test('Ctrl-C in a run: the partial result is printed, exit 130, no progress after "stopping"', async (t) => {
  const server = await testServer(t);
  const run = await interruptedSalvo([server.url, '-d', '20s', '-c', '2', '-R', '200'], /^1s\/20s /m);
  t.equal(run.code, 130, 'exit 130, not 0: a script can tell it from a complete run');
  t.match(run.stdout, /^Requests +[\d,]+ sent, [\d,]+ completed/m, 'what was measured is on stdout');
  t.match(run.stdout, /aborted/);
  const after = run.stderr.slice(run.stderr.indexOf('salvo: stopping'));
  t.match(after, /^salvo: stopping \(Ctrl-C again to quit at once\)\n/);
  t.notMatch(after, /req\/s/, `no progress line after stopping: ${JSON.stringify(after)}`);
  t.match(after, /salvo: interrupted/);
});

t.test('Ctrl-C in compare: the finished runs are compared when each side has 2, exit 130', async (t) => {
  const a = await testServer(t);
  const b = await testServer(t);
  const args = ['compare', a.url, b.url, '-n', '3', '-d', '0.5', '-c', '1', '-R', '100'];
  // ABBA with 3 pairs: A B B A A B. After run 4, each side has 2 finished runs.
  const late = await interruptedSalvo(args, /run 4\/6/);
  t.equal(late.code, 130);
  t.match(late.stdout, /^latency\.p99 /m, 'the table of what finished');
  t.match(late.stdout, /2 baseline and 2 candidate runs/);
  t.match(late.stderr, /salvo compare: interrupted: 2 baseline and 2 candidate runs of 3 each finished; comparing those/);
  t.notMatch(late.stderr, /run 5\/6/, 'the run in progress was stopped, not finished');

  const early = await interruptedSalvo(args, /run 1\/6/);
  t.equal(early.code, 130);
  t.equal(early.stdout, '', 'nothing to compare');
  t.match(early.stderr, /interrupted: 1 baseline and 0 candidate runs of 3 each finished; comparing needs at least 2 of each\n/);
});

t.test('a header given twice reaches the server with both values', async (t) => {
  const seen: TestRequest[] = [];
  const server = await testServer(t, { onRequest: (request) => seen.push(request) });
  const { code } = await runSalvo([server.url, '-a', '3', '-c', '1', '-q', '-H', 'x-a: 1', '-H', 'x-a: 2', '-H', 'x-b: 3']);
  t.equal(code, 0);
  t.equal(seen.length, 3);
  for (const request of seen) {
    t.equal(request.headers['x-a'], '1, 2', 'both values, in order');
    t.equal(request.headers['x-b'], '3');
  }
});

t.test('--segment I/N --start-at T: segments that salvo merge adds up exactly', async (t) => {
  const server = await testServer(t);
  const dir = await mkdtemp(join(tmpdir(), 'salvo-segments-'));
  // Far enough ahead for three processes to start under tsx on a busy host.
  const startAt = new Date(Date.now() + 8000).toISOString();
  const runs = await Promise.all([0, 1, 2].map((index) =>
    runSalvo([server.url, '-a', '300', '-c', '3', '--segment', `${index}/3`, '--start-at', startAt, '--json', '-q', '--threshold', 'requests.completed==300']),
  ));
  const files: string[] = [];
  for (const [index, run] of runs.entries()) {
    t.equal(run.code, 1, `segment ${index}: its own 100 fail the threshold on the whole 300`);
    const result = JSON.parse(run.stdout) as LoadResult;
    t.equal(result.requests.completed, 100, `segment ${index} sent its share`);
    t.notOk(result.warnings.some((warning) => warning.code === 'LATE_START'), `segment ${index} started at --start-at: ${JSON.stringify(result.warnings)}`);
    files.push(join(dir, `segment-${index}.json`));
    await writeFile(files[index]!, run.stdout);
  }
  t.equal(server.stats.requests, 300);
  const merged = await runSalvo(['merge', ...files, '--json']);
  t.equal(merged.code, 0, 'the merged 300 pass');
  t.equal((JSON.parse(merged.stdout) as LoadResult).requests.completed, 300);
  const twice = await runSalvo(['merge', files[0]!, files[0]!, files[1]!]);
  t.equal(twice.code, 2);
  t.match(twice.stderr, /segment-0\.json is given twice/);
});
