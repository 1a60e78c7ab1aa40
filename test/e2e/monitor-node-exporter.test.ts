import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { formatResult, runLoad } from '../../src/index.js';
import { renderReport } from '../../src/report/index.js';
import { createTestServer } from '../../src/testing/index.js';
import { NODE_EXPORTER, nodeExporter } from '../fixtures/node-exporter.js';
import { inSomeRun } from '../fixtures/timing.js';

const within = (actual: number, expected: number, share: number) => Math.abs(actual - expected) <= share * expected;

/** Busy CPU seconds of the machine over all cores, from /proc/stat (USER_HZ ticks), read apart from node_exporter. */
function busySeconds(): number {
  const fields = readFileSync('/proc/stat', 'latin1').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq] = fields as [number, number, number, number, number, number, number];
  return (user + nice + system + irq + softirq) / 100;
}

/** Bytes lo has received since boot, from /proc/net/dev, read apart from node_exporter. */
function loReceivedBytes(): number {
  const line = readFileSync('/proc/net/dev', 'latin1').split('\n').find((row) => row.trim().startsWith('lo:'))!;
  return Number(line.split(':')[1]!.trim().split(/\s+/)[0]);
}

t.test('node_exporter: machine CPU agrees with /proc/stat, loopback bytes with what the run sent and received', { skip: existsSync(NODE_EXPORTER) ? false : `${NODE_EXPORTER} is not installed (.ci/run installs it)` }, async (t) => {
  const metrics = await nodeExporter(t);
  // Large responses: each exchange's TCP/IP headers (tens of bytes a packet) are under 1% of its bytes, and
  // the run's 131 MB/s outweighs what other work on a shared host sends over lo.
  const server = await createTestServer({ bodySize: 65_536 });
  t.teardown(() => server.close());
  await inSomeRun(t, 3, async (timing) => {
    // Other work on the host may use lo too: its rate over the second before the run is taken out.
    const quietFrom = loReceivedBytes();
    await sleep(1000);
    const backgroundPerSecond = loReceivedBytes() - quietFrom;
    // /proc/stat sampled through the run, so the machine's busy share is taken over the very seconds
    // the monitor reports (1 to the end), without the run's setup and teardown.
    const samples: Array<[atMs: number, busy: number]> = [];
    const sampler = setInterval(() => samples.push([Date.now(), busySeconds()]), 20);
    const result = await runLoad({ url: server.url, rate: 2000, connections: 8, duration: '3s', monitor: { prometheus: [{ url: metrics, devices: ['lo'] }] } });
    clearInterval(sampler);
    const nearest = (atMs: number) => samples.reduce((best, sample) => (Math.abs(sample[0] - atMs) < Math.abs(best[0] - atMs) ? sample : best));
    const [from, to] = [nearest(result.startedAt + 1000), nearest(result.startedAt + result.durationMs)];
    const busyPercent = ((to[1] - from[1]) / ((to[0] - from[0]) / 1000)) * 100;
    // A scrape that a stalled host kept past its second leaves that second without a reading (absent,
    // never zero): the host's doing, and this run is repeated.
    const everySecond = result.timeline.every((entry) => entry.server?.machine?.cpuPercent !== undefined);
    timing.hostKept(everySecond, 'node_exporter was read within every second');
    if (!everySecond) return;
    const laterSeconds = result.timeline.slice(1).map((entry) => entry.server!.machine!.cpuPercent!);
    const monitorPercent = laterSeconds.reduce((sum, value) => sum + value, 0) / laterSeconds.length;
    const [source] = result.server!.sources;
    t.same([source!.scope, source!.answered, source!.seconds], ['machine', true, 3], 'node_exporter is the machine, answering all 3 seconds');
    const machine = result.server!.machine!;
    t.same(Object.keys(result.server!).sort(), ['machine', 'sources'], 'the machine alone: no server process figures');
    t.ok(machine.memory!.usedBytes > 0, 'memory in use');
    t.equal(machine.cores, readFileSync('/proc/stat', 'latin1').split('\n').filter((line) => /^cpu\d/.test(line)).length, 'out of every core of the machine');
    const report = renderReport(result);
    t.ok(!report.includes('"id":"chart-server-cpu"') && report.includes('"id":"chart-machine-cpu"') && report.includes('"id":"chart-machine-network"'), 'the report charts the machine\'s CPU and network, no server CPU');
    t.match(formatResult(result), /^Machine {2,}CPU [\d.]+% of a core \(\d+ cores?\), memory in use/m);
    t.notMatch(formatResult(result), /^Server /m, 'nothing printed as the server');
    t.ok(result.timeline.every((entry) => entry.server?.machine?.receivedBytesPerSecond !== undefined && entry.server.machine.sentBytesPerSecond !== undefined), 'network bytes every second');
    // lo carries each byte once each way: what it received is what salvo sent plus what the server sent back.
    const loBytes = ((machine.network!.receivedBytesPerSecond - backgroundPerSecond) * result.durationMs) / 1000;
    const salvoBytes = result.bytes.sent + result.bytes.received;
    timing.hostKept(backgroundPerSecond * (result.durationMs / 1000) < 0.05 * salvoBytes, `other work sent ${(backgroundPerSecond / 1e6).toFixed(2)} MB/s over lo before the run`);
    timing.ok(within(loBytes, salvoBytes, 0.1), `lo received ${(loBytes / 1e6).toFixed(2)} MB, the run sent and received ${(salvoBytes / 1e6).toFixed(2)} MB`);
    timing.ok(within(machine.network!.sentBytesPerSecond, machine.network!.receivedBytesPerSecond, 0.01), 'lo sent what it received');
    timing.ok(within(monitorPercent, busyPercent, 0.1), `machine CPU ${monitorPercent.toFixed(1)}% against ${busyPercent.toFixed(1)}% from /proc/stat over seconds 1-${result.timeline.length}`);
  });
});

t.test("the monitor's own scrapes are not the machine's network: gzip asked for, and the bytes it cannot avoid taken out", async (t) => {
  const target = await createTestServer();
  t.teardown(() => target.close());
  // An exporter whose lo carries nothing but its own scrapes, counted as lo counts them (each byte both
  // received and sent), with a 58 KB page as node_exporter's default collectors give.
  const sockets = new Set<Socket>();
  let closedBytes = 0;
  const encodings: string[] = [];
  const filler = Array.from({ length: 1200 }, (_, i) => `node_filler_metric{index="${i}",kind="padding"} ${i}.5`).join('\n');
  const exporter = createServer((request, response) => {
    encodings.push(request.headers['accept-encoding'] ?? '');
    const lo = closedBytes + [...sockets].reduce((sum, socket) => sum + socket.bytesRead + socket.bytesWritten, 0);
    const page = `node_cpu_seconds_total{cpu="0",mode="user"} 1\nnode_cpu_seconds_total{cpu="0",mode="idle"} 1\n` +
      `node_network_receive_bytes_total{device="lo"} ${lo}\nnode_network_transmit_bytes_total{device="lo"} ${lo}\n${filler}\n`;
    if (request.headers['accept-encoding']?.includes('gzip')) response.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(page));
    else response.end(page);
  });
  exporter.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      closedBytes += socket.bytesRead + socket.bytesWritten;
    });
  });
  exporter.listen(0, '127.0.0.1');
  await once(exporter, 'listening');
  t.teardown(() => {
    exporter.closeAllConnections();
    exporter.close();
  });
  const url = `http://127.0.0.1:${(exporter.address() as AddressInfo).port}/metrics`;
  const result = await runLoad({ url: target.url, rate: 20, connections: 1, duration: '3s', monitor: { prometheus: [{ url, devices: ['lo'] }] } });
  t.ok(encodings.length >= 4 && encodings.every((encoding) => encoding.includes('gzip')), `every scrape asked for gzip (${encodings.length} scrapes)`);
  t.same(result.server!.machine!.network, { receivedBytesPerSecond: 0, sentBytesPerSecond: 0 }, 'no traffic but the scrapes: none reported');
  t.ok(result.timeline.every((entry) => entry.server?.machine?.receivedBytesPerSecond === 0), 'in every second');
  t.ok(gzipSync(filler).length * 5 < filler.length, 'the page is several times smaller gzipped');
});
