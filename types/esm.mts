// A consumer's ESM code, compiled against the built package (dist/*.d.ts) through its exports map.
import { runLoad, formatResult, assertThresholds, SalvoOptionError, type LoadOptions, type LoadResult } from 'salvo';
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
assertThresholds(result);
await server.close();

// @ts-expect-error: transport names are checked
await runLoad({ url: server.url, transport: 'curl' });
// @ts-expect-error: url is required
await runLoad({ connections: 1 });
