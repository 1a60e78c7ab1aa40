// The live page for every kind of run, read as a page would read it (server-sent events, no
// browser): each page gets every second onProgress got, a view drawn with the report's charts, and
// the report itself at the end; stop on the page stops the run.
import t from 'tap';
import { startWithLive } from '../../src/live/run-load.js';
import { runLoad as runWithoutPage } from '../../src/start-load.js';
import { findCapacity, runLoad, type LoadOptions, type LoadResult, type ProgressEvent } from '../../src/index.js';
import { renderCapacityReport, renderReport } from '../../src/report/index.js';
import { EventReader } from '../fixtures/event-reader.js';
import { socketIoServer } from '../fixtures/socketio-server.js';
import { startStreamServer } from '../fixtures/stream-server.js';
import { testServer } from '../fixtures/test-server.js';

interface Watched {
  result: LoadResult;
  events: ProgressEvent[];
  page: EventReader;
}

/** Runs `options` with a live page and one page open from the start. */
async function watched(options: LoadOptions): Promise<Watched> {
  const events: ProgressEvent[] = [];
  let opened!: Promise<EventReader>;
  const result = await runLoad({
    ...options,
    onProgress: (event) => void events.push(event),
    live: { onLive: ({ url }) => void (opened = EventReader.open(url)) },
  });
  const page = await opened;
  await page.until('final', 1);
  return { result, events, page };
}

type View = { header: string; body: string; charts: Array<{ id: string; series: Array<{ label: string; values: Array<number | null> }> }> };

t.test('every kind of run: the page gets each second, draws the report charts, and ends as the report', async (t) => {
  const http = await testServer(t);
  const ws = await testServer(t, { websocket: true });
  const socketio = await socketIoServer(t);
  const stream = await startStreamServer({ format: 'sse', delayMs: 1, intervalMs: 5, events: 5 });
  t.teardown(() => stream.close());
  const runs: Record<string, LoadOptions> = {
    http: { url: http.url, connections: 2, rate: 200, duration: 2500, monitor: { processes: [process.pid] } },
    workers: { url: http.url, connections: 2, rate: 200, duration: 2500, workers: 2 },
    websocket: { url: ws.url.replace('http:', 'ws:'), connections: 2, duration: 2500, websocket: { message: 'ping' } },
    socketio: { url: socketio.url, connections: 2, duration: 2500, socketio: { emit: { event: 'echo', data: 1 }, ack: true } },
    task: { task: async () => {}, rate: 200, duration: 2500 },
    stream: { url: stream.url, connections: 2, duration: 2500, stream: { format: 'sse' } },
    scenarios: { url: http.url, duration: 2500, scenarios: { browse: { rate: 100 }, buy: { rate: 50, start: '1s', duration: 1500 } } },
  };
  // Run together: each for its own page on its own port.
  const done = await Promise.all(Object.entries(runs).map(async ([kind, options]) => [kind, await watched(options)] as const));
  for (const [kind, { result, events, page }] of done) {
    const seconds = page.of('second');
    t.ok(events.length >= 2, `${kind}: ${events.length} seconds`);
    t.same(seconds, JSON.parse(JSON.stringify(events)), `${kind}: the page got every second onProgress got`);
    const view = page.of('view').at(-1) as View;
    const ids = view.charts.map((chart) => chart.id);
    t.ok(ids.includes('chart-throughput') && ids.includes('chart-latency'), `${kind}: drawn with the report's charts (${ids.join(', ')})`);
    if (kind === 'scenarios') t.ok(ids.includes('chart-scenarios-throughput'), 'scenarios: their chart too');
    if (kind === 'http') t.ok(ids.includes('chart-server-cpu'), "http with monitor: the server's chart too");
    if (kind === 'stream') t.ok(ids.includes('chart-stream'), "stream: the streams' chart too");
    t.match(view.body, /class="cards"/, `${kind}: with the report's cards`);
    t.same(page.of('final'), [renderReport(result)], `${kind}: the page's end is renderReport(result)`);
  }
});

t.test("a capacity search's page draws its steps one after another and ends as the search's report", async (t) => {
  const server = await testServer(t);
  let opened!: Promise<EventReader>;
  const stepSeconds: number[][] = [];
  const result = await findCapacity({
    url: server.url,
    slo: { 'latency.p99': '< 500' },
    start: 100,
    max: 200,
    stepDuration: '2s',
    confirmDuration: 0,
    pause: 0,
    warmup: 0,
    onStep: (event) => void (event.type === 'start' && stepSeconds.push([])),
    onProgress: (event) => void stepSeconds.at(-1)!.push(event.second),
    live: { onLive: ({ url }) => void (opened = EventReader.open(url)) },
  });
  const page = await opened;
  await page.until('final', 1);
  t.equal(result.steps.length, 2, 'two steps');
  t.same(stepSeconds.map((seconds) => seconds[0]), [0, 0], "each step's own seconds start at 0");
  const seconds = page.of('second') as ProgressEvent[];
  t.same(seconds.map((s) => s.second), seconds.map((_, i) => i), 'the page has them one after another');
  t.same([...new Set(seconds.map((s) => s.targetRate))], [100, 200], "with each step's target rate");
  t.same(page.of('final'), [renderCapacityReport(result)], "the page's end is the search's report");
});

t.test('a run that rejects closes its page, bad live options are named, and stop on the page ends the run with what it measured', async (t) => {
  const server = await testServer(t);
  let page = '';
  await t.rejects(runLoad({ url: server.url, connections: -1, live: { onLive: ({ url }) => void (page = url) } }), {
    code: 'SALVO_OUT_OF_RANGE',
    option: 'connections',
  });
  await t.rejects(fetch(page), "the page's server closed with the run");
  await t.rejects(runLoad({ url: server.url, live: { port: 70000 } }), { code: 'SALVO_OUT_OF_RANGE', option: 'live.port' });
  await t.rejects(runLoad({ url: server.url, live: { hots: 'x' } as never }), { code: 'SALVO_INVALID_OPTION', option: 'live.hots' });

  let live!: string;
  const started = Date.now();
  const running = runLoad({ url: server.url, connections: 2, duration: 30_000, live: { control: true, onLive: ({ url }) => void (live = url) } });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const answer = await fetch(new URL('control/stop', live), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.equal(answer.status, 200, 'stop is taken');
  const result = await running;
  t.ok(result.aborted, 'the run ended early, as an abort does');
  t.ok(Date.now() - started < 20_000, 'long before its 30 s');
  const { sent, completed, unfinished = 0 } = result.requests;
  t.equal(sent, completed + result.errors.total + unfinished, 'every request sent is in exactly one count');
  t.ok(server.stats.requests >= completed && server.stats.requests <= sent, `the server saw ${server.stats.requests}: every answered one (${completed}), at most those sent (${sent})`);
});

t.test("startWithLive: the page's controls and calls made before the start reach the run's handle, in order", async (t) => {
  const server = await testServer(t);
  const calls: string[] = [];
  let live!: string;
  const started = startWithLive(
    { url: server.url, connections: 2, duration: 1500, live: { control: true, onLive: ({ url }) => void (live = url) } },
    (options) => {
      calls.push('start');
      return {
        result: runWithoutPage(options),
        setRate: (rate) => void calls.push(`rate ${rate}`),
        setConnections: (connections) => void calls.push(`connections ${connections}`),
        stop: () => void calls.push('stop'),
      };
    },
  );
  started.setRate(300);
  started.setConnections(3);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const post = (action: string, value: number) => fetch(new URL(`control/${action}`, live), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value }) });
  t.equal((await post('rate', 1000)).status, 200);
  t.equal((await post('connections', 4)).status, 200);
  const result = await started.result;
  t.ok(result.requests.completed > 0, 'the run ran');
  t.same(calls, ['start', 'rate 300', 'connections 3', 'rate 1000', 'connections 4']);
});
