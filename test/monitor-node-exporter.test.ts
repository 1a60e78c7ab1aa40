import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import { renderReport, runLoad } from '../src/index.js';
import { createTestServer } from '../src/testing/index.js';
import { NODE_EXPORTER, nodeExporter } from './fixtures/node-exporter.js';
import { inSomeRun } from './fixtures/timing.js';

const within = (actual: number, expected: number, share: number) => Math.abs(actual - expected) <= share * expected;

/** Busy CPU seconds of the machine over all cores, from /proc/stat (USER_HZ ticks), read apart from node_exporter. */
function busySeconds(): number {
  const fields = readFileSync('/proc/stat', 'latin1').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq] = fields as [number, number, number, number, number, number, number];
  return (user + nice + system + irq + softirq) / 100;
}

t.test('node_exporter: machine CPU agrees with /proc/stat, loopback bytes with what the run sent and received', { skip: existsSync(NODE_EXPORTER) ? false : `${NODE_EXPORTER} is not installed (.ci/run installs it)` }, async (t) => {
  const metrics = await nodeExporter(t);
  // Large responses: each exchange's TCP/IP headers (tens of bytes a packet) are under 1% of its bytes, and
  // the run's 26 MB/s outweighs what other work on a shared host sends over lo.
  const server = await createTestServer({ bodySize: 65_536 });
  t.teardown(() => server.close());
  await inSomeRun(t, 3, async (timing) => {
    const busyBefore = busySeconds();
    const startedAt = performance.now();
    const result = await runLoad({ url: server.url, rate: 400, connections: 8, duration: '3s', monitor: { prometheus: [{ url: metrics, devices: ['lo'] }] } });
    const busyPercent = ((busySeconds() - busyBefore) / ((performance.now() - startedAt) / 1000)) * 100;
    const [source] = result.server!.sources;
    t.same([source!.scope, source!.answered, source!.seconds], ['machine', true, 3], 'node_exporter is the machine, answering all 3 seconds');
    t.ok(result.server!.memory!.rssBytes > 0, 'memory in use');
    t.equal(result.server!.cores, readFileSync('/proc/stat', 'latin1').split('\n').filter((line) => /^cpu\d/.test(line)).length, 'out of every core of the machine');
    const report = renderReport(result);
    t.ok(report.includes('"id":"chart-server-cpu"') && report.includes('"id":"chart-server-network"'), 'the report charts the server\'s CPU and network');
    t.equal(result.server!.cpuPerRequest! > 0, true);
    t.ok(result.timeline.every((entry) => entry.server?.receivedBytesPerSecond !== undefined && entry.server.sentBytesPerSecond !== undefined), 'network bytes every second');
    // lo carries each byte once each way: what it received is what salvo sent plus what the server sent back.
    const loBytes = (result.server!.network!.receivedBytesPerSecond * result.durationMs) / 1000;
    const salvoBytes = result.bytes.sent + result.bytes.received;
    timing.ok(within(loBytes, salvoBytes, 0.1), `lo received ${(loBytes / 1e6).toFixed(2)} MB, the run sent and received ${(salvoBytes / 1e6).toFixed(2)} MB`);
    timing.ok(within(result.server!.network!.sentBytesPerSecond, result.server!.network!.receivedBytesPerSecond, 0.01), 'lo sent what it received');
    timing.ok(within(result.server!.cpuPercent!, busyPercent, 0.1), `machine CPU ${result.server!.cpuPercent!.toFixed(0)}% against ${busyPercent.toFixed(0)}% from /proc/stat`);
  });
});
