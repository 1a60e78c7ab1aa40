// `salvo compare`, in process: stored runs from files and live URLs, the table, exit statuses.
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../../src/cli/commands.js';
import { renderComparisonReport } from '../../src/report/index.js';
import { Capture } from '../fixtures/cli.js';
import { testServer } from '../fixtures/test-server.js';

async function salvo(args: string[]) {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(args, { stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Results that carry what the comparison reads: p50 per run, 100 completed, no errors. */
const runs = (p50s: number[]) => p50s.map((p50) => ({ latency: { p50, p90: p50, p99: p50 }, requests: { perSecond: 1000 / p50, completed: 100 }, errors: { total: 0 } }));

t.test('two files of runs: the table, and --fail exits 3 on a significant regression only', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'salvo-compare-'));
  const base = join(dir, 'base.json');
  const slower = join(dir, 'slower.json');
  const same = join(dir, 'same.json');
  await writeFile(base, JSON.stringify(runs([10.1, 10.3, 10.2, 10.25, 10.15, 10.2])));
  await writeFile(slower, JSON.stringify(runs([11.1, 11.3, 11.2, 11.25, 11.15, 11.2])));
  await writeFile(same, JSON.stringify(runs([10.2, 10.15, 10.25, 10.1, 10.3, 10.2])));

  const table = await salvo(['compare', base, slower, '--metric', 'latency.p50']);
  t.equal(table.code, 0);
  t.match(table.stdout, /^latency\.p50 +10\.2 +11\.2 +9\.80 % slower +\*\*\* /m);

  const regressed = await salvo(['compare', base, slower, '--fail', 'latency.p50=5%']);
  t.equal(regressed.code, 3, 'a 9.8% slowdown at *** fails a 5% margin');
  t.match(regressed.stderr, /latency\.p50: 9\.80% slower \(10\.2 -> 11\.2 ms\)/);
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

  // The report says what --fail decided; the saved JSON renders as the same comparison.
  const html = join(dir, 'compare.html');
  const reported = await salvo(['compare', base, slower, '--fail', 'latency.p50=5%', '--html', html]);
  t.equal(reported.code, 3);
  t.match(reported.stderr, `salvo: report written to ${html}`);
  const page = await readFile(html, 'utf8');
  t.match(page, '<span class="badge failed">regression</span>');
  t.match(page, /<th scope="row"><code>latency\.p50<\/code><\/th><td>10\.2<\/td><td>11\.2<\/td><td>-9\.8%<\/td>/, "the p50 row: means and improvement");
  t.match(page, 'id="no-spectra"', 'runs without histograms: no spectra, said so');
  const fromJson = await salvo(['report', again]);
  t.equal(fromJson.code, 0);
  t.match(fromJson.stdout, '<table id="comparison-rows"');
});

t.test('bad input exits 2 and names it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'salvo-compare-'));
  const one = join(dir, 'one.json');
  await writeFile(one, JSON.stringify(runs([10])));
  const cases: Array<[string[], RegExp]> = [
    [['compare', one], /takes a baseline and a candidate; got 1/],
    [['compare', one, one, '--fail', 'latency.p50=5%'], /--fail needs at least 2 runs a side to judge a change .*got 1 baseline and 1 candidate/],
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

t.test('--fail, --confidence and --metric are checked before any run: exit 2, the flag named, nothing sent', async (t) => {
  const a = await testServer(t);
  const b = await testServer(t);
  const live = ['compare', a.url, b.url, '-n', '2', '-a', '20', '-c', '1'];
  const cases: Array<[string[], string]> = [
    [['--fail', 'latency.p99=abc'], `--fail "latency.p99=abc": the margin must be a percentage such as '5%' or a fraction such as 0.05; got "abc"`],
    [['--fail', 'latncy.p99=5%'], '--fail "latncy.p99=5%": "latncy.p99" names no metric; known: latency.<stat>'],
    [['--fail', 'latency.max=5%'], '--fail "latency.max=5%": latency.max is not compared (compared: requests.perSecond, latency.p50, latency.p90, latency.p99, errors.rate); add --metric latency.max'],
    [['--fail', 'latency.p99=5%', '--metric', 'latency.p50'], '--fail "latency.p99=5%": latency.p99 is not compared (compared: latency.p50)'],
    [['--fail', 'latency.p99=5%', '--fail', 'latency.p99=9%'], '--fail names latency.p99 twice'],
    [['--fail', 'latency.p99=5%', '--confidence', '****'], `--confidence must be '*', '**' or '***' (p < 0.05, 0.01, 0.001); got "****"`],
    [['--confidence', '*'], '--confidence sets how sure a --fail must be; give --fail too'],
    [['--metric', 'nope'], '--metric "nope" names no metric; known:'],
    [['-n', 'abc'], '-n/--runs must be an integer of at least 2; got "abc"'],
    [['--pause', '1x'], `--pause must be seconds (a bare number) or a string like '500ms', '10s', '1m'; got "1x"`],
    [['--alternate', 'AABB'], `--alternate must be 'ABAB' or 'ABBA'; got "AABB"`],
  ];
  for (const [flags, message] of cases) {
    const { code, stdout, stderr } = await salvo([...live, ...flags]);
    t.equal(code, 2, `${flags.join(' ')}: exit 2`);
    t.equal(stdout, '', `${flags.join(' ')}: no table`);
    t.ok(stderr.startsWith(`salvo: ${message}`), `${flags.join(' ')}: ${stderr.split('\n')[0]}`);
    t.notMatch(stderr, /margins|NaN|run 1\//, 'no library option name, no NaN, no run');
  }
  t.equal(a.stats.requests + b.stats.requests, 0, 'nothing was sent to either server');

  // Stored runs: the same checks, before the table is printed.
  const dir = await mkdtemp(join(tmpdir(), 'salvo-compare-'));
  const base = join(dir, 'base.json');
  await writeFile(base, JSON.stringify(runs([10.1, 10.3, 10.2])));
  for (const fail of ['latency.p50=abc', 'latncy.p50=5%']) {
    const stored = await salvo(['compare', base, base, '--fail', fail]);
    t.equal(stored.code, 2, `files, --fail ${fail}: exit 2`);
    t.equal(stored.stdout, '', `files, --fail ${fail}: no table printed`);
    t.match(stored.stderr, /^salvo: --fail "/);
  }
  // A fraction is a margin too.
  t.equal((await salvo(['compare', base, base, '--fail', 'latency.p50=0.05'])).code, 0);
});

t.test('--pause takes seconds as a bare number, as every duration flag does', async (t) => {
  const a = await testServer(t);
  const started = performance.now();
  const { code, stderr } = await salvo(['compare', a.url, a.url, '-n', '2', '-a', '10', '-c', '1', '--pause', '0.1', '--metric', 'latency.p50']);
  t.equal(code, 0, stderr);
  t.equal(a.stats.requests, 40);
  t.ok(performance.now() - started >= 300, 'three pauses of 100 ms between four runs');
});

t.test('the regression message shows means without float noise', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'salvo-compare-'));
  const base = join(dir, 'base.json');
  const slower = join(dir, 'slower.json');
  // Means 0.18333333333333335 and 0.7999999999999999 as floats.
  await writeFile(base, JSON.stringify(runs([0.1, 0.2, 0.3, 0.2, 0.1, 0.2])));
  await writeFile(slower, JSON.stringify(runs([0.7, 0.8, 0.9, 0.7, 0.8, 0.9])));
  const { code, stderr } = await salvo(['compare', base, slower, '--fail', 'latency.p50=5%']);
  t.equal(code, 3);
  t.match(stderr, /latency\.p50: 336\.36% slower \(0\.1833 -> 0\.8 ms\), p = /);
});

t.test('saved single results and directories of them compare; too few runs to tell is said', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'salvo-compare-'));
  const [base, cand] = [join(dir, 'base'), join(dir, 'cand')];
  await Promise.all([base, cand].map((side) => mkdir(side)));
  // Two single results (salvo --json) a side: throughput down 60%, with too much spread for two runs.
  const [b1, b2] = runs([10, 20]);
  const [c1, c2] = runs([14, 60]);
  await Promise.all([[base, b1], [base, b2], [cand, c1], [cand, c2]].map(([side, run], i) => writeFile(join(side as string, `run-${i}.json`), JSON.stringify(run))));
  const { code, stdout } = await salvo(['compare', base, cand, '--metric', 'requests.perSecond']);
  t.equal(code, 0);
  t.match(stdout, /^requests\.perSecond +75 +44\.048 +41\.27 % worse/m);
  t.match(stdout, /requests\.perSecond moved 41\.27 % worse, but with 2 baseline and 2 candidate runs only a change beyond ±[0-9.,]+ % is significant at \*: more runs \(-n\) narrow that\./);
  const report = renderComparisonReport({ baseline: [b1, b2] as never, candidate: [c1, c2] as never }, { confidence: '**' });
  t.match(report, /<span class="badge neutral">too few runs to tell<\/span>/);
});

t.test('one saved run a side (salvo --json twice): each change in words, no significance claimed, exit 0', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'salvo-compare-'));
  const [a, b] = [join(dir, 'a.json'), join(dir, 'b.json')];
  const [before] = runs([21.8]);
  const [after] = runs([27.55]);
  await writeFile(a, JSON.stringify(before));
  await writeFile(b, JSON.stringify(after));
  const { code, stdout, stderr } = await salvo(['compare', a, b]);
  t.equal(code, 0, stderr);
  t.match(stdout, /^latency\.p50 +21\.8 +27\.55 +26\.38 % slower +n\/a /m, 'the p50 got slower, said in words');
  t.match(stdout, /^requests\.perSecond +45\.872 +36\.298 +20\.87 % worse +n\/a /m);
  t.match(stdout, /^errors\.rate +0 +0 +unchanged +n\/a /m);
  t.match(stdout, /1 baseline and 1 candidate run: one run a side cannot be tested for significance/);
  const back = await salvo(['compare', b, a]);
  t.match(back.stdout, /^latency\.p50 +27\.55 +21\.8 +20\.87 % faster/m);
  const json = JSON.parse((await salvo(['compare', a, b, '--json'])).stdout) as { comparison: { runs: unknown; rows: Array<{ metric: string; samples: unknown; intervals: unknown }> } };
  t.same(json.comparison.runs, { baseline: 1, candidate: 1 });
  t.same(json.comparison.rows[1]!.samples, { baseline: 1, candidate: 1 });
  t.equal(json.comparison.rows[1]!.intervals, null);
});
