import { once } from 'node:events';
import { createServer } from 'node:http';
import t from 'tap';
import { compareResults, formatResult, mergeResults, runLoad, SalvoOptionError, SalvoRangeError } from '../../src/index.js';
import { renderReport } from '../../src/report/index.js';
import { createTestServer } from '../../src/testing/index.js';
import type { LoadResult, ProgressEvent, ServerSeries } from '../../src/shared/load-result.js';
import { parseRunFlags } from '../../src/cli/run-flags.js';
import { cpuServer } from '../fixtures/cpu-server.js';
import { runSalvo } from '../fixtures/cli.js';
import { inSomeRun } from '../fixtures/timing.js';

const within = (actual: number, expected: number, share: number) => Math.abs(actual - expected) <= share * expected;
const seriesCpuMs = (series: ServerSeries) => series.seconds.reduce((sum, second) => sum + (second?.cpuMs ?? 0), 0);

t.test('bad monitor options name the option', async (t) => {
  const url = 'http://127.0.0.1:9/';
  await t.rejects(runLoad({ url, amount: 1, monitor: {} }), { name: 'SalvoOptionError', message: /monitor must name at least one source/ });
  await t.rejects(runLoad({ url, amount: 1, monitor: { processes: ['12'] as unknown as number[] } }), new SalvoOptionError('monitor.processes[0] must be a pid (an integer); got "12"', { option: 'monitor.processes[0]', value: '12' }));
  await t.rejects(runLoad({ url, amount: 1, monitor: { processes: [0] } }), new SalvoRangeError('monitor.processes[0] must be a pid above 0; got 0', { option: 'monitor.processes[0]', value: 0 }));
  await t.rejects(runLoad({ url, amount: 1, monitor: { prometheus: ['ftp://x/metrics'] } }), { message: /monitor.prometheus\[0\] must be an http: or https: metrics URL; got "ftp:\/\/x\/metrics"/ });
  await t.rejects(runLoad({ url, amount: 1, monitor: { prometheus: [{ url: 'http://127.0.0.1:9100/', devices: 'lo' as unknown as string[] }] } }), { message: /monitor.prometheus\[0\].devices must be a non-empty list/ });
  await t.rejects(runLoad({ url, amount: 1, monitor: { pids: [1] } as never }), { message: /unknown option "monitor.pids"/ });
  await t.rejects(runLoad({ url, amount: 1, thresholds: { 'server.cpuPerReq': '< 1' } }), { message: /thresholds\['server.cpuPerReq'\] names an unknown metric/ });
  await t.rejects(runLoad({ url, amount: 1, thresholds: { 'server.cpuPerRequest': '< 1' } }), { message: `thresholds['server.cpuPerRequest']: the metric is 'server.cpuPerRequestMs' since 1.0` });
});

t.test('a child server burning 1 ms per request: CPU and CPU per request agree with what its own process measured', async (t) => {
  const server = await cpuServer(t, 1);
  await inSomeRun(t, 3, async (timing) => {
    const before = await server.usage();
    const result = await runLoad({ url: server.url, rate: 200, connections: 8, duration: '3s', monitor: { processes: [server.pid] } });
    const after = await server.usage();
    const requests = after.requests - before.requests;
    const osCpuMs = after.cpuMs - before.cpuMs;
    t.ok(requests >= result.requests.completed && requests <= result.requests.completed + 8, `the server served the ${result.requests.completed} completed requests and at most the 8 in flight at the end (${requests})`);
    t.equal(result.timeline.length, 3);
    t.same(result.server!.sources.map((s) => [s.source, s.scope, s.answered, s.seconds]), [[`pid ${server.pid}`, 'process', true, 3]], 'one process source, answering all 3 seconds');
    t.ok(result.timeline.every((entry) => typeof entry.server?.cpuPercent === 'number' && typeof entry.server.rssBytes === 'number'), 'every second has the server\'s CPU and RSS');
    t.equal(result.server!.machine, undefined, 'a process gives no machine figures: absent, not zero');
    t.ok(result.server!.memory!.peakRssBytes >= result.server!.memory!.rssBytes && result.server!.memory!.rssBytes > 10e6, 'RSS of a Node process, peak at least the mean');
    t.notOk(result.warnings.some((w) => w.code === 'MONITOR_UNAVAILABLE'));
    const report = renderReport(result);
    t.ok(report.includes('"id":"chart-server-cpu"') && !report.includes('chart-server-network'), 'the report charts the server\'s CPU; no network chart without network figures');
    t.match(formatResult(result), /Server {2,}CPU \d+% of a core, \d\.\d{3} ms CPU per request, RSS [\d.]+ MB \(peak [\d.]+ MB\)/);
    const monitorCpuMs = result.server!.cpuPerRequestMs! * result.requests.completed;
    timing.ok(within(monitorCpuMs, osCpuMs, 0.1), `server CPU ${monitorCpuMs.toFixed(0)} ms by the monitor, ${osCpuMs.toFixed(0)} ms by the process itself`);
    timing.ok(within(result.server!.cpuPerRequestMs!, osCpuMs / requests, 0.1), `cpuPerRequestMs ${result.server!.cpuPerRequestMs!.toFixed(3)} ms against ${(osCpuMs / requests).toFixed(3)} ms`);
    timing.ok(within(result.server!.cpuPercent!, (osCpuMs / result.durationMs) * 100, 0.1), `cpuPercent ${result.server!.cpuPercent!.toFixed(1)} against ${((osCpuMs / result.durationMs) * 100).toFixed(1)}`);
    timing.ok(result.server!.cpuPerRequestMs! >= 0.95, 'at least the 1 ms it burns per request');
  });
});

t.test('one process through two sources (its pid and its prom-client page) is counted once; two processes are two', async (t) => {
  const server = await cpuServer(t, 1);
  const other = await cpuServer(t, 0);
  const page = new URL('/metrics', server.url).href;
  await inSomeRun(t, 3, async (timing) => {
    const before = await server.usage();
    const result = await runLoad({ url: server.url, rate: 150, connections: 8, duration: '3s', monitor: { processes: [server.pid, other.pid], prometheus: [page] } });
    const after = await server.usage();
    const osCpuMs = after.cpuMs - before.cpuMs;
    const otherCpuMs = result.merge.server!.find((s) => s.source === `pid ${other.pid}`)!.seconds.reduce((sum, second) => sum + (second?.cpuMs ?? 0), 0);
    t.same(result.server!.sources.map((s) => [s.source, s.scope, s.sameProcessAs]), [[`pid ${server.pid}`, 'process', page], [`pid ${other.pid}`, 'process', undefined], [page, 'process', undefined]], 'the pid is the page\'s process; the other pid is not');
    t.match(formatResult(result), new RegExp(`pid ${server.pid} is ${page}'s process, counted once`));
    const cpuMs = (result.server!.cpuPercent! / 100) * result.durationMs;
    timing.ok(within(cpuMs - otherCpuMs, osCpuMs, 0.1), `server CPU ${cpuMs.toFixed(0)} ms, less the other process's ${otherCpuMs.toFixed(0)} ms, against ${osCpuMs.toFixed(0)} ms by the process itself (twice that if counted twice)`);
    timing.ok(within(result.server!.memory!.rssBytes, result.server!.sources[0]!.rssBytes! + result.server!.sources[1]!.rssBytes!, 0.1), 'memory: the two processes, not three');
  });
});

t.test('a busy process watched by pid and by its prom-client page (which counts CPU from its registration) is counted once', async (t) => {
  // 0.5 ms of CPU per request at 300/s, and 150 ms of CPU spent before prom-client's counter started.
  const server = await cpuServer(t, 0.5, 150);
  const page = new URL('/metrics', server.url).href;
  await inSomeRun(t, 3, async (timing) => {
    const before = await server.usage();
    const result = await runLoad({ url: server.url, rate: 300, connections: 8, duration: '3s', monitor: { processes: [server.pid], prometheus: [page] } });
    const after = await server.usage();
    t.same(result.server!.sources.map((s) => [s.source, s.sameProcessAs]), [[`pid ${server.pid}`, page], [page, undefined]], 'the pid is the page\'s process');
    const osCpuMs = after.cpuMs - before.cpuMs;
    const cpuMs = (result.server!.cpuPercent! / 100) * result.durationMs;
    timing.ok(within(cpuMs, osCpuMs, 0.15), `server CPU ${cpuMs.toFixed(0)} ms against ${osCpuMs.toFixed(0)} ms by the process itself (twice that if counted twice)`);
  });
});

t.test('a pid that exits mid-run: MONITOR_UNAVAILABLE names it, the run goes on and ends on time', async (t) => {
  const server = await cpuServer(t, 0);
  // Exits once the monitor has read its first second (progress events wait for that reading).
  let exited: Promise<void> | undefined;
  const events: ProgressEvent[] = [];
  const result = await runLoad({
    url: server.url, rate: 100, connections: 4, duration: '3s', monitor: { processes: [server.pid] },
    onProgress: (event) => {
      events.push(event);
      if (event.second === 0) exited = server.exit();
    },
  });
  await exited;
  t.same(events.map((event) => event.second), [0, 1, 2], 'every second reported once, in order, before runLoad resolved');
  t.same(events[0]!.server, result.timeline[0]!.server, "the first progress event carries that second's server, as the timeline has it");
  t.equal(events[2]!.server, undefined, 'the last, after the process died, has none');
  t.equal(result.durationMs, 3000, 'the run ended on time');
  const warning = result.warnings.find((w) => w.code === 'MONITOR_UNAVAILABLE');
  t.match(warning?.message, new RegExp(`pid ${server.pid} stopped answering at second [12] \\(`), 'the warning names the source and when');
  const [source] = result.server!.sources;
  t.equal(source!.answered, false);
  t.match(source!.error, /exited|no process/);
  t.ok(source!.seconds >= 1 && source!.seconds <= 2, `it answered ${source!.seconds} of 3 seconds`);
  t.ok(typeof result.timeline[0]!.server?.cpuPercent === 'number', 'the first second, before it died, has its CPU');
  t.equal(result.timeline[2]!.server, undefined, 'the last second, after it died: no server figures');
  t.ok(result.errors.total > 0, 'the load went on against the dead server: errors counted, nothing thrown');
  t.match(formatResult(result), /Server {2,}CPU .*not always answering: pid \d+/);
});

t.test('a Prometheus endpoint that stops answering, and one that never answers in time: warned, never waited on', async (t) => {
  const target = await createTestServer();
  t.teardown(() => target.close());
  let cpuSeconds = 0;
  let scrapes = 0;
  const app = createServer((_, response) => {
    cpuSeconds += 0.05;
    // Gone after its second scrape: it answered for the run's first second only.
    if (++scrapes === 2) response.on('finish', () => {
      app.closeAllConnections();
      app.close();
    });
    response.end(`# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total ${cpuSeconds}\nprocess_resident_memory_bytes 5e7\nnodejs_eventloop_lag_p99_seconds 0.012\n`);
  });
  const silent = createServer(() => {}); // takes the request and never answers
  for (const server of [app, silent]) server.listen(0, '127.0.0.1');
  await Promise.all([once(app, 'listening'), once(silent, 'listening')]);
  t.teardown(() => {
    silent.closeAllConnections();
    silent.close();
  });
  const appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}/metrics`;
  const silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/metrics`;
  const started = Date.now();
  const result = await runLoad({ url: target.url, rate: 50, connections: 2, duration: '3s', monitor: { prometheus: [appUrl, silentUrl] } });
  t.ok(Date.now() - started < 3000 + 2500, 'runLoad resolved without waiting on the silent endpoint beyond its 800 ms');
  t.equal(result.durationMs, 3000);
  const [appSource, silentSource] = result.server!.sources;
  t.equal(appSource!.scope, 'process', 'a prom-client page is a process');
  t.equal(appSource!.answered, false);
  t.equal(appSource!.seconds, 1, 'it answered for the first second');
  t.equal(appSource!.eventLoopLagMs, 12, 'its event-loop lag p99, ms');
  t.equal(silentSource!.seconds, 0);
  t.match(silentSource!.error, /no answer within 800 ms/);
  const warning = result.warnings.find((w) => w.code === 'MONITOR_UNAVAILABLE')!.message;
  t.match(warning, `${appUrl} stopped answering at second`);
  t.match(warning, `${silentUrl} never answered`);
  t.ok(within(result.timeline[0]!.server!.cpuPercent!, 5, 0.1), 'the app said 50 ms of CPU per scrape, a second apart: about 5%');
  t.equal(result.timeline[0]!.server?.rssBytes, 5e7);
});

t.test('thresholds and workers: server.* judged on the run, a monitor that gave nothing fails them, one monitor for two threads', async (t) => {
  const server = await cpuServer(t, 0.5);
  const result = await runLoad({
    url: server.url, rate: 100, connections: 4, duration: '2s', workers: 2,
    monitor: { processes: [server.pid] },
    thresholds: { 'server.cpuPerRequestMs': '< 0.2', 'server.cpuPercent': '< 1000', 'server.machine.network.sentBytesPerSecond': '< 1e12' },
  });
  t.equal(result.workers, 2);
  t.equal(result.server!.sources.length, 1, 'one source however many threads');
  t.equal(result.merge.server![0]!.seconds.length, result.timeline.length, 'one reading per timeline second');
  t.same(result.thresholds!.map((r) => [r.metric, r.passed]), [['server.cpuPerRequestMs', false], ['server.cpuPercent', true], ['server.machine.network.sentBytesPerSecond', false]], 'a 0.5 ms burn breaks < 0.2 ms; network, which no process gives, fails');
  t.equal(result.ok, false);
  t.match(formatResult(result), /server\.cpuPerRequestMs < 0\.2 +actual \d+\.\d{3} ms/);
});

t.test('mergeResults: segments that watched the same process count it once', async (t) => {
  const server = await cpuServer(t, 0.5);
  const startAt = Date.now() + 1500;
  const options = { url: server.url, rate: 100, connections: 4, duration: '2s', startAt, monitor: { processes: [server.pid] } };
  const results = await Promise.all([0, 1].map((index) => runLoad({ ...options, segment: { index, count: 2 } })));
  const merged = mergeResults(results);
  t.equal(merged.server!.sources.length, 1, 'one source');
  const first = results[0]!.merge.server![0]!;
  const cpuMs = merged.server!.cpuPerRequestMs! * merged.requests.completed;
  t.ok(Math.abs(cpuMs - seriesCpuMs(first)) < 1e-6, `the merged server CPU is the source's (${cpuMs.toFixed(1)} ms), not the sum of both segments' readings`);
  t.equal(merged.requests.completed, results[0]!.requests.completed + results[1]!.requests.completed);
});

t.test('a WebSocket run: CPU per received message, and per stage', async (t) => {
  const server = await createTestServer({ websocket: true });
  t.teardown(() => server.close());
  const result = await runLoad({
    url: server.url, stages: [{ duration: '1s', connections: 2 }, { duration: '2s', connections: 4 }],
    websocket: { message: 'hi', rate: 50 }, monitor: { processes: [server.pid] },
  });
  const cpuMs = seriesCpuMs(result.merge.server![0]!);
  t.ok(result.messages!.received > 0);
  t.ok(Math.abs(result.server!.cpuPerRequestMs! * result.messages!.received - cpuMs) < 1e-6, 'cpuPerRequestMs is the CPU per received message');
  const stages = result.websocket!.stages!;
  t.equal(stages.length, 2);
  t.ok(stages.every((stage) => typeof stage.server?.cpuPercent === 'number' && typeof stage.server.cpuPerRequestMs === 'number'), 'each stage has its server CPU');
  t.match(formatResult(result), /ms CPU per message/);
});

t.test('the salvo command: --monitor-pid and --monitor-url make the monitor option; the JSON result and the summary carry the server', async (t) => {
  const url = 'http://127.0.0.1:3000/';
  t.same(parseRunFlags([url, '--monitor-pid', '12', '--monitor-pid', '34', '--monitor-url', 'http://127.0.0.1:9100/metrics']).options.monitor, {
    processes: [12, 34],
    prometheus: ['http://127.0.0.1:9100/metrics'],
  });
  t.equal(parseRunFlags([url]).options.monitor, undefined, 'none without the flags');
  const server = await cpuServer(t, 0.2);
  const json = await runSalvo([server.url, '-R', '50', '-d', '2s', '--monitor-pid', String(server.pid), '--json']);
  t.equal(json.code, 0);
  const result = JSON.parse(json.stdout) as { server: { sources: Array<{ source: string; answered: boolean }>; cpuPerRequestMs: number } };
  t.same(result.server.sources.map((s) => [s.source, s.answered]), [[`pid ${server.pid}`, true]]);
  t.ok(result.server.cpuPerRequestMs > 0);
  const bad = await runSalvo([server.url, '-a', '1', '--monitor-pid', 'x']);
  t.equal(bad.code, 2, 'a bad pid is a usage error');
  t.match(bad.stderr, /monitor.processes\[0\] must be a pid/);
});

t.test('compareResults: server.cpuPerRequestMs is compared, with its confidence, when every run has it', async (t) => {
  const run = (perSecond: number, cpuPerRequestMs?: number) => ({
    requests: { perSecond, completed: perSecond * 3 }, latency: { p50: 1, p90: 2, p99: 3 }, errors: { total: 0 },
    ...(cpuPerRequestMs === undefined ? {} : { server: { cpuPerRequestMs, sources: [] } }),
  }) as unknown as LoadResult;
  const comparison = compareResults([run(1000, 0.2), run(1900, 0.21), run(1400, 0.2)], [run(1500, 0.3), run(900, 0.31), run(1800, 0.3)]);
  const row = comparison.rows.find((r) => r.metric === 'server.cpuPerRequestMs')!;
  t.equal(row.higherIsBetter, false);
  t.ok(row.improvement < -0.4, 'the candidate spends about half as much again per request');
  t.equal(row.confidence, '***', 'a clear difference where requests/s, all over the place, shows none');
  t.equal(comparison.rows.find((r) => r.metric === 'requests.perSecond')!.confidence, '');
  t.notOk(compareResults([run(1), run(2)], [run(1), run(2)]).rows.some((r) => r.metric === 'server.cpuPerRequestMs'), 'not a default without monitor');
});
