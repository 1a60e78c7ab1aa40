// The CI job of github-workflow.yml and gitlab-ci.yml, on this machine: `node local.mjs`. It starts
// the service, stores three builds of it as the main branch would, then gates a fourth as a pull
// request would, and checks what the gate wrote. The history and the reports go to a temporary folder.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const work = mkdtempSync(join(tmpdir(), 'salvo-ci-gate-'));
const port = String(10_000 + Math.floor(Math.random() * 20_000));
const server = spawn(process.execPath, ['server.mjs'], { cwd: import.meta.dirname, env: { ...process.env, PORT: port }, stdio: ['ignore', 'pipe', 'inherit'] });
await once(server.stdout, 'data');
const gate = (...args) => spawnSync(process.execPath, ['gate.mjs', '--url', `http://127.0.0.1:${port}/`, '--id', 'api', '--history', join(work, 'history'), '--out', join(work, 'reports'), '--runs', '3', '--duration', '1s', ...args], {
  cwd: import.meta.dirname, stdio: 'inherit', env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
}).status;
try {
  for (let build = 1; build <= 3; build++) if (gate('--add') !== 0) throw new Error(`build ${build} on main did not pass`);
  const status = gate();
  if (status !== 0) throw new Error(`the pull request's build exited ${status}; 0 expected (nothing changed)`);
  for (const file of ['junit.xml', 'summary.md', 'trend.html', 'run-1.html']) {
    if (!existsSync(join(work, 'reports', file))) throw new Error(`the gate wrote no reports/${file}`);
  }
  const junit = readFileSync(join(work, 'reports', 'junit.xml'), 'utf8');
  // 4 metrics, and a 5th case 'measurement 1' when a busy host made the first measurement regress and it was measured again.
  if (!/<testsuite name="api regression" tests="[45]" failures="0"/.test(junit)) throw new Error(`the JUnit file compares 4 metrics with no failure:\n${junit}`);
  console.log(`the gate passed against 3 stored builds; reports in ${join(work, 'reports')}`);
} finally {
  server.kill('SIGTERM');
}
