// `salvo merge` and `salvo capacity`, in process, against the test server.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../../src/cli/commands.js';
import { runLoad } from '../../src/start-load.js';
import type { LoadResult } from '../../src/shared/load-result.js';
import { Capture } from '../fixtures/cli.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun } from '../fixtures/timing.js';

async function salvo(args: string[]) {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(args, { stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

t.test('salvo merge: segment results from files add up exactly; a failed threshold exits 1', async (t) => {
  const server = await testServer(t);
  const dir = await mkdtemp(join(tmpdir(), 'salvo-merge-'));
  const files: string[] = [];
  for (let index = 0; index < 3; index++) {
    const result = await runLoad({ url: server.url, connections: 3, amount: 300, segment: { index, count: 3 }, thresholds: { 'requests.completed': '== 300' } });
    files.push(join(dir, `segment-${index}.json`));
    await writeFile(files[index]!, JSON.stringify(result));
  }
  const { code, stdout } = await salvo(['merge', ...files, '--json']);
  t.equal(code, 0);
  const merged = JSON.parse(stdout) as LoadResult;
  t.equal(merged.requests.completed, 300, 'exactly the amount over the three segments');
  t.equal(server.stats.requests, 300, 'and exactly what the server saw');
  t.equal(merged.thresholds?.[0]?.actual, 300, 'the threshold judged on the merged count');

  const partial = await salvo(['merge', files[0]!, files[1]!]);
  t.equal(partial.code, 2, 'a missing segment is reported, not summed');
  t.match(partial.stderr, /segment/);
  t.match(partial.stderr, /Pass --force to merge them anyway/, 'the library\'s force option named as the flag');
  const forced = await salvo(['merge', files[0]!, files[1]!, '--force']);
  t.equal(forced.code, 1, 'forced: merged, and the threshold on 300 fails on 200');
  t.match(forced.stdout, /MERGE_MISMATCH/);
  t.equal((await salvo(['merge'])).code, 2);
});

t.test('salvo capacity: finds a server of known capacity, a line per step on stderr', async (t) => {
  const server = await testServer(t, { capacity: 400, delayMs: 1 });
  // Which capacity the search lands on is a timing claim: a stall of the host during a step makes
  // the generator the limit (and the search says so), so a run that a stall broke is repeated. The
  // SLO is on the median, which a queue past capacity raises and a stall rarely does (as in
  // capacity.test.ts).
  await inSomeRun(t, 3, async (timing) => {
    const { code, stdout, stderr } = await salvo([
      'capacity', server.url, '--slo', 'latency.p50<10', '--start', '100', '--max', '1600', '--precision', '0.1',
      '--step-duration', '1', '--pause', '0.2', '--warmup', '0.3s', '--confirm-duration', '0', '-c', '50', '--json',
    ]);
    const result = JSON.parse(stdout) as { capacity?: number; limitedBy: string; steps: unknown[] };
    t.equal(stderr.trim().split('\n').length, result.steps.length, 'one progress line per step');
    t.equal(code, result.capacity === undefined ? 1 : 0, 'exit 0 with a capacity, 1 without');
    timing.ok(result.capacity !== undefined && result.capacity > 400 * 0.8 && result.capacity <= 400 * 1.05, `capacity ${result.capacity} of a 400/s server (${result.limitedBy})`);
  });
  const bad = await salvo(['capacity', server.url]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--slo is required/);
  const rate = await salvo(['capacity', server.url, '--slo', 'latency.p99<50', '-R', '100']);
  t.equal(rate.code, 2, 'a fixed rate is not a search flag');
  t.match(rate.stderr, /Unknown option '-R'/);
});

t.test('salvo capacity --html writes the search report; salvo report renders the saved search the same', async (t) => {
  const server = await testServer(t, { delayMs: 1 });
  const dir = await mkdtemp(join(tmpdir(), 'salvo-capacity-html-'));
  const html = join(dir, 'capacity.html');
  const { code, stdout, stderr } = await salvo([
    'capacity', server.url, '--slo', 'latency.p99<1000', '--start', '50', '--max', '100',
    '--step-duration', '0.5', '--pause', '0', '--warmup', '0', '--confirm-duration', '0', '-c', '10', '--json', '--html', html,
  ]);
  const result = JSON.parse(stdout) as { steps: Array<{ rate: number }> };
  t.match(stderr, `salvo: report written to ${html}`);
  t.ok(code === 0 || code === 1, `exit ${code}`);
  const page = await readFile(html, 'utf8');
  const rows = (page.match(/<table id="capacity-steps"[^]*?<\/table>/)?.[0].match(/<tr>/g) ?? []).length;
  t.equal(rows, result.steps.length + 1, 'a header row and one row per step');
  t.match(page, /SLO latency\.p99 &#60; ?1000/, 'the SLO in the header');
  const saved = join(dir, 'capacity.json');
  await writeFile(saved, stdout);
  const again = await salvo(['report', saved]);
  t.equal(again.code, 0);
  t.equal(again.stdout, page, 'the same page from the saved JSON');
  const missing = await salvo(['capacity', server.url, '--slo', 'latency.p99<50', '--html', join(dir, 'no', 'such', 'dir.html')]);
  t.equal(missing.code, 2, 'an unwritable --html fails before the search');
  t.match(missing.stderr, /--html: cannot write/);
});
