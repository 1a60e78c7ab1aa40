// The CI gate's edges: no baseline is never silent (a missing folder, an unknown test id, too short a
// history; --require-baseline), a history of something else is refused, the summary's and JUnit's
// paths fail clearly, and the step summary and CI labels are written wherever they apply.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runCli } from '../../src/cli/commands.js';
import type { LoadResult } from '../../src/index.js';
import { addToHistory, compareWithHistory, formatJUnit, formatSummary, readHistory, writeSummary } from '../../src/gate/index.js';
import { Capture } from '../fixtures/cli.js';
import { testServer } from '../fixtures/test-server.js';

async function salvo(args: string[]) {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(args, { stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Sets environment variables for the test's length. */
function environment(t: Test, variables: Record<string, string | undefined>): void {
  const before = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  set(variables);
  t.teardown(() => set(before));
}

/** A result as `salvo --json` writes it, as far as the gate reads it: `path` measured with a p50 of `p50` ms. */
function result(p50: number, path = '/work', shape: { connections?: number; durationMs?: number; port?: number } = {}): LoadResult {
  const url = `http://127.0.0.1:${shape.port ?? 3000}${path}`;
  const connections = shape.connections ?? 10;
  return {
    url, transport: 'net', connections, workers: 1,
    requests: { sent: 100, completed: 100, perSecond: 1000 / p50 }, latency: { p50, p90: p50 * 1.1, p99: p50 * 1.3 }, errors: { total: 0, byCode: {} },
    timeline: [], histogram: '', histogramUncorrected: '', warnings: [], ok: true, durationMs: shape.durationMs ?? 1000,
    merge: { plan: { transport: 'net', connections, durationMs: shape.durationMs ?? 1000, pipelining: 1, keepAlive: true, warmupMs: 0, requests: [`GET ${path}`] }, timeline: [] },
  } as unknown as LoadResult;
}

async function saved(dir: string, name: string, runs: LoadResult[]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  return Promise.all(runs.map(async (run, index) => {
    const path = join(dir, `${name}-${index}.json`);
    await writeFile(path, JSON.stringify(run));
    return path;
  }));
}

const NO_CI = { GITHUB_STEP_SUMMARY: undefined, GITHUB_SHA: undefined, GITHUB_REF_NAME: undefined, GITHUB_HEAD_REF: undefined };

t.test('a missing history folder: passes with a warning that says so (stderr, summary, JUnit); --require-baseline exits 7', async (t) => {
  environment(t, NO_CI);
  const dir = t.testdir();
  const runs = await saved(dir, 'run', [result(10), result(10.2)]);
  const junit = join(dir, 'junit.xml');
  const summary = join(dir, 'summary.md');
  const gate = await salvo(['history', 'compare', '--dir', join(dir, 'nope'), '--id', 'api', '--junit', junit, '--summary', summary, ...runs]);
  t.equal(gate.code, 0, 'a first build passes');
  t.match(gate.stderr, /salvo history: warning: no baseline: the history folder .*nope does not exist, so this build was compared with nothing\. .*CI cache/);
  t.match(await readFile(summary, 'utf8'), /^### salvo: api ⚠️ passed without a baseline\n\n> ⚠️ warning: HISTORY_MISSING: no baseline: the history folder .*nope does not exist/);
  t.match(await readFile(junit, 'utf8'), /<testcase name="history" classname="salvo\.api\.regression" time="0">\n\s+<skipped message="warning: HISTORY_MISSING: no baseline: the history folder /);

  const required = await salvo(['history', 'compare', '--dir', join(dir, 'nope'), '--id', 'api', '--require-baseline', '--junit', junit, '--summary', summary, ...runs]);
  t.equal(required.code, 7, 'no baseline, and one is required');
  t.match(required.stderr, /salvo history: error: no baseline: the history folder/);
  t.match(await readFile(junit, 'utf8'), /<failure message="HISTORY_MISSING: no baseline: .*; a baseline is required" type="baseline">/);
  t.match(await readFile(summary, 'utf8'), /^### salvo: api ❌ no baseline: history\n/);
  const first = await salvo(['history', 'compare', '--dir', join(dir, 'main'), '--id', 'api', '--require-baseline', '--add', ...runs]);
  t.equal(first.code, 7);
  t.match(first.stderr, /added \S+\n/, 'the first build is stored...');
  t.notMatch(first.stderr, /not to the baseline/, '...to the baseline: it did not regress, and a required baseline has to start somewhere');
  t.equal((await readHistory(join(dir, 'main'), 'api'))[0]!.baseline, true);
});

t.test('an unknown test id lists the known ones; too short a history is a third case', async (t) => {
  environment(t, NO_CI);
  const dir = t.testdir();
  const history = join(dir, 'history');
  await addToHistory(history, 'api', [result(10), result(10.1)]);
  await addToHistory(history, 'web', [result(10)]);
  const runs = await saved(dir, 'run', [result(10), result(10.2)]);
  const typo = await salvo(['history', 'compare', '--dir', history, '--id', 'apj', '--json', ...runs]);
  t.equal(typo.code, 0);
  t.match(typo.stderr, /warning: no baseline: the history in .*history has no test "apj" \(it holds "api", "web"\), so this build was compared with nothing\. A typo in the test id\?/);
  const json = JSON.parse(typo.stdout) as { noBaseline: { code: string; knownTestIds: string[] }; ok: boolean };
  t.same([json.noBaseline.code, json.noBaseline.knownTestIds, json.ok], ['HISTORY_UNKNOWN_TEST', ['api', 'web'], true]);
  const short = await compareWithHistory(history, 'web', [result(10), result(10.2)]);
  t.same([short.noBaseline?.code, short.ok], ['HISTORY_TOO_SHORT', true]);
  t.match(short.noBaseline!.message, /the history holds 1 baseline run of web; a comparison needs at least 2/);
  const required = await compareWithHistory(history, 'web', [result(10), result(10.2)], { requireBaseline: true });
  t.equal(required.ok, false);
  t.match(formatJUnit({ testId: 'web', comparison: required }), /type="baseline"/);
  const found = await compareWithHistory(history, 'api', [result(10), result(10.2)], { requireBaseline: true });
  t.same([found.noBaseline, found.ok, found.metrics.length], [undefined, true, 4], 'a history with a baseline compares as before');
});

t.test('a history of another target or shape is refused, saying what differs; another port is the same test', async (t) => {
  environment(t, NO_CI);
  const dir = t.testdir();
  const history = join(dir, 'history');
  for (let build = 0; build < 3; build++) await addToHistory(history, 'api', [result(10), result(10.3)]);
  const [entry] = await readHistory(history, 'api');
  t.same(entry!.measured, { url: 'http://127.0.0.1:3000/work', target: '/work', requests: ['GET /work'], transport: 'net', connections: 10, durationMs: 1000 }, 'the entry records what was measured');

  const other = await saved(dir, 'api', [result(3), result(3.1)].map((run) => ({ ...run, url: run.url.replace('/work', '/api'), merge: { ...run.merge, plan: { ...run.merge.plan, requests: ['GET /api'] } } })));
  const refused = await salvo(['history', 'compare', '--dir', history, '--id', 'api', ...other]);
  t.equal(refused.code, 2, 'not "passed, +266% req/s"');
  t.match(refused.stderr, /test api's baseline measured something else than these runs \(target \/work -> \/api; requests GET \/work -> GET \/api; entry \S+\): comparing them would say nothing about this build\. Give this load test an id of its own/);
  await t.rejects(compareWithHistory(history, 'api', [result(10, '/work', { connections: 50 }), result(10, '/work', { connections: 50 })]), { name: 'SalvoOptionError', option: 'testId', message: /connections 10 -> 50/ });
  await t.rejects(compareWithHistory(history, 'api', [result(10, '/work', { durationMs: 5000 }), result(10, '/work', { durationMs: 5000 })]), { message: /duration \(ms\) 1000 -> 5000/ });
  await t.rejects(compareWithHistory(history, 'api', [result(10), result(10, '/api')]), { message: /run 2 differs from run 1 \(target \/work -> \/api/ });
  const moved = await compareWithHistory(history, 'api', [result(10, '/work', { port: 4567 }), result(10.2, '/work', { port: 4567 })]);
  t.equal(moved.ok, true, 'the service on another port: the same test');
});

t.test('summary and JUnit paths: clear errors; $GITHUB_STEP_SUMMARY into a missing folder is a warning, not a stack', async (t) => {
  environment(t, NO_CI);
  const dir = t.testdir();
  const runs = await saved(dir, 'run', [result(10), result(10.2)]);
  environment(t, { GITHUB_STEP_SUMMARY: join(dir, 'missing', 'step.md') });
  const gate = await salvo(['history', 'compare', '--dir', join(dir, 'history'), '--id', 'api', '--add', ...runs]);
  t.equal(gate.code, 0, 'the gate\'s verdict decides, not the summary');
  t.match(gate.stderr, /salvo: warning: \$GITHUB_STEP_SUMMARY: cannot write .*missing\/step\.md: .*ENOENT.*; the step summary is not written/);
  t.notMatch(gate.stderr, /\n\s+at /, 'no stack');
  t.match(gate.stdout, /^### salvo: api ⚠️ passed without a baseline/, 'the summary is still on stdout');
  for (const flag of ['--junit', '--summary']) {
    const bad = await salvo(['history', 'compare', '--dir', join(dir, 'history'), '--id', 'api', flag, join(dir, 'missing', 'out'), ...runs]);
    t.equal(bad.code, 2, flag);
    t.match(bad.stderr, new RegExp(`salvo: ${flag}: cannot write .*missing/out: `));
  }
  await t.rejects(writeSummary('x', undefined, { GITHUB_STEP_SUMMARY: join(dir, 'missing', 'step.md') }), { name: 'SalvoOptionError', option: 'GITHUB_STEP_SUMMARY', message: /^cannot write the summary to .*missing\/step\.md \(\$GITHUB_STEP_SUMMARY\): ENOENT/ });
  await t.rejects(writeSummary('x', join(dir, 'missing', 's.md'), {}), { option: 'file', message: /\(the file given\): ENOENT/ });
  t.match(formatSummary({ testId: 'api' }), /^### salvo: api ✅ passed/);
});

t.test('salvo URL writes the step summary whenever $GITHUB_STEP_SUMMARY is set; addToHistory labels the entry from the CI variables', async (t) => {
  const server = await testServer(t, { delayMs: 1 });
  const dir = t.testdir();
  const step = join(dir, 'step.md');
  await writeFile(step, '# earlier step\n');
  environment(t, { ...NO_CI, GITHUB_STEP_SUMMARY: step, GITHUB_SHA: 'cafe1234', GITHUB_REF_NAME: 'main' });
  const { code } = await salvo([server.url, '-a', '20', '-c', '2', '-q', '--threshold', 'requests.completed==20']);
  t.equal(code, 0);
  t.match(await readFile(step, 'utf8'), /^# earlier step\n### salvo: http:\/\/127\.0\.0\.1:\d+\/ ✅ passed\n\n\| check \| verdict \| numbers \|\n\|---\|---\|---\|\n\| `requests\.completed ==20` \| ✅ passed \| requests\.completed ==20: actual 20 \|/, 'appended, without --summary');

  const entry = await addToHistory(join(dir, 'history'), 'api', [result(10)]);
  t.match(entry, { commit: 'cafe1234', branch: 'main' }, 'the API reads the CI variables as the CLI does');
  t.match(entry.id, /-cafe1234-/);
  const given = await addToHistory(join(dir, 'history'), 'api', [result(10)], { commit: 'beef', env: {} });
  t.same([given.commit, given.branch], ['beef', undefined], 'what is given wins; env: {} reads none');
});
