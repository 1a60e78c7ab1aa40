// salvo as a user installs it, into an empty project each time: from the tarball `npm pack` makes
// (what the registry would serve), from a path to this checkout, and from a git+file:// URL of a
// repository holding this working tree (npm clones it, installs the devDependencies and runs
// `prepare`, which builds dist/). In each, `import` and `require` run a load test and `npx salvo`
// answers. npm works from its cache where it can (--prefer-offline); the git install is the slow one
// (every devDependency into npm's clone, then the build).
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';

const exec = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const npm = (args: string[], cwd: string) =>
  exec('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd, timeout: 240_000, maxBuffer: 16 << 20 });

function temporary(t: Test, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An empty project: a package.json and nothing else. */
function emptyProject(t: Test): string {
  const dir = temporary(t, 'salvo-user-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', private: true }));
  return dir;
}

const loadTest = (load: string) => `
${load}
(async () => {
  const server = await createTestServer();
  const result = await runLoad({ url: server.url, connections: 2, amount: 37 });
  console.log(JSON.stringify({ completed: result.requests.completed, server: server.stats.requests }));
  await server.close();
})();
`;

/** `import`, `require` and `npx salvo` in a project that installed salvo. */
async function usable(t: Test, project: string): Promise<void> {
  for (const [type, load] of [
    ['module', "import { runLoad } from 'salvo';\nimport { createTestServer } from 'salvo/testing';"],
    ['commonjs', "const { runLoad } = require('salvo');\nconst { createTestServer } = require('salvo/testing');"],
  ] as const) {
    const { stdout } = await exec(process.execPath, [`--input-type=${type}`, '-e', loadTest(load)], { cwd: project, timeout: 30_000 });
    t.same(JSON.parse(stdout), { completed: 37, server: 37 }, `${type === 'module' ? 'import' : 'require'} runs a load test`);
  }
  const help = await exec('npx', ['--no', '--', 'salvo', '--help'], { cwd: project, timeout: 30_000 });
  t.match(help.stdout, /^usage: salvo URL/, 'npx salvo --help');
}

t.test('the packed tarball: only dist/ and the package files, and it installs', async (t) => {
  const out = temporary(t, 'salvo-pack-');
  const { stdout } = await npm(['pack', '--json', '--pack-destination', out], root);
  const [pack] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  const files = pack.files.map((file) => file.path);
  for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.cjs', 'dist/cli.js', 'dist/testing.js', 'dist/testing.cjs', 'dist/worker.js', 'dist/types/index.d.ts', 'dist/types-cjs/index.d.ts', 'dist/types-cjs/package.json']) {
    t.ok(files.includes(file), `packs ${file}`);
  }
  t.same(files.filter((file) => !/^(dist\/|package\.json$|README\.md$|LICENSE$)/.test(file)), [], 'nothing else: no src/, test/, docs/');
  const project = emptyProject(t);
  await npm(['install', join(out, pack.filename)], project);
  await usable(t, project);
});

t.test('a path to a checkout (linked, built by prepare)', async (t) => {
  const project = emptyProject(t);
  await npm(['install', root], project);
  await usable(t, project);
});

t.test('a git+file:// URL (npm clones it, installs the devDependencies, runs prepare)', async (t) => {
  // A repository of this working tree as it would be pushed: the tracked files and the new ones git does not ignore.
  const repo = temporary(t, 'salvo-git-');
  const { stdout } = await exec('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, maxBuffer: 16 << 20 });
  for (const file of stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(root, file))) continue; // deleted in the working tree
    mkdirSync(join(repo, dirname(file)), { recursive: true });
    copyFileSync(join(root, file), join(repo, file));
  }
  const git = (...args: string[]) => exec('git', ['-c', 'user.name=salvo', '-c', 'user.email=salvo@localhost', ...args], { cwd: repo });
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'working tree');
  const project = emptyProject(t);
  await npm(['install', `git+file://${repo}`], project);
  t.notOk(existsSync(join(project, 'node_modules/salvo/src')), 'the installed package is the packed one, dist/ built by prepare');
  await usable(t, project);
});
