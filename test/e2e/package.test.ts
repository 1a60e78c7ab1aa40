// The built package as a user gets it: `import 'salvo'` and `require('salvo')` both run a load test
// (npm test builds dist/ before tap runs). The child processes resolve 'salvo' by package self-reference.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import t from 'tap';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url);

const esm = `
import { runLoad } from 'salvo';
import { createTestServer } from 'salvo/testing';
const server = await createTestServer();
const result = await runLoad({ url: server.url, connections: 3, amount: 123 });
console.log(JSON.stringify({ completed: result.requests.completed, server: server.stats.requests }));
await server.close();
`;

const cjs = `
const { runLoad } = require('salvo');
const { createTestServer } = require('salvo/testing');
(async () => {
  const server = await createTestServer();
  const result = await runLoad({ url: server.url, connections: 3, amount: 123 });
  console.log(JSON.stringify({ completed: result.requests.completed, server: server.stats.requests }));
  await server.close();
})();
`;

for (const [name, args] of [
  ['ESM import', ['--input-type=module', '-e', esm]],
  ['CommonJS require', ['--input-type=commonjs', '-e', cjs]],
] as const) {
  t.test(`${name} of the built package runs a load test`, async (t) => {
    const { stdout } = await run(process.execPath, [...args], { cwd: root, timeout: 30_000 });
    t.same(JSON.parse(stdout), { completed: 123, server: 123 });
  });
}

t.test('dist/cli.js imports the library from its entry points (dist/index.js, gate.js, report.js) and bundles no copy of it', async (t) => {
  const cli = readFileSync(new URL('dist/cli.js', root), 'utf8');
  // An import's specifier ends its statement (`from "./index.js";`): a word `from` in code or text does not.
  const imports = [...cli.matchAll(/\bfrom\s*["']([^"'\s]+)["'];/g)].map((m) => m[1]!);
  t.same(imports.filter((spec) => !spec.startsWith('node:')).filter((spec, i, all) => all.indexOf(spec) === i).sort(), ['./gate.js', './index.js', './report.js']);
  t.notMatch(cli, /class Salvo(Option|Range)Error/, 'the error classes are index.js\'s, so instanceof holds across the two');
});

t.test('the built salvo command turns a bad --fail margin into a usage error (exit 2), not a stack trace', async (t) => {
  // The CLI tells the library's SalvoOptionError by instanceof: one class, from dist/index.js.
  const failed = await run(process.execPath, ['dist/cli.js', 'compare', 'a.json', 'b.json', '--fail', 'latency.p99=abc'], { cwd: root, timeout: 30_000 }).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  t.equal(failed?.code, 2);
  t.match(failed?.stderr, `--fail "latency.p99=abc": the margin must be a percentage such as '5%' or a fraction such as 0.05; got "abc"`);
  t.notMatch(failed?.stderr, /\n\s+at /, 'no stack trace');
});

t.test('salvo/gate and salvo/report load both ways, and their errors are the root\'s SalvoOptionError', async (t) => {
  const esmCheck = `
import { SalvoOptionError } from 'salvo';
import { readHistory } from 'salvo/gate';
import { renderReport } from 'salvo/report';
const error = await Promise.resolve().then(() => readHistory('')).catch((e) => e);
console.log(JSON.stringify({ report: typeof renderReport, instance: error instanceof SalvoOptionError, code: error.code }));
`;
  const cjsCheck = `
const { SalvoOptionError } = require('salvo');
const { readHistory } = require('salvo/gate');
const { renderReport } = require('salvo/report');
Promise.resolve().then(() => readHistory('')).catch((error) =>
  console.log(JSON.stringify({ report: typeof renderReport, instance: error instanceof SalvoOptionError, code: error.code })));
`;
  for (const [type, code] of [['module', esmCheck], ['commonjs', cjsCheck]] as const) {
    const { stdout } = await run(process.execPath, [`--input-type=${type}`, '-e', code], { cwd: root, timeout: 30_000 });
    t.same(JSON.parse(stdout), { report: 'function', instance: true, code: 'SALVO_INVALID_OPTION' }, type);
  }
  const index = readFileSync(new URL('dist/index.js', root), 'utf8');
  // The live page (`live`) turns into the run's report, so the root carries the renderer; the gate stays apart.
  t.notMatch(index, /function (addToHistory|formatJUnit)\b/, 'the root bundle does not carry the gate');
});
