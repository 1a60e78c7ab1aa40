// Outputs against a real Prometheus (remote-write receiver on a loopback port): what PromQL reads
// back after a run is exactly the result's counts (streams' too), over workers and over segments; a failing
// endpoint changes nothing in the result but one warning.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import t, { type Test } from 'tap';
import { mergeResults, runLoad } from '../../src/index.js';
import { FINAL_FLUSH_MS } from '../../src/outputs/live.js';
import type { LoadOptions } from '../../src/shared/load-options.js';
import type { LoadResult, TimelineEntry } from '../../src/shared/load-result.js';
import { startPrometheus, type Prometheus } from '../fixtures/prometheus.js';
import { separateStreamServer } from '../fixtures/separate-stream-server.js';
import { socketIoServer } from '../fixtures/socketio-server.js';
import { startSubscriptionServer } from '../fixtures/subscription-server.js';
import { testServer } from '../fixtures/test-server.js';
import { inSomeRun } from '../fixtures/timing.js';

/** Every test of this file, against one Prometheus started for them all. */
function outputTests(prometheus: Prometheus): void {
  const output = (testid: string, extra: Record<string, unknown> = {}) => ({ type: 'prometheus' as const, url: prometheus.writeUrl, labels: { testid }, ...extra });
  /** `metric`'s last value for `testid`, summed over its other labels (segments, statuses). */
  const total = async (metric: string, testid: string) => prometheus.scalar(`sum(last_over_time(${metric}{testid="${testid}"}[1h]))`);
  /** `metric`'s last value per value of `label`. */
  async function byLabel(metric: string, testid: string, label: string): Promise<Record<string, number>> {
    const series = await prometheus.query(`sum by (${label}) (last_over_time(${metric}{testid="${testid}"}[1h]))`);
    return Object.fromEntries(series.map(({ metric: labels, value }) => [labels[label]!, value]));
  }
  const failures = (result: LoadResult) => result.warnings.filter(({ code }) => code === 'OUTPUT_FAILED');
  /** `metric` reads 0 half a second into the measured run, so `increase()` counts the whole first second. */
  async function zeroAtStart(t: Test, metric: string, testid: string, result: LoadResult): Promise<void> {
    t.equal(await prometheus.scalar(`${metric}{testid="${testid}"} @ ${(result.startedAt + 500) / 1000}`), 0, `${metric} is 0 at the start`);
    const counted = await prometheus.scalar(`last_over_time(${metric}{testid="${testid}"}[1h]) - ${metric}{testid="${testid}"} @ ${(result.startedAt + 500) / 1000}`);
    t.equal(counted, metric.includes('received') ? result.messages!.received : result.requests.sent, `${metric}: its last value less its first is the whole run`);
  }

  t.test('one thread: every counter in Prometheus equals the result exactly, and the seconds are live', async (t) => {
    const server = await testServer(t, { errorRate: 0.25 });
    const result = await runLoad({ url: server.url, connections: 4, duration: 2500, outputs: [output('one-thread')] });
    t.ok(result.requests.completed > 0 && result.statusCodes['500']! > 0, 'responses of two statuses');
    t.equal(await total('salvo_responses_total', 'one-thread'), result.requests.completed, 'sum of salvo_responses_total = requests.completed');
    t.same(await byLabel('salvo_responses_total', 'one-thread', 'status'), result.statusCodes, 'each status');
    t.equal(await total('salvo_requests_sent_total', 'one-thread'), result.requests.sent, 'salvo_requests_sent_total = requests.sent');
    t.equal(await total('salvo_requests_retried_total', 'one-thread'), result.requests.retried, 'salvo_requests_retried_total = requests.retried');
    t.equal(await total('salvo_requests_failed_total', 'one-thread'), result.failed.total, 'salvo_requests_failed_total = failed.total (the 500s)');
    t.ok(result.failed.total >= result.statusCodes['500']!, `failed ${result.failed.total}`);
    // The zero at the start, seconds 0 and 1 while it ran, the last part-second, and the final totals after it.
    t.equal(await prometheus.scalar('count_over_time(salvo_requests_sent_total{testid="one-thread"}[1h])'), 5, 'five samples');
    await zeroAtStart(t, 'salvo_requests_sent_total', 'one-thread', result);
    for (const status of Object.keys(result.statusCodes)) {
      t.equal(await prometheus.scalar(`min_over_time(salvo_responses_total{testid="one-thread",status="${status}"}[1h])`), 0, `salvo_responses_total{status="${status}"} starts at 0`);
    }
    t.equal(await prometheus.scalar('max_over_time(salvo_connections_open{testid="one-thread"}[1h])'), 4, 'salvo_connections_open');
    const quantiles = await byLabel('salvo_latency_seconds', 'one-thread', 'quantile');
    t.same(Object.keys(quantiles).sort(), ['0.5', '0.9', '0.99'], 'latency quantiles of the last second');
    t.ok(quantiles['0.5']! > 0 && quantiles['0.5']! <= quantiles['0.9']! && quantiles['0.9']! <= quantiles['0.99']!, 'in order, in seconds');
    t.ok((await prometheus.scalar('max_over_time(salvo_generator_cpu_ratio{testid="one-thread"}[1h])'))! > 0, 'salvo_generator_cpu_ratio');
    t.same(failures(result), []);
  });

  t.test('workers: the main thread sums the threads live, and the final totals are the merged result', async (t) => {
    const server = await testServer(t);
    const result = await runLoad({ url: server.url, connections: 4, workers: 2, rate: 200, duration: 2000, outputs: [output('workers')] });
    t.equal(result.workers, 2);
    t.equal(await total('salvo_responses_total', 'workers'), result.requests.completed);
    t.equal(await total('salvo_requests_sent_total', 'workers'), result.requests.sent);
    t.equal(await prometheus.scalar('max_over_time(salvo_target_rate_per_second{testid="workers"}[1h])'), 200, 'the target rate over both threads');
    t.equal(await prometheus.scalar('max_over_time(salvo_connections_open{testid="workers"}[1h])'), 4, 'connections over both threads');
    t.same(failures(result), []);
  });

  t.test('retries: requests sent again behind a Connection: close', async (t) => {
    const server = await testServer(t, { close: true });
    const result = await runLoad({ url: server.url, connections: 2, pipelining: 4, amount: 60, outputs: [output('retries')] });
    t.ok(result.requests.retried > 0, `${result.requests.retried} retried`);
    t.equal(await total('salvo_requests_retried_total', 'retries'), result.requests.retried);
    t.equal(await total('salvo_responses_total', 'retries'), result.requests.completed);
  });

  t.test('with monitor, the server series of each second', async (t) => {
    const server = await testServer(t);
    const result = await runLoad({ url: server.url, connections: 2, duration: 2200, monitor: { processes: [process.pid] }, outputs: [output('monitor')] });
    const seconds = result.timeline.filter((second) => second.server?.cpuPercent !== undefined).length;
    t.ok(seconds >= 2, `${seconds} seconds with the server's CPU`);
    const samples = await prometheus.scalar('count_over_time(salvo_server_cpu_ratio{testid="monitor"}[1h])');
    t.ok(samples !== undefined && samples >= 2 && samples <= seconds, `${samples} salvo_server_cpu_ratio samples, one per second the monitor read`);
    t.ok((await prometheus.scalar('max_over_time(salvo_server_memory_bytes{testid="monitor"}[1h])'))! > 1e6, 'salvo_server_memory_bytes');
  });

  t.test('errors by code', async (t) => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    closed.close();
    const result = await runLoad({ url: `http://127.0.0.1:${port}/`, connections: 2, duration: 1200, outputs: [output('errors')] });
    t.ok(result.errors.byCode['ECONNREFUSED']! > 0);
    t.same(await byLabel('salvo_errors_total', 'errors', 'code'), result.errors.byCode, 'salvo_errors_total{code}');
  });

  t.test('segments: summed by testid they are the merged result, live and at the end', async (t) => {
    const server = await testServer(t);
    const options: LoadOptions = { url: server.url, connections: 4, rate: 300, duration: 1500, startAt: Date.now() + 500 };
    // No testid given: segments with the same startAt generate the same one.
    const segments = await Promise.all(
      [0, 1].map((index) => runLoad({ ...options, segment: { index, count: 2 }, outputs: [{ type: 'prometheus', url: prometheus.writeUrl }] })),
    );
    const merged = mergeResults(segments);
    const testid = `salvo-${new Date(options.startAt as number).toISOString().replace(/[-:]|\.\d+/g, '')}`;
    t.same(Object.keys(await byLabel('salvo_requests_sent_total', testid, 'segment')).sort(), ['0', '1'], 'one series per segment');
    t.equal(await total('salvo_responses_total', testid), merged.requests.completed, 'sum by testid = the merged result');
    t.equal(await total('salvo_requests_sent_total', testid), merged.requests.sent);
    const live = await prometheus.query(`sum by (testid) (salvo_requests_sent_total{testid="${testid}"} @ ${(merged.startedAt + 1500) / 1000})`);
    t.ok(live[0] !== undefined && live[0].value > 0 && live[0].value <= merged.requests.sent, 'a live sum while it ran');
  });

  t.test('WebSocket runs count messages', async (t) => {
    const server = await testServer(t, { websocket: true });
    const result = await runLoad({ url: server.url, connections: 2, duration: 1200, websocket: { message: 'ping' }, outputs: [output('websocket')] });
    t.ok(result.messages!.received > 0);
    t.equal(await total('salvo_messages_sent_total', 'websocket'), result.messages!.sent);
    t.equal(await total('salvo_messages_received_total', 'websocket'), result.messages!.received);
    t.equal(await total('salvo_requests_sent_total', 'websocket'), undefined, 'no request series');
    await zeroAtStart(t, 'salvo_messages_received_total', 'websocket', result);
  });

  t.test('Socket.IO runs count messages (emits and acks), as the server counted them', async (t) => {
    const server = await socketIoServer(t);
    const result = await runLoad({ url: server.url, connections: 3, duration: 1500, socketio: { emit: { event: 'echo', data: 'x' }, ack: true }, outputs: [output('socketio')] });
    t.ok(result.messages!.sent > 0 && server.stats.echoes >= result.messages!.sent, `${result.messages!.sent} emits, ${server.stats.echoes} at the server`);
    t.equal(await total('salvo_messages_sent_total', 'socketio'), result.messages!.sent, 'salvo_messages_sent_total = messages.sent');
    t.equal(await total('salvo_messages_received_total', 'socketio'), result.messages!.received, 'salvo_messages_received_total = messages.received');
    t.equal(await total('salvo_responses_total', 'socketio'), undefined, 'no response series (the handshakes are not the load)');
    t.equal(await total('salvo_requests_sent_total', 'socketio'), undefined, 'no request series');
    await zeroAtStart(t, 'salvo_messages_received_total', 'socketio', result);
  });

  t.test('streamed runs: events, streams and tokens equal result.stream, and each second\'s first-event and TTFT quantiles are its timeline\'s', async (t) => {
    const server = await separateStreamServer(t, { format: 'sse', delayMs: 20, intervalMs: 5, events: 6 });
    const stream = { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' } as const;
    const result = await runLoad({ url: server.url, connections: 3, duration: 2500, stream, outputs: [output('stream')] });
    const figures = result.stream!;
    t.ok(figures.streams > 20 && figures.outputTokens! > figures.streams, `${figures.streams} streams, ${figures.events} events, ${figures.outputTokens} tokens`);
    t.equal(await total('salvo_stream_events_total', 'stream'), figures.events, 'salvo_stream_events_total = stream.events');
    t.equal(await total('salvo_streams_total', 'stream'), figures.streams, 'salvo_streams_total = stream.streams');
    t.equal(await total('salvo_stream_output_tokens_total', 'stream'), figures.outputTokens, 'salvo_stream_output_tokens_total = stream.outputTokens');
    const startedAt = `@ ${(result.startedAt + 500) / 1000}`;
    t.equal(await prometheus.scalar(`salvo_stream_output_tokens_total{testid="stream"} ${startedAt}`), 0, 'the token counter is 0 at the start');
    const live = await prometheus.scalar(`salvo_stream_events_total{testid="stream"} @ ${(result.startedAt + 2000) / 1000}`);
    t.ok(live !== undefined && live > 0 && live < figures.events, `${live} events counted two seconds into the 2.5 s run (a second's sample may come late on a busy host)`);
    // The same histograms of the same seconds, live and in the result: the same quantiles, second by second.
    for (const [series, p99] of [
      ['salvo_stream_first_event_seconds', (second: TimelineEntry) => second.stream!.firstEventP99],
      ['salvo_stream_ttft_seconds', (second: TimelineEntry) => second.stream!.ttftP99!],
    ] as const) {
      const seconds = result.timeline.map(p99).filter((ms) => ms > 0);
      const selector = `${series}{testid="stream",quantile="0.99"}[1h]`;
      t.equal(await prometheus.scalar(`count_over_time(${selector})`), seconds.length, `${series}: one p99 a second that timed one`);
      const sum = seconds.reduce((a, b) => a + b, 0) / 1000;
      t.ok(Math.abs((await prometheus.scalar(`sum_over_time(${selector})`))! - sum) < 1e-9, `${series}: each second's p99 is the timeline's (sum ${sum} s)`);
    }
    t.ok((await prometheus.scalar('min_over_time(salvo_stream_first_event_seconds{testid="stream",quantile="0.5"}[1h])'))! >= 0.019, 'no first event before the server\'s 20 ms delay (less the ms its timer may fire early)');
    for (const series of ['salvo_stream_gap_seconds', 'salvo_stream_itl_seconds']) {
      const quantiles = await byLabel(series, 'stream', 'quantile');
      t.ok(quantiles['0.5']! > 0 && quantiles['0.5']! <= quantiles['0.9']! && quantiles['0.9']! <= quantiles['0.99']!, `${series}: 0.5, 0.9 and 0.99 in order, in seconds`);
    }
    // Over workers, the main thread sums the threads' seconds live; the totals at the end are the merged result's.
    const split = await runLoad({ url: server.url, connections: 3, workers: 2, duration: 1500, stream: { format: 'sse' }, outputs: [output('stream-workers')] });
    t.equal(await total('salvo_stream_events_total', 'stream-workers'), split.stream!.events);
    t.equal(await total('salvo_streams_total', 'stream-workers'), split.stream!.streams);
    t.equal(await total('salvo_stream_output_tokens_total', 'stream-workers'), undefined, 'no token series without tokens');
    t.equal(await total('salvo_stream_ttft_seconds', 'stream-workers'), undefined);
    t.ok((await prometheus.scalar('count_over_time(salvo_stream_gap_seconds{testid="stream-workers",quantile="0.99"}[1h])'))! >= 1, 'gap quantiles merged over the threads');
    t.equal(await total('salvo_stream_events_total', 'one-thread'), undefined, 'no stream series in a run without stream');
  });

  t.test('SSE subscriptions: the events counted live and exactly at the end, and each second\'s delivery quantiles', async (t) => {
    const sse = await startSubscriptionServer({ events: 1000, intervalMs: 20, delayMs: 5 });
    t.teardown(() => sse.close());
    const result = await runLoad({ url: `${sse.url}/feed`, connections: 3, duration: 2500, stream: { format: 'sse', subscribe: true, timestamp: { field: 't' } }, outputs: [output('subscriptions')] });
    const events = result.stream!.events;
    t.ok(events > 150, `${events} events`);
    t.equal(await total('salvo_stream_events_total', 'subscriptions'), events, 'salvo_stream_events_total = stream.events');
    const live = await prometheus.scalar(`salvo_stream_events_total{testid="subscriptions"} @ ${(result.startedAt + 2000) / 1000}`);
    t.ok(live !== undefined && live > 0 && live < events, `${live} events two seconds into the 2.5 s run`);
    const delivery = await byLabel('salvo_stream_delivery_seconds', 'subscriptions', 'quantile');
    t.same(Object.keys(delivery).sort(), ['0.5', '0.9', '0.99']);
    // The server stamps each event 5 ms before it writes it.
    t.ok((await prometheus.scalar('min_over_time(salvo_stream_delivery_seconds{testid="subscriptions",quantile="0.5"}[1h])'))! >= 0.004, 'delivery p50 of each second: at least the 5 ms the server held each event (less its clock\'s ms)');
    t.ok(delivery['0.5']! <= delivery['0.99']!, 'in order');
  });

  t.test('Prometheus down (refused at once): the run ends as without the output, one warning', async (t) => {
    const server = await testServer(t);
    const url = `http://127.0.0.1:${await closedPort()}/api/v1/write`;
    await inSomeRun(t, 3, async (timing) => {
      const started = performance.now();
      const result = await runLoad({ url: server.url, connections: 2, duration: 2000, outputs: [{ type: 'prometheus', url }] });
      const elapsedMs = performance.now() - started;
      t.match(failures(result)[0]?.message, /ECONNREFUSED.*final totals/, 'OUTPUT_FAILED says the totals were not written');
      timing.ok(elapsedMs < 2000 + 400, `a 2000 ms run ended ${Math.round(elapsedMs)} ms after it began: one try at the end, no retries until the ${FINAL_FLUSH_MS} ms bound`);
    });
  });

  t.test('an endpoint that refuses, fails or hangs leaves the result as without it, with one warning', async (t) => {
    const server = await testServer(t);
    // About 2 s at 100/s, with every second's write failing; `amount` makes the counts exact.
    const options: LoadOptions = { url: server.url, connections: 2, rate: 100, amount: 200 };
    const counts = ({ requests, statusCodes, errors }: LoadResult) => ({ sent: requests.sent, completed: requests.completed, statusCodes, errors });
    const baseline = await runLoad(options);
    t.same(counts(baseline), { sent: 200, completed: 200, statusCodes: { 200: 200 }, errors: { total: 0, byCode: {} } });
    const refused = await endpoint(t, 503);
    const refusedUrl = refused.url.replace(/:\d+\//, `:${await closedPort()}/`);
    const failing = await endpoint(t, 500);
    const hanging = await endpoint(t, undefined);
    const rejecting = await endpoint(t, 400);
    await inSomeRun(t, 3, async (timing) => {
      const run = async (url: string) => {
        const started = performance.now();
        const result = await runLoad({ ...options, outputs: [{ type: 'prometheus', url }] });
        return { result, elapsedMs: performance.now() - started };
      };
      const rejectedBefore = rejecting.writes();
      const [a, b, c, d] = await Promise.all([run(refusedUrl), run(failing.url), run(hanging.url), run(rejecting.url)]);
      // A 400 is the samples' fault: each second is written once (or with the next), never again, and so are the totals.
      const rejectedWrites = rejecting.writes() - rejectedBefore;
      t.ok(rejectedWrites <= d.result.timeline.length + 1, `a rejected write is not retried (${rejectedWrites} writes, ${d.result.timeline.length} seconds)`);
      for (const [{ result, elapsedMs }, url, reason] of [
        [a, refusedUrl, /ECONNREFUSED/],
        [b, failing.url, /HTTP 500 "failing on purpose"/],
        [c, hanging.url, /not answered/],
        [d, rejecting.url, /HTTP 400/],
      ] as const) {
        t.same(counts(result), counts(baseline), `${reason}: the same counts as without the output`);
        const warnings = failures(result);
        t.equal(warnings.length, 1, `${reason}: one OUTPUT_FAILED`);
        t.match(warnings[0]?.message, reason);
        t.ok(warnings[0]?.message.includes(url), 'naming the output');
        timing.ok(elapsedMs < 2000 + FINAL_FLUSH_MS + 2000, `${reason}: ended ${Math.round(elapsedMs)} ms after it began (2000 ms run + at most ${FINAL_FLUSH_MS} ms of final flush)`);
      }
    });
    t.ok(failing.writes() >= 3, `the failing endpoint was retried (${failing.writes()} writes)`);
    // Closed by salvo when it gave up on the write (the server hears of it a moment later).
    await Promise.all([...hanging.sockets].map((socket) => (socket.destroyed ? undefined : once(socket, 'close'))));
    t.equal(hanging.sockets.size, 0, 'the hung write was abandoned: its connection is closed');
  });
}

const prometheus = await startPrometheus(t);
if (prometheus !== undefined) outputTests(prometheus);

/** An endpoint that answers every write with `status`, or never answers when `status` is undefined. */
async function endpoint(t: Test, status: number | undefined): Promise<{ url: string; writes: () => number; sockets: Set<Socket> }> {
  let writes = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    writes++;
    request.resume();
    if (status !== undefined) request.on('end', () => response.writeHead(status).end('failing on purpose'));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/write`, writes: () => writes, sockets };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
