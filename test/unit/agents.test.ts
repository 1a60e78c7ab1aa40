import t from 'tap';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from '../fixtures/free-port.js';
import { WebSocketServer } from 'ws';
import { runAgent, runLoad } from '../../src/index.js';
import { createTestServer } from '../../src/testing/index.js';
import { planAgents } from '../../src/agents/options.js';
import { agentOptions } from '../../src/agents/plan-files.js';
import { AGENT_PROTOCOL, tokenProof } from '../../src/agents/channel.js';
import type { LoadOptions } from '../../src/shared/load-options.js';

const TOKEN = 'unit-test-token-0123456789abcdef';
const quiet = () => {};

t.test('agents options: each bad value names its option', async (t) => {
  const url = 'http://127.0.0.1:9/';
  const agents = { expect: 2, listen: 7000, token: TOKEN };
  const bad: Array<[LoadOptions['agents'] | unknown, string]> = [
    [{ ...agents, expect: 0 }, 'agents.expect'],
    [{ ...agents, token: 'short' }, 'agents.token'],
    [{ ...agents, listen: 'nowhere' }, 'agents.listen'],
    [{ ...agents, listen: 70000 }, 'agents.listen'],
    [{ ...agents, tolerateLost: 2 }, 'agents.tolerateLost'],
    [{ ...agents, readyTimeout: 'soon' }, 'agents.readyTimeout'],
    [{ ...agents, file: ['a'] }, 'agents.file'],
    [{ ...agents, files: ['/etc/passwd'] }, 'agents.files'],
  ];
  for (const [value, option] of bad) t.throws(() => planAgents({ url, agents: value as LoadOptions['agents'] }), { message: /./, option }, option);
  t.same(planAgents({ url, agents: { ...agents, listen: '0.0.0.0:7001' } }), { expect: 2, host: '0.0.0.0', port: 7001, token: TOKEN, tolerateLost: 0, readyTimeoutMs: 60_000, lostAfterMs: 5000, files: [] });
  t.equal(planAgents({ url, agents }).host, '127.0.0.1', 'a port alone binds loopback');
  t.throws(() => planAgents({ url, agents, segment: { index: 0, count: 2 } }), { message: /cannot be given with agents/, option: 'segment', mentions: ['agents'] });
  t.throws(() => agentOptions({ url, requests: [{ path: '/', setupRequest: () => {} }] } as LoadOptions), { option: 'requests[0].setupRequest', message: /requests\[0\]\.setupRequest is a function, which cannot be sent to an agent/ });
  await t.rejects(runLoad({ url, rate: 10, agents: { ...agents, expect: 0 } }), { code: 'SALVO_OUT_OF_RANGE', option: 'agents.expect' });
  await t.rejects(runLoad({ url, rate: 10, connections: 1, agents }), { option: 'agents.expect', message: /^agents\.expect 2 is more than connections 1: every segment needs at least one; use fewer agents/ });
  const taken = createServer().listen(0, '127.0.0.1');
  await once(taken, 'listening');
  t.teardown(() => taken.close());
  const { port } = taken.address() as { port: number };
  await t.rejects(runLoad({ url, rate: 10, agents: { ...agents, listen: port } }), { option: 'agents.listen', message: /cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/ });
});

t.test('an agent refuses a coordinator that does not prove the token: nothing runs', async (t) => {
  const server = await createTestServer();
  t.teardown(() => server.close());
  const fake = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(fake, 'listening');
  t.teardown(() => fake.close());
  fake.on('connection', (socket) => {
    socket.send(JSON.stringify({ type: 'hello', protocol: AGENT_PROTOCOL, nonce: 'c'.repeat(64) }));
    socket.once('message', (data) => {
      const { nonce } = JSON.parse(String(data)) as { nonce: string };
      // A proof made with another token, then a run anyway.
      socket.send(JSON.stringify({ type: 'welcome', proof: tokenProof('another-token-entirely-0000', 'coordinator', 'c'.repeat(64), nonce) }));
      socket.send(`${'0'.repeat(64)} ${JSON.stringify({ type: 'run', runId: 'x', options: { url: server.url, amount: 10, segment: { index: 0, count: 1 } }, files: [] })}`);
    });
  });
  const { port } = fake.address() as { port: number };
  const lines: string[] = [];
  await t.rejects(runAgent({ url: `ws://127.0.0.1:${port}`, token: TOKEN, log: (line) => void lines.push(line) }), { message: /token was refused/ });
  t.match(lines.join('\n'), /the coordinator did not prove the token; nothing runs/);
  t.equal(server.stats.requests, 0, 'the target saw nothing');
});

t.test('agents.tls: the coordinator listens with TLS, and an agent that trusts its certificate runs the plan over wss:', async (t) => {
  const server = await createTestServer();
  t.teardown(() => server.close());
  const cert = readFileSync(new URL('../fixtures/localhost-cert.pem', import.meta.url));
  const key = readFileSync(new URL('../fixtures/localhost-key.pem', import.meta.url));
  const port = await freePort();
  const agent = runAgent({ url: `wss://localhost:${port}`, token: TOKEN, once: true, tls: { ca: cert }, log: quiet });
  const result = await runLoad({ url: server.url, amount: 50, connections: 2, agents: { expect: 1, listen: port, token: TOKEN, tls: { key, cert }, readyTimeout: '10s' } });
  await agent;
  t.equal(result.requests.completed, 50);
  t.equal(server.stats.requests, 50, 'the server saw exactly the plan');
  t.same(result.agents!.map((each) => each.requests.sent), [50]);
  t.notOk(JSON.stringify(result).includes(TOKEN), 'the result does not hold the token');
});
