import t from 'tap';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { runLoad } from '../../src/index.js';
import { decodeHistogram } from '../../src/stats/histogram.js';
import type { LoadOptions } from '../../src/shared/load-options.js';
import type { ProgressEvent } from '../../src/shared/load-result.js';
import type { AgentResult } from '../../src/shared/agents.js';
import { freePort } from '../fixtures/free-port.js';
import { lineFrom, Netns } from '../fixtures/netns.js';
import { inSomeRun } from '../fixtures/timing.js';

// A coordinator (this test) and four agents in network namespaces of their own, as four machines
// would be, against a target server in a fifth: what the fleet counts is what the server saw.
const AGENTS = 4;
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const target = fileURLToPath(new URL('../fixtures/netns-target.mjs', import.meta.url));
const delayProxy = fileURLToPath(new URL('../fixtures/delay-proxy.mjs', import.meta.url));
const TOKEN = 'fleet-test-token-0123456789abcdef';

interface Counts {
  counts: Record<string, number>;
  last: Record<string, number>;
}

const net = new Netns();
let made = false;
try {
  net.setUp();
  made = true;
} catch (error) {
  t.comment(`cannot make network namespaces here (${String((error as Error).message).split('\n')[0]}): needs root and iproute2`);
}

if (!made) {
  t.test('agents in network namespaces', { skip: '`ip netns add` failed on this host (needs root and iproute2)' }, async () => {});
} else if (!existsSync(cli)) {
  t.fail(`${cli} is missing: build first (npm run build)`);
} else {
  t.teardown(() => net.destroy());
  const server = net.add(AGENTS);
  const hosts = Array.from({ length: AGENTS }, (_, k) => net.add(k));
  const targetProcess = net.spawn(server.name, [process.execPath, target, server.address, '8080']);
  await lineFrom(targetProcess, /listening/);
  const base = `http://${server.address}:8080`;
  const counts = async (): Promise<Counts> => (await fetch(`${base}/__counts`)).json() as Promise<Counts>;
  const reset = async () => void (await fetch(`${base}/__reset`)).text();
  const port = await freePort();
  const listen = `${net.hostAddress}:${port}`;
  const coordinatorUrl = `ws://${listen}`;
  const agentsOf = (options: Partial<LoadOptions['agents']> = {}) => ({ expect: AGENTS, listen, token: TOKEN, readyTimeout: '20s', ...options });
  // Agent 3 is 200 ms from the coordinator: netem on its link, or, on a kernel without netem, a
  // proxy in its namespace that holds every chunk 200 ms each way.
  let agent3Url = coordinatorUrl;
  if (!net.netemDelay(hosts[3]!.name, hosts[3]!.device, 200)) {
    const proxy = net.spawn(hosts[3]!.name, [process.execPath, delayProxy, '127.0.0.1', '9000', net.hostAddress, String(port), '200']);
    await lineFrom(proxy, /listening/);
    agent3Url = 'ws://127.0.0.1:9000';
    t.comment('no tc netem on this kernel: agent 3 reaches the coordinator through a proxy that delays 200 ms each way');
  }
  const agents: ChildProcess[] = hosts.map(({ name }, k) =>
    net.spawn(name, [process.execPath, cli, 'agent', k === 3 ? agent3Url : coordinatorUrl], { SALVO_AGENT_TOKEN: TOKEN }),
  );
  for (const agent of agents) {
    agent.stdout!.resume();
    agent.stderr!.resume();
  }
  /** The agents of a result, in the order of `hosts` (agents are numbered as they become ready). */
  const byHost = (result: { agents?: AgentResult[] }): AgentResult[] =>
    hosts.map(({ address }) => result.agents!.find((agent) => agent.address === address)!);

  t.test('4 agents, one open-loop run: the server saw exactly the merged sent, and each second is the agents added', async (t) => {
    await reset();
    const events: ProgressEvent[] = [];
    const result = await runLoad({ url: `${base}/slow`, rate: 400, duration: '3s', connections: 16, agents: agentsOf(), onProgress: (event) => void events.push(event) });
    const seen = await counts();
    const bySource = hosts.map(({ address }) => seen.counts[address] ?? 0);
    t.equal(result.requests.sent, Object.values(seen.counts).reduce((a, b) => a + b, 0), 'the server counted exactly the merged sent');
    t.equal(result.requests.sent + result.requests.missed, 1200, 'the whole plan: every slot of 400/s for 3 s sent or counted missed');
    t.same(byHost(result).map((agent) => agent?.requests.sent), bySource, "each agent from its own address, and its count is what the server saw from there");
    t.same(result.agents!.map((agent) => agent.segment), hosts.map((_, index) => ({ index, count: AGENTS })), 'one segment each');
    t.ok(events.length >= 3, `a live second per second of the run (${events.length})`);
    // The agents' latencies differ (2 ms more per agent): an average of their p99s would be off.
    for (const event of events) {
      const encoded = result.merge.timeline[event.second];
      if (encoded === undefined || Number.isNaN(event.p99)) continue;
      const added = decodeHistogram(encoded);
      t.equal(event.p99, added.getValueAtPercentile(99) / 1000, `second ${event.second}: the live p99 is the p99 of the agents' histograms added`);
      added.destroy();
    }
    t.equal(result.ok, true);
    t.notOk(result.warnings.some((warning) => warning.code === 'AGENT_LOST'));
  });

  t.test('an abortOnFail threshold on the fleet stops every agent', async (t) => {
    await inSomeRun(t, 3, async (timing) => {
      await reset();
      // 400/s of 500s: the fleet passes 250 in its first second; one agent alone would need 2.5 s.
      const result = await runLoad({
        url: `${base}/fail`, rate: 400, duration: '10s', connections: 8, agents: agentsOf(),
        thresholds: { 'statusCodes.500': { threshold: '< 250', abortOnFail: true } },
      });
      const seen = await counts();
      t.equal(result.aborted, true, 'the run was aborted');
      t.equal(result.ok, false);
      t.equal(result.requests.sent, Object.values(seen.counts).reduce((a, b) => a + b, 0), 'the server counted exactly the merged sent');
      const lastMs = Math.max(...Object.values(seen.last));
      const stoppedAfterMs = lastMs - result.startedAt;
      timing.ok(hosts.every(({ address }) => (seen.last[address] ?? 0) - result.startedAt < 2000), `every agent stopped within a second of the fleet's first second closing (last request ${stoppedAfterMs.toFixed(0)} ms after the start)`);
    });
  });

  t.test('an agent killed mid-run is lost and reported with what it counted; one 200 ms away is not', async (t) => {
    await reset();
    let killed: number | undefined;
    const result = await runLoad({
      url: `${base}/`, rate: 400, duration: '4s', connections: 8, agents: agentsOf({ tolerateLost: 1 }),
      onProgress: (event) => {
        if (event.second !== 1 || killed !== undefined) return;
        killed = 1;
        agents[1]!.kill('SIGKILL');
      },
    });
    const seen = await counts();
    const [first, lost, third, delayed] = byHost(result) as [AgentResult, AgentResult, AgentResult, AgentResult];
    t.ok(lost.lost, 'the killed agent is reported lost');
    t.equal(lost.lost?.reason, 'disconnected');
    t.ok(lost.lost!.lastSecond >= 0, `it had reported up to second ${lost.lost!.lastSecond}`);
    t.ok(lost.lost!.notRunShare > 0.05 && lost.lost!.notRunShare < 0.25, `its share not run: ${lost.lost!.notRunShare}`);
    t.notOk(delayed.lost, 'the agent 200 ms away is not lost');
    t.match(result.warnings.find((warning) => warning.code === 'AGENT_LOST')?.message, new RegExp(`agent ${lost.id} \\(${hosts[1]!.address}, segment ${lost.segment.index + 1} of 4\\) was lost \\(disconnected\\)`));
    t.equal(result.ok, true, 'tolerateLost: 1 lets the run pass');
    for (const [k, agent] of [[0, first], [2, third], [3, delayed]] as const) t.equal(agent.requests.sent, seen.counts[hosts[k]!.address], `agent on host ${k}: exactly what the server saw from it`);
    const fromLost = seen.counts[hosts[1]!.address] ?? 0;
    t.ok(lost.requests.sent > 0 && lost.requests.sent <= fromLost, `the lost agent's counted ${lost.requests.sent} are among the ${fromLost} the server saw from it`);
    t.equal(result.requests.sent, result.agents!.reduce((sum, agent) => sum + agent.requests.sent, 0), 'the merged sent is each agent counted once');
    t.ok(fromLost - lost.requests.sent <= 2 * 100, 'what it sent after its last report is at most two seconds of its share');
  });

  t.test('a wrong token is refused on both sides and nothing runs', async (t) => {
    for (const agent of agents) if (agent.exitCode === null && agent.signalCode === null) agent.kill('SIGKILL');
    await reset();
    const wrong = net.spawn(hosts[0]!.name, [process.execPath, cli, 'agent', coordinatorUrl, '--token', 'not-the-token-at-all-000000'], {});
    const exited = once(wrong, 'exit');
    let stderr = '';
    wrong.stderr!.on('data', (chunk) => (stderr += String(chunk)));
    await t.rejects(
      runLoad({ url: `${base}/`, rate: 100, duration: '1s', agents: { expect: 1, listen, token: TOKEN, readyTimeout: '3s' } }),
      { code: 'SALVO_AGENTS_NOT_READY', message: /0 of 1 agents ready.*refused: .*wrong token/ },
    );
    const [code] = (await exited) as [number];
    t.equal(code, 2, 'the agent exits with status 2');
    t.match(stderr, /token was refused/);
    t.same((await counts()).counts, {}, 'the target saw no request');
  });
}
