// `salvo compare`, in process: stored runs from files and live URLs, the table, exit statuses.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../src/cli/commands.js';
import { Capture } from './fixtures/cli.js';
import { testServer } from './fixtures/test-server.js';

async function salvo(args: string[]) {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(args, { stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Results that carry what the comparison reads: p50 per run, 100 completed, no errors. */
const runs = (p50s: number[]) => p50s.map((p50) => ({ latency: { p50, p90: p50, p99: p50 }, requests: { perSecond: 1000 / p50, completed: 100 }, errors: { total: 0 } }));

t.test('two files of runs: the table, and --fail exits 1 on a significant regression only', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'salvo-compare-'));
  const base = join(dir, 'base.json');
  const slower = join(dir, 'slower.json');
  const same = join(dir, 'same.json');
  await writeFile(base, JSON.stringify(runs([10.1, 10.3, 10.2, 10.25, 10.15, 10.2])));
  await writeFile(slower, JSON.stringify(runs([11.1, 11.3, 11.2, 11.25, 11.15, 11.2])));
  await writeFile(same, JSON.stringify(runs([10.2, 10.15, 10.25, 10.1, 10.3, 10.2])));

  const table = await salvo(['compare', base, slower, '--metric', 'latency.p50']);
  t.equal(table.code, 0);
  t.match(table.stdout, /^latency\.p50 +10\.2 +11\.2 +-9\.80 % +\*\*\* /m);

  const regressed = await salvo(['compare', base, slower, '--fail', 'latency.p50=5%']);
  t.equal(regressed.code, 1, 'a 9.8% slowdown at *** fails a 5% margin');
  t.match(regressed.stderr, /latency\.p50: -9\.80%/);
  const allowed = await salvo(['compare', base, slower, '--fail', 'latency.p50=15%']);
  t.equal(allowed.code, 0, 'and passes a 15% one');
  const unchanged = await salvo(['compare', base, same, '--fail', 'latency.p50=1%', '--fail', 'requests.perSecond=1%']);
  t.equal(unchanged.code, 0, 'the same numbers in another order never fail');

  const json = await salvo(['compare', base, slower, '--json', '--metric', 'latency.p50']);
  const parsed = JSON.parse(json.stdout) as { baseline: unknown[]; comparison: { rows: Array<{ confidence: string }> } };
  t.equal(parsed.baseline.length, 6);
  t.equal(parsed.comparison.rows[0]!.confidence, '***');
  // The JSON of one compare is itself an input: each side is read from it.
  const again = join(dir, 'again.json');
  await writeFile(again, json.stdout);
  t.equal((await salvo(['compare', again, again, '--metric', 'latency.p50'])).code, 0);
});

t.test('bad input exits 2 and names it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'salvo-compare-'));
  const one = join(dir, 'one.json');
  await writeFile(one, JSON.stringify(runs([10])));
  const cases: Array<[string[], RegExp]> = [
    [['compare', one], /takes a baseline and a candidate; got 1/],
    [['compare', one, one], /baseline must be an array of at least 2 results/],
    [['compare', one, 'http://127.0.0.1:9/'], /two result files or two URLs/],
    [['compare', join(dir, 'missing.json'), one], /cannot read .*missing\.json/],
    [['compare', 'http://127.0.0.1:9/', 'http://127.0.0.1:9/', '-n', '1'], /runs must be an integer of at least 2/],
    [['compare', 'http://127.0.0.1:9/', 'http://127.0.0.1:9/', '--alternate', 'AABB'], /alternate must be 'ABAB' or 'ABBA'/],
  ];
  for (const [args, message] of cases) {
    const { code, stdout, stderr } = await salvo(args);
    t.equal(code, 2, `${args.join(' ')}: exit 2`);
    t.equal(stdout, '');
    t.match(stderr, message);
  }
});

t.test('two URLs are load-tested alternately, -n runs each, exactly as many requests as asked', async (t) => {
  const a = await testServer(t);
  const b = await testServer(t);
  const { code, stdout, stderr } = await salvo(['compare', a.url, b.url, '-n', '2', '-a', '50', '-c', '2', '--json']);
  t.equal(code, 0);
  const parsed = JSON.parse(stdout) as { baseline: unknown[]; candidate: unknown[] };
  t.equal(parsed.baseline.length, 2);
  t.equal(parsed.candidate.length, 2);
  t.equal(a.stats.requests, 100, 'baseline server: 2 runs of 50');
  t.equal(b.stats.requests, 100, 'candidate server: 2 runs of 50');
  t.same(stderr.match(/run \d\/4 \w+/g), ['run 1/4 baseline', 'run 2/4 candidate', 'run 3/4 candidate', 'run 4/4 baseline']);
});
