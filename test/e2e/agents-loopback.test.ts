import t from 'tap';
import { runAgent, runLoad, startLoad, type ProgressEvent } from '../../src/index.js';
import { renderReport } from '../../src/report/index.js';
import { createTestServer } from '../../src/testing/index.js';
import { EventReader } from '../fixtures/event-reader.js';
import { freePort } from '../fixtures/free-port.js';
import { inSomeRun } from '../fixtures/timing.js';

// A coordinator and agents in this one process, over loopback: the failure policy, the caller's
// signal, and a task module with its data. (Agents on separate hosts: agents-netns.test.ts.)
const TOKEN = 'e2e-test-token-0123456789abcdef';
const quiet = () => {};

t.test('by default a lost agent fails the run: the others are stopped, what it counted is kept once', async (t) => {
  const server = await createTestServer();
  t.teardown(() => server.close());
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}`;
  const leaving = new AbortController();
  const staying = runAgent({ url, token: TOKEN, once: true, log: quiet });
  const going = runAgent({ url, token: TOKEN, signal: leaving.signal, log: quiet });
  const result = await runLoad({
    url: server.url, rate: 200, duration: '5s', connections: 4,
    agents: { expect: 2, listen: port, token: TOKEN, readyTimeout: '10s' },
    onProgress: (event) => {
      if (event.second === 1) leaving.abort();
    },
  });
  await Promise.all([staying, going]);
  const lost = result.agents!.find((agent) => agent.lost !== undefined);
  t.ok(lost, 'one agent is lost');
  t.equal(lost?.lost?.reason, 'disconnected');
  t.equal(result.ok, false, 'the run fails');
  t.equal(result.aborted, true, 'the other agent was stopped');
  t.match(result.warnings.find((warning) => warning.code === 'AGENT_LOST')?.message, /the run fails \(tolerateLost: 0\)/);
  t.equal(result.requests.sent, result.agents!.reduce((sum, agent) => sum + agent.requests.sent, 0), 'each agent counted once');
  t.ok(server.stats.requests >= result.requests.sent, `the server saw what was counted (${server.stats.requests} >= ${result.requests.sent})`);
  t.ok(result.requests.sent < 1000, 'the run did not go on to its end');
});

t.test("a task module and its data file travel to the agent, which runs them from a directory of its own", async (t) => {
  const port = await freePort();
  const agent = runAgent({ url: `ws://127.0.0.1:${port}`, token: TOKEN, once: true, log: quiet });
  const cwd = process.cwd();
  const result = await runLoad({
    task: './test/fixtures/tasks/fleet-task.mjs', amount: 40, concurrency: 2,
    agents: { expect: 1, listen: port, token: TOKEN, files: ['test/fixtures/tasks/fleet-data.txt'], readyTimeout: '10s' },
  });
  await agent;
  t.equal(process.cwd(), cwd, 'the working directory is restored');
  t.equal(result.requests.completed, 40);
  t.same(result.checks?.failed ?? 0, 0, 'every call saw the data');
  t.ok((result.checks?.passed ?? 0) >= 40, `checks passed: ${result.checks?.passed}`);
  t.equal(result.ok, true);
});

t.test("the caller's signal stops every agent, and the partial result comes back", async (t) => {
  const server = await createTestServer();
  t.teardown(() => server.close());
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}`;
  const agents = [runAgent({ url, token: TOKEN, once: true, log: quiet }), runAgent({ url, token: TOKEN, once: true, log: quiet })];
  const controller = new AbortController();
  const result = await runLoad({
    url: server.url, rate: 100, duration: '20s', connections: 2, signal: controller.signal,
    agents: { expect: 2, listen: port, token: TOKEN, readyTimeout: '10s' },
    onProgress: (event) => {
      if (event.second === 0) controller.abort();
    },
  });
  await Promise.all(agents);
  t.equal(result.aborted, true);
  t.ok(result.durationMs < 10_000, `stopped early: ${result.durationMs} ms of 20 s`);
  t.equal(server.stats.requests, result.requests.sent, 'the server saw exactly what the agents counted');
  t.same(result.agents!.map((agent) => agent.lost), [undefined, undefined], 'no agent was lost');
});

t.test("startLoad's stop() stops every agent: it resolves promptly, each request the server saw counted once", async (t) => {
  const server = await createTestServer();
  t.teardown(() => server.close());
  await inSomeRun(t, 3, async (timing) => {
    const before = server.stats.requests;
    const port = await freePort();
    const url = `ws://127.0.0.1:${port}`;
    const agents = [runAgent({ url, token: TOKEN, once: true, log: quiet }), runAgent({ url, token: TOKEN, once: true, log: quiet })];
    let stopped: Promise<number> | undefined;
    const handle = startLoad({
      url: server.url, rate: 100, duration: '20s', connections: 2,
      agents: { expect: 2, listen: port, token: TOKEN, readyTimeout: '10s' },
      onProgress: (event) => {
        if (event.second !== 1 || stopped !== undefined) return;
        const at = performance.now();
        stopped = handle.stop().then(() => performance.now() - at);
      },
    });
    const result = await handle.result;
    await Promise.all(agents);
    const stopMs = await stopped!;
    t.equal(result.aborted, true, 'stopped');
    t.equal(server.stats.requests - before, result.requests.sent, 'the server saw exactly what the fleet counted');
    t.equal(result.requests.sent, result.agents!.reduce((sum, agent) => sum + agent.requests.sent, 0), 'each agent counted once');
    t.same(result.agents!.map((agent) => agent.lost), [undefined, undefined], 'no agent was lost');
    t.ok(result.requests.sent > 0 && result.requests.sent < 1000, `the run did not go on to its end: ${result.requests.sent} sent`);
    timing.ok(stopMs < 3000, `stop() resolved in ${Math.round(stopMs)} ms`);
  });
});

t.test('setRate and setConnections on a run over agents are refused, naming the method', async (t) => {
  const port = await freePort();
  const handle = startLoad({
    url: 'http://127.0.0.1:1/', rate: 100, duration: '5s',
    agents: { expect: 1, listen: port, token: TOKEN, readyTimeout: '200ms' },
  });
  t.throws(() => handle.setRate(200), { name: 'SalvoOptionError', option: 'setRate', message: /setRate: .*agents/ });
  t.throws(() => handle.setConnections(2), { name: 'SalvoOptionError', option: 'setConnections', message: /setConnections: .*agents/ });
  await t.rejects(handle.result, { name: 'SalvoAgentsError' }, 'no agent came, so the run itself fails');
});

t.test("a fleet's live page gets every second onProgress got, and ends as renderReport(result)", async (t) => {
  const server = await createTestServer();
  t.teardown(() => server.close());
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}`;
  const agents = [runAgent({ url, token: TOKEN, once: true, log: quiet }), runAgent({ url, token: TOKEN, once: true, log: quiet })];
  const events: ProgressEvent[] = [];
  let opened!: Promise<EventReader>;
  const result = await runLoad({
    url: server.url, rate: 100, duration: '2500ms', connections: 2,
    agents: { expect: 2, listen: port, token: TOKEN, readyTimeout: '10s' },
    onProgress: (event) => void events.push(event),
    live: { port: 0, onLive: ({ url: page }) => void (opened = EventReader.open(page)) },
  });
  await Promise.all(agents);
  const page = await opened;
  await page.until('final', 1);
  t.ok(events.length >= 2, `${events.length} fleet seconds`);
  t.same(page.of('second'), JSON.parse(JSON.stringify(events)), 'the page got every second onProgress got');
  t.same(page.of('final'), [renderReport(result)], "the page's end is renderReport(result)");
  t.equal(result.requests.sent, server.stats.requests, 'the server saw exactly what the fleet counted');
});
