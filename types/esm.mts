// A consumer's ESM code, compiled against the built package (dist/*.d.ts) through its exports map.
import { runLoad, formatResult, renderReport, assertThresholds, mergeResults, SalvoOptionError, compareResults, assertNoRegression, formatComparison, type Comparison, type GeneratorStats, type LoadOptions, type LoadResult } from 'salvo';
import { createTestServer, type TestServer } from 'salvo/testing';

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
const code: string = new SalvoOptionError('x').code;
console.log(formatResult(result), p99, code, result.timeline[0]?.p50);
const generator: GeneratorStats = result.generator;
const lagP99: number | undefined = generator.sendLag?.p99;
console.log(generator.saturated, lagP99, result.timeline[0]?.cpuPercent, result.warnings.map((w) => w.code));
assertThresholds(result);
const comparison: Comparison = compareResults([result, result], [result, result], { metrics: ['latency.p99'] });
const stars: '' | '*' | '**' | '***' = comparison.rows[0]!.confidence;
console.log(formatComparison(comparison), stars);
assertNoRegression(comparison, { 'latency.p99': '5%' }, { confidence: '**' });
const html: string = renderReport(result);
console.log(html.length);
const merged: LoadResult = mergeResults([result], { force: true, thresholds: { 'latency.p99': '< 60' } });
const startedAt: number = merged.startedAt;
const segmentCount: number | undefined = result.merge.segment?.count;
console.log(startedAt, segmentCount);
await runLoad({ url: server.url, amount: 10, segment: { index: 0, count: 1 }, startAt: new Date() });
await server.close();

// @ts-expect-error: transport names are checked
await runLoad({ url: server.url, transport: 'curl' });
// @ts-expect-error: url is required
await runLoad({ connections: 1 });
