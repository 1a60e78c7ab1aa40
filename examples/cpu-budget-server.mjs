// A small JSON API for examples/server-cpu-budget.mjs, in a process of its own: prints its URL,
// serves until its parent closes stdin.
import { createServer } from 'node:http';
import { once } from 'node:events';

const items = Array.from({ length: 100 }, (_, id) => ({ id, name: `item ${id}`, tags: ['a', 'b', 'c'] }));
const server = createServer((request, response) => {
  const body = JSON.stringify({ path: request.url, items });
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
process.stdout.write(`http://127.0.0.1:${server.address().port}/items\n`);
process.stdin.resume();
process.stdin.on('end', () => server.close());
