// A consumer's ESM code, compiled against the built package (dist/*.d.ts) through its exports map.
import { runLoad, formatResult, assertThresholds, mergeResults, SalvoOptionError, compareResults, assertNoRegression, formatComparison, type Comparison, type CompareResultsOptions, type GeneratorStats, type FailedStats, type PhaseHistograms, type SalvoErrorDetail, type LoadOptions, type LoadResult, type MessageStats, type SocketIoOptions, type WebSocketOptions, type WebSocketStageStats, type ServerStats, type OutputOptions, type TaskContext, type ErrorSample, SalvoTaskSetupError, toVllmJson, type GoodputStats, type FlowSpec, type FeedOptions } from 'salvo';
import { createTestServer, type TestServer } from 'salvo/testing';
import { renderReport, toVllmJson as reportVllm } from 'salvo/report';
import { formatJUnit, gateChecks, type GateCheck, type GateOutcome } from 'salvo/gate';

const server: TestServer = await createTestServer({ delayMs: 5, status: 200 });
const options: LoadOptions = {
  url: server.url,
  transport: 'net',
  connections: 10,
  duration: '2s',
  rate: 500,
  expect: { status: '2xx' },
  thresholds: { 'latency.p99': '< 50' },
};
const result: LoadResult = await runLoad(options);
const p99: number = result.latency.p99;
// No latency is not zero latency: count 0 and NaN statistics (null in JSON); failed and unfinished requests.
const timed: number = result.latency.count;
const failed: FailedStats = result.failed;
const unfinished: number = result.requests.unfinished;
const samples: ErrorSample[] | undefined = result.errors.samples;
console.log(timed, failed.total, failed.byStatus['500'], unfinished, samples?.[0]?.where);
const optionError = new SalvoOptionError('connections must be a positive integer; got 0', { option: 'connections', value: 0 });
const code: string = optionError.code;
// 0.x code that builds the error itself still compiles.
const built: string = new SalvoOptionError('x').option;
const option: string = optionError.option;
console.log(formatResult(result), p99, code, built, option, optionError.value, result.timeline[0]?.p50);
const generator: GeneratorStats = result.generator;
const lagP99: number | undefined = generator.sendLag?.p99;
console.log(generator.saturated, lagP99, result.timeline[0]?.cpuPercent, result.warnings.map((w) => w.code));
assertThresholds(result);
const compareOptions: CompareResultsOptions = { metrics: ['latency.p99'] };
const comparison: Comparison = compareResults([result, result], [result, result], compareOptions);
const phaseHistograms: PhaseHistograms = result.phaseHistograms;
const detail: SalvoErrorDetail = { option: optionError.option, value: optionError.value, mentions: optionError.mentions };
console.log(phaseHistograms.ttfb.length, detail.option);
const stars: '' | '*' | '**' | '***' = comparison.rows[0]!.confidence;
console.log(formatComparison(comparison), stars);
assertNoRegression(comparison, { 'latency.p99': '5%' }, { confidence: '**' });
const html: string = renderReport(result);
const outcome: GateOutcome = { testId: 'checkout', results: [result] };
const checks: GateCheck[] = gateChecks(outcome);
console.log(formatJUnit(outcome).length, checks.length);
console.log(html.length);
const merged: LoadResult = mergeResults([result], { force: true, thresholds: { 'latency.p99': '< 60' } });
const startedAt: number = merged.startedAt;
const segmentCount: number | undefined = result.merge.segment?.count;
console.log(startedAt, segmentCount);
await runLoad({ url: server.url, amount: 10, segment: { index: 0, count: 1 }, startAt: new Date() });
await server.close();

const wsServer: TestServer = await createTestServer({ websocket: { broadcastIntervalMs: 100, echo: true } });
const webSocketOptions: WebSocketOptions = {
  message: (connection: number, sequence: number) => `${connection}:${sequence}`,
  rate: 10,
  timestamp: (data: string | Buffer) => (typeof data === 'string' ? Number(JSON.parse(data).ts) : undefined),
};
const ws: LoadResult = await runLoad({ url: wsServer.url, connections: 2, duration: 300, websocket: webSocketOptions });
const messages: MessageStats | undefined = ws.messages;
const stages: WebSocketStageStats[] | undefined = ws.websocket?.stages;
const closes: Record<string, number> | undefined = ws.websocket?.closeCodes;
const stageConnections: number | undefined = stages?.[0]?.connections;
console.log(stageConnections);
const handshakeP99: number | undefined = ws.phases.handshake?.p99;
console.log(messages?.perSecond, stages?.length, closes, handshakeP99, wsServer.stats.websocket?.messagesReceived);
await runLoad({ url: wsServer.url, websocket: { timestamp: { field: 'ts' }, perMessageDeflate: false, protocols: ['chat'] } });
await wsServer.close();
// @ts-expect-error: a timestamp field is named by a string
await runLoad({ url: 'ws://127.0.0.1:1/', websocket: { timestamp: { field: 1 } } });
const socketIoOptions: SocketIoOptions = {
  namespace: '/chat',
  auth: { token: 'x' },
  emit: { event: 'echo', data: { hello: 1 } },
  ack: true,
  listen: { event: 'tick', timestamp: { field: 'ts' } },
};
const sio: LoadResult = await runLoad({ url: 'http://127.0.0.1:1', connections: 1, duration: 100, socketio: socketIoOptions });
console.log(sio.transport === 'socket.io', sio.messages?.sent);
// @ts-expect-error: an emit names its event
await runLoad({ url: 'http://127.0.0.1:1', socketio: { emit: { data: 1 } } });

const outputs: OutputOptions[] = [{ type: 'prometheus', url: 'http://127.0.0.1:9090/api/v1/write', labels: { testid: 'types' }, headers: { authorization: 'Bearer x' } }];
const withOutputs: LoadOptions = { url: 'http://127.0.0.1:1/', outputs };
// @ts-expect-error: output kinds are checked
const unknownOutput: LoadOptions = { url: 'http://127.0.0.1:1/', outputs: [{ type: 'influxdb', url: 'http://127.0.0.1:1/' }] };
console.log(withOutputs, unknownOutput);

// @ts-expect-error: transport names are checked
await runLoad({ url: server.url, transport: 'curl' });
// A task run: the context is typed, its state as the task declares it.
const taskResult: LoadResult = await runLoad({
  task: async (ctx: TaskContext<{ client: string }>) => {
    await ctx.measure('step', async () => ctx.state.client.length + ctx.iteration + ctx.slot);
    ctx.mark('done');
    ctx.check('ok', !ctx.signal.aborted);
  },
  concurrency: 2,
  amount: 10,
});
const firstSample: ErrorSample | undefined = taskResult.errors.samples?.[0];
console.log(firstSample?.code, SalvoTaskSetupError.name);
// @ts-expect-error: a task is a function or a module specifier
await runLoad({ task: 42 });
const monitored: LoadOptions = { url: server.url, amount: 10, monitor: { processes: [server.pid], prometheus: ['http://127.0.0.1:9100/metrics', { url: 'http://127.0.0.1:9100/metrics', devices: ['lo'] }] } };
const serverStats: ServerStats | undefined = (await runLoad(monitored)).server;
const cpuPerRequest: number | undefined = serverStats?.cpuPerRequestMs;
const machineNetwork: number | undefined = serverStats?.machine?.network?.receivedBytesPerSecond;
console.log(cpuPerRequest, machineNetwork, serverStats?.sources.map((s) => s.answered), result.timeline[0]?.server?.cpuPercent);
import { startLoad, type LoadHandle, type SteerStep } from 'salvo';
const handle: LoadHandle = startLoad({ url: server.url, rate: 100, duration: 300 });
handle.setRate(200);
handle.setConnections(5);
const stopped: Promise<void> = handle.stop();
const steps: SteerStep[] | undefined = (await handle.result).steps;
console.log(stopped, steps?.[0]?.atMs, steps?.[0]?.rate, steps?.[0]?.connections);
// @ts-expect-error: a rate is a number
handle.setRate('fast');
// An LLM serving workload: the llm and slo options, result.goodput, vLLM's JSON names.
const llmOptions: LoadOptions = {
  url: server.url,
  amount: 4,
  llm: { api: 'openai-chat', model: 'm', synthetic: { inputTokens: { min: 100, max: 200 }, outputTokens: { mean: 64, stddev: 8 }, sharedPrefix: 20 }, ignoreEos: true, turns: 2 },
  slo: { ttft: 500, tpot: 50, itl: 200, e2e: 5000 },
};
const llmResult: LoadResult = result;
const goodput: GoodputStats | undefined = llmResult.goodput;
const vllm: Record<string, unknown> = toVllmJson(llmResult, { percentiles: [50, 99] });
const sameVllm: Record<string, unknown> = reportVllm(llmResult);
console.log(llmOptions.llm?.api, goodput?.perSecond, goodput?.slo.ttft, vllm.request_goodput, sameVllm.duration);

// Journeys: think time, weighted flows and a feed, the row in a hook's context.
const flows: FlowSpec[] = [
  { name: 'browse', weight: 3, requests: [{ path: '/', think: [100, '1s'] }] },
  { requests: [{ path: '/buy', setupRequest: (request, context) => ({ ...request, body: { row: context.row, flow: context.flow ?? '', journey: context.journey ?? 0 } }) }] },
];
const feed: FeedOptions = { file: 'users.csv', reuse: false };
const journeyOptions: LoadOptions = { url: server.url, rate: 10, flows, feed: ['a', 'b'] };
console.log(journeyOptions, feed);

// A coordinated run: the options, the per-agent breakdown, and the agent's side.
import { runAgent, SalvoAgentsError, type AgentResult, type AgentsOptions } from 'salvo';
const fleetAgents: AgentsOptions = { expect: 4, listen: '0.0.0.0:7000', token: 'x'.repeat(32), tolerateLost: 1, readyTimeout: '30s', files: ['data.csv'] };
const fleet: LoadResult = await runLoad({ url: server.url, rate: 100, agents: fleetAgents });
const lostAt: number | undefined = fleet.agents?.find((agent: AgentResult) => agent.lost !== undefined)?.lost?.atMs;
const notRun: number | undefined = fleet.agents?.[0]?.lost?.notRunShare;
console.log(lostAt, notRun, SalvoAgentsError.name);
await runAgent({ url: 'ws://127.0.0.1:7000', token: 'x'.repeat(32), once: true, signal: AbortSignal.timeout(1000) });
