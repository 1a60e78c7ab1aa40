// `salvo URL --live [PORT]`: the page's address on stderr, the page fed while the run goes, and
// its end the very page --html writes.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { UsageError } from '../../src/cli/command.js';
import { parseRunFlags } from '../../src/cli/run-flags.js';
import { root } from '../fixtures/cli.js';
import { EventReader } from '../fixtures/event-reader.js';
import { testServer } from '../fixtures/test-server.js';

t.test('--live takes a port or none, and its other flags need it', async (t) => {
  const url = 'http://127.0.0.1:9/';
  t.same(parseRunFlags([url, '--live']).options.live, { port: 0 }, 'last, no port: a free one');
  t.same(parseRunFlags(['--live', url, '-c', '2']).options.live, { port: 0 }, 'before the url');
  t.same(parseRunFlags([url, '--live', '-c', '2']).options.live, { port: 0 }, 'before another flag');
  t.same(parseRunFlags([url, '--live', '5665', '--live-host', '0.0.0.0', '--live-control']).options.live, { port: 5665, host: '0.0.0.0', control: true });
  t.throws(() => parseRunFlags([url, '--live-control']), UsageError);
});

t.test('salvo URL --live prints the page, feeds it, and ends it as the --html report', async (t) => {
  const server = await testServer(t);
  const dir = await mkdtemp(join(tmpdir(), 'salvo-live-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const html = join(dir, 'report.html');
  const child = spawn(process.execPath, ['--import=tsx', 'src/cli/bin.ts', server.url, '-c', '2', '-d', '2.5s', '-q', '--live', '--html', html], { cwd: root, timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const address = new Promise<string>((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /salvo: live page at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr);
      if (match !== null) resolve(match[1]!);
    });
  });
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const page = await EventReader.open(await address);
  await page.until('final', 1);
  t.equal(await exited, 0, stderr);
  t.ok(page.of('second').length >= 2, `the page got ${page.of('second').length} seconds`);
  t.same(page.of('final'), [await readFile(html, 'utf8')], 'its end is the page --html wrote');
});
