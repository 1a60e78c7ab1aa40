// `salvo history`, in process: add, list, compare with JUnit and the step summary, accept; exit statuses.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { runCli } from '../../src/cli/commands.js';
import { runLoad, type LoadResult } from '../../src/index.js';
import { Capture } from '../fixtures/cli.js';
import { testServer } from '../fixtures/test-server.js';

async function salvo(args: string[]) {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(args, { stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Sets CI variables for the test's length, as a GitHub Actions job has them. */
function ciEnvironment(t: Test, variables: Record<string, string>): void {
  const before = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  t.teardown(() => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
}

async function saveRuns(dir: string, name: string, url: string, runs: number, thresholds?: LoadResult['merge']['thresholds']): Promise<string[]> {
  const paths: string[] = [];
  for (let run = 0; run < runs; run++) {
    const path = join(dir, `${name}-${run}.json`);
    await writeFile(path, JSON.stringify(await runLoad({ url, connections: 5, duration: '300ms', warmup: '100ms', ...(thresholds ? { thresholds } : {}) })));
    paths.push(path);
  }
  return paths;
}

t.test('add, list, compare (exit 3, JUnit, summary on $GITHUB_STEP_SUMMARY, --add), accept, compare again (exit 0)', async (t) => {
  const fast = await testServer(t, { delayMs: 5 });
  const slow = await testServer(t, { delayMs: 50 }); // ten times slower: a busy host moves a 5 ms median by a few ms
  const dir = t.testdir();
  const history = join(dir, 'history');
  const stepSummary = join(dir, 'step-summary.md');
  await writeFile(stepSummary, '# earlier step\n');
  ciEnvironment(t, { GITHUB_SHA: 'aaaa1111', GITHUB_REF_NAME: 'main', GITHUB_HEAD_REF: '', GITHUB_STEP_SUMMARY: stepSummary });
  for (let build = 0; build < 3; build++) {
    const added = await salvo(['history', 'add', '--dir', history, '--id', 'api', ...(await saveRuns(dir, `base${build}`, fast.url, 2))]);
    t.equal(added.code, 0, added.stderr);
    t.match(added.stdout, /^\d{8}T\d{6}\.\d{3}Z-aaaa1111-[0-9a-f]{8}\n$/);
  }
  const listed = await salvo(['history', 'list', '--dir', history]);
  t.match(listed.stdout, /^api: 3 entries\n(  \S+  main  2 runs  p50 \d+\.\d{3} ms  baseline\n){3}$/);

  process.env.GITHUB_SHA = 'bbbb2222';
  const slower = await saveRuns(dir, 'slow', slow.url, 3);
  const junit = join(dir, 'junit.xml');
  const gate = await salvo(['history', 'compare', '--dir', history, '--id', 'api', '--fail', 'latency.p50=5%', '--junit', junit, '--add', '--report', 'run 1=slow-0.html', ...slower]);
  t.equal(gate.code, 3, 'exit 3: a metric regressed');
  t.match(gate.stdout, /^\| `latency\.p50 against the history` \| ❌ failed \| latency\.p50: \d+\.\d\d% slower \([\d.]+ -> [\d.]+ ms\)/m);
  t.match(gate.stderr, /added \S+-bbbb2222-\S+ \(not to the baseline: it failed/);
  const summary = await readFile(stepSummary, 'utf8');
  t.ok(summary.startsWith('# earlier step\n### salvo: api ❌ regressed: latency.p50\n'), 'appended to the step summary');
  t.match(summary, /Reports: \[run 1\]\(slow-0\.html\)/);
  const { stderr } = await promisify(execFile)('xmllint', ['--noout', '--schema', join(import.meta.dirname, '..', 'fixtures', 'junit.xsd'), junit]);
  t.match(stderr, /validates/);
  t.match(await readFile(junit, 'utf8'), /<failure message="latency\.p50: \d+\.\d\d% slower \([\d.]+ -&gt; [\d.]+ ms\), p = [^"]+; 3 runs against 6 runs of 3 builds" type="regression">/);

  const accepted = await salvo(['history', 'accept', '--dir', history, '--id', 'api', 'bbbb2222']);
  t.equal(accepted.code, 0, accepted.stderr);
  t.match(accepted.stdout, /^accepted \S+-bbbb2222-\S+: the baseline starts there\n$/);
  const again = await salvo(['history', 'compare', '--dir', history, '--id', 'api', '--fail', 'latency.p50=5%', '--json', '--summary', join(dir, 'again.md'), ...slower]);
  t.equal(again.code, 0, 'the accepted change is the baseline now');
  t.match(JSON.parse(again.stdout), { ok: true, runs: { baseline: 3, candidate: 3 }, baseline: [{ commit: 'bbbb2222', branch: 'main', runs: 3 }] });
  t.match(await readFile(join(dir, 'again.md'), 'utf8'), /^### salvo: api ✅ passed/);
  const trend = await salvo(['history', 'trend', '--dir', history, '--id', 'api', '--fail', 'latency.p50=5%', '--html', join(dir, 'trend.html')]);
  t.equal(trend.code, 0, trend.stderr);
  const page = await readFile(join(dir, 'trend.html'), 'utf8');
  t.match(page, /<span class="worse">regressed: latency\.p50<\/span>/, 'the slow build is flagged');
  t.match(page, 'id="chart-trend-latency-p50"');
});

t.test('a threshold failed in a run: exit 1, its JUnit case failed with the numbers', async (t) => {
  const server = await testServer(t, { delayMs: 5 });
  const dir = t.testdir();
  const runs = await saveRuns(dir, 'run', server.url, 2, { 'latency.p50': ['< 1'] });
  const junit = join(dir, 'junit.xml');
  const gate = await salvo(['history', 'compare', '--dir', join(dir, 'history'), '--id', 'api', '--junit', junit, '--summary', join(dir, 's.md'), ...runs]);
  t.equal(gate.code, 1);
  const xml = await readFile(junit, 'utf8');
  t.match(xml, /<testcase name="latency\.p50 &lt; 1 \[run 1\]" classname="salvo\.api\.thresholds" time="0">\n\s+<failure message="latency\.p50 &lt; 1 \[run 1\]|<failure message="latency\.p50 &lt; 1: actual [\d.]+ ms" type="threshold">/);
  t.match(xml, /<testcase name="history" classname="salvo\.api\.regression" time="0">\n\s+<skipped message="warning: HISTORY_MISSING: no baseline: the history folder .*history does not exist/);
});

t.test('bad flags: exit 2, the flag named', async (t) => {
  const dir = t.testdir();
  const cases: Array<[string[], RegExp]> = [
    [['history', 'add', 'x.json'], /salvo history add needs --id TEST/],
    [['history', 'compare', '--id', 'api', '--fail', 'latency.p50=soon', 'a.json'], /--fail "latency\.p50=soon": the margin must be a percentage/],
    [['history', 'compare', '--id', 'api', '--fail', 'latency.p5=5%', 'a.json'], /--fail "latency\.p5=5%": "latency\.p5" names no metric/],
    [['history', 'compare', '--id', 'api', '--confidence', '****', 'a.json'], /--confidence must be/],
    [['history', 'remove', '--id', 'api'], /the actions are add, compare, accept, list and trend/],
    [['history', 'add', '--id', 'api', '--dir', dir, join(dir, 'missing.json')], /cannot read .*missing\.json/],
    [['history', 'add', '--id', '../up', '--dir', dir, join(dir, 'missing.json')], /cannot read|testId must be/],
  ];
  for (const [args, message] of cases) {
    const { code, stderr } = await salvo(args);
    t.equal(code, 2, args.join(' '));
    t.match(stderr, message);
  }
});

t.test('salvo URL --junit --summary: the thresholds as JUnit test cases and a Markdown table, exit 1 on a failed one', async (t) => {
  const server = await testServer(t, { delayMs: 5 });
  const dir = t.testdir();
  const junit = join(dir, 'junit.xml');
  const summary = join(dir, 'summary.md');
  const { code } = await salvo([server.url, '-a', '50', '-c', '2', '-q', '--threshold', 'latency.p50<1', '--threshold', 'requests.completed==50', '--junit', junit, '--summary', summary, '--html', join(dir, 'report.html')]);
  t.equal(code, 1);
  t.equal(server.stats.requests, 50);
  const xml = await readFile(junit, 'utf8');
  const { stderr } = await promisify(execFile)('xmllint', ['--noout', '--schema', join(import.meta.dirname, '..', 'fixtures', 'junit.xsd'), junit]);
  t.match(stderr, /validates/);
  t.match(xml, /<testsuite name="http:\/\/127\.0\.0\.1:\d+\/ thresholds" tests="2" failures="1" errors="0" skipped="0"/);
  t.match(xml, /<failure message="latency\.p50 &lt;1: actual \d+\.\d+ ms" type="threshold">/);
  t.match(xml, /<testcase name="requests\.completed ==50" [^>]+>\n\s+<system-out>requests\.completed ==50: actual 50<\/system-out>/);
  const markdown = await readFile(summary, 'utf8');
  t.match(markdown, /^### salvo: http:\/\/127\.0\.0\.1:\d+\/ ❌ threshold failed: latency\.p50 <1\n/);
  t.match(markdown, /Reports: \[report\]\(.*report\.html\)/);
});
