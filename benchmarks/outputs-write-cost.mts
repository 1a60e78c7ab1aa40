// What one second of a Prometheus output costs the main thread, apart from the run: the series of
// one second (a few status and error codes) encoded, snappy-compressed and POSTed to a real
// Prometheus, `--writes` times in a row; CPU of this process per write. Imports salvo's sources:
//   node --import tsx benchmarks/outputs-write-cost.mts [--writes 300]
// (at the repository root; needs Debian's `prometheus` on PATH).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import snappy from 'snappyjs';
import { PrometheusWriter } from '../src/outputs/prometheus.js';
import { encodeWriteRequest } from '../src/outputs/remote-write.js';
import { secondPoints } from '../src/outputs/series.js';
import { freePort } from './lib/targets.mjs';

const { values } = parseArgs({ options: { writes: { type: 'string', default: '300' } } });
const writes = Number(values.writes);
const dir = await mkdtemp(join(tmpdir(), 'salvo-write-cost-'));
await writeFile(join(dir, 'prometheus.yml'), 'scrape_configs: []\n');
const port = await freePort();
const prometheus = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--web.enable-remote-write-receiver', '--log.level=error'], { stdio: 'ignore' });
while (!(await fetch(`http://127.0.0.1:${port}/-/ready`).then((r) => r.ok, () => false))) await sleep(100);

const summary = { second: 0, sent: 1000, completed: 1000, errors: 3, p50: 1.2, p90: 2.3, p99: 5.5, connections: 10, targetRate: 1000, cpuPercent: 30, eventLoopUtilization: 0.3 };
const totals = (i: number) => ({ sent: 1000 * i, completed: 1000 * i, errors: i, statusCodes: { 200: 990 * i, 500: 10 * i }, errorsByCode: { TIMEOUT: i, ECONNRESET: i } });
const kind = { webSocket: false };

const cpuMs = (from: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1000;
};
/** CPU µs per call of `fn`, after a warm-up. */
function perCall(fn: () => unknown, calls = 3000): number {
  for (let i = 0; i < 500; i++) fn();
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) fn();
  return (cpuMs(before) * 1000) / calls;
}
const points = secondPoints(kind, summary, totals(1));
const series = points.map((point) => ({
  labels: [['__name__', point.name], ...(point.label ? [point.label] : []), ['testid', 'cost']] as Array<readonly [string, string]>,
  samples: [{ value: point.value, timestampMs: 1_700_000_000_000 }],
}));
const body = encodeWriteRequest(series);
const parts = {
  'the series of a second': perCall(() => secondPoints(kind, summary, totals(1))),
  'protobuf encoding': perCall(() => encodeWriteRequest(series)),
  snappy: perCall(() => snappy.compress(body)),
};

// The writer end to end, one second per writer (each its own connection): encode, POST, answer, close.
const base = Date.now() - 60_000;
const writerMs: number[] = [];
for (let i = 1; i <= writes; i++) {
  const writer = new PrometheusWriter({ type: 'prometheus', url: `http://127.0.0.1:${port}/api/v1/write`, labels: {}, headers: {} }, { testid: `cost-${i}` }, snappy.compress);
  const before = process.cpuUsage();
  writer.push(base, secondPoints(kind, summary, totals(i)));
  await writer.close(Date.now() + 5000);
  writerMs.push(cpuMs(before));
  if (writer.failure() !== undefined) throw new Error(writer.failure());
}
writerMs.sort((a, b) => a - b);
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`one second: ${series.length} series, ${body.length} bytes, ${snappy.compress(body).length} compressed`);
for (const [part, us] of Object.entries(parts)) console.log(`  ${part}: ${us.toFixed(1)} µs CPU`);
console.log(`one write end to end (a new connection each, encode, POST, answer): median ${writerMs[writerMs.length >> 1]!.toFixed(3)} ms CPU, p90 ${writerMs[Math.floor(writerMs.length * 0.9)]!.toFixed(3)} ms`);
prometheus.kill('SIGTERM');
await sleep(300);
await rm(dir, { recursive: true, force: true });
