// What the live page costs the main thread once a second while a page is open (issue 52): drawing
// the view of the seconds so far (the report's charts and cards) and its event's JSON, for runs of
// 60 s, 10 min and 1 h. Without a page nothing is drawn: a second is kept and its event written.
// Usage: node --import tsx benchmarks/live-view-cost.mts [--draws 50]
import { parseArgs } from 'node:util';
import { liveView } from '../src/live/view.js';
import type { ProgressEvent } from '../src/shared/load-result.js';

const { values: args } = parseArgs({ options: { draws: { type: 'string', default: '50' } } });
const draws = Number(args.draws);
const run = { url: 'http://127.0.0.1:3000/', kind: 'http' as const, transport: 'net' };

function second(n: number): ProgressEvent {
  return {
    second: n, sent: 20_000 + (n % 7), completed: 19_990 + (n % 5), errors: n % 3, retried: 0, p50: 0.4 + (n % 10) / 100,
    p99: 2.1 + (n % 13) / 10, connections: 100, targetRate: 20_000, cpuPercent: 80 + (n % 9), eventLoopUtilization: 0.8,
    totals: { sent: 20_000 * (n + 1), completed: 19_990 * (n + 1), errors: n, retried: 0 },
  };
}

console.log('| seconds so far | one view drawn (CPU) | its event | one second\'s event (no page) |');
console.log('|---|---|---|---|');
for (const length of [60, 600, 3600]) {
  const seconds = Array.from({ length }, (_, n) => second(n));
  let bytes = 0;
  for (let i = 0; i < 5; i++) liveView(run, seconds); // warm-up
  const before = process.cpuUsage();
  for (let i = 0; i < draws; i++) bytes = JSON.stringify(liveView(run, seconds)).length;
  const cpu = process.cpuUsage(before);
  const viewMs = (cpu.user + cpu.system) / 1000 / draws;
  const beforeSecond = process.cpuUsage();
  for (let i = 0; i < 10_000; i++) JSON.stringify(seconds[i % length]);
  const secondCpu = process.cpuUsage(beforeSecond);
  const secondUs = (secondCpu.user + secondCpu.system) / 10_000;
  console.log(`| ${length} | ${viewMs.toFixed(2)} ms | ${(bytes / 1000).toFixed(0)} kB | ${secondUs.toFixed(1)} µs |`);
}
