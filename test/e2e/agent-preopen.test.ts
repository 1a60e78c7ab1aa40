// transports/agent-preopen.ts against a node:http server: an Agent's socket opened before the first
// request, which that request then uses (one connection for both), and the connect time recorded.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { PhaseRecorder } from '../../src/stats/phases.js';
import { preopenAgentSocket } from '../../src/transports/agent-preopen.js';

t.test('the first request rides the socket opened ahead', async (t) => {
  let connections = 0;
  const server = http.createServer((_request, response) => response.end('ok'));
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const phases = new PhaseRecorder();
  const socket = await preopenAgentSocket(agent, url, false, phases);
  t.ok(socket, 'resolved with the connected socket');
  t.equal(connections, 1, 'connected before any request');
  const get = () => new Promise<number>((resolve, reject) => {
    http.get(url, { agent }, (response) => { response.resume(); response.on('end', () => resolve(response.statusCode ?? 0)); }).on('error', reject);
  });
  t.equal(await get(), 200);
  t.equal(await get(), 200);
  t.equal(connections, 1, 'both requests on the socket opened ahead');
});

t.test('a refused connection resolves undefined; the first request then opens its own', async (t) => {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  server.close();
  await once(server, 'close');
  const agent = new http.Agent();
  t.teardown(() => agent.destroy());
  t.equal(await preopenAgentSocket(agent, new URL(`http://127.0.0.1:${port}/`), false, new PhaseRecorder()), undefined);
  const error = await new Promise<NodeJS.ErrnoException>((resolve) => http.get(`http://127.0.0.1:${port}/`, { agent }).on('error', resolve));
  t.equal(error.code, 'ECONNREFUSED', 'the request met the error itself');
});
