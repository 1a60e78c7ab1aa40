// The built package as a user gets it: `import 'salvo'` and `require('salvo')` both run a load test
// (npm test builds dist/ before tap runs). The child processes resolve 'salvo' by package self-reference.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';

const run = promisify(execFile);
const root = new URL('..', import.meta.url);

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
