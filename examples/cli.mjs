#!/usr/bin/env node
// A tiny load-testing CLI around runLoad:
//   node examples/cli.mjs --url http://127.0.0.1:8080/ --connections 50 --duration 10s
// Without --url it starts a local test server and loads that. Exits 1 when a threshold fails.
import { parseArgs } from 'node:util';
import { formatResult, runLoad } from 'salvo';
import { createTestServer } from 'salvo/testing';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    connections: { type: 'string', default: '10' },
    duration: { type: 'string', default: '3s' },
    rate: { type: 'string' },
    transport: { type: 'string', default: 'net' },
    workers: { type: 'string', default: '1' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  console.log('usage: cli.mjs [--url URL] [--connections N] [--duration 10s] [--rate N] [--transport net|undici|http] [--workers N|auto]');
  process.exit(0);
}

// On a terminal, one progress line rewritten in place; in a log, one line per second.
const live = process.stderr.isTTY;
function onProgress({ second, completed, errors, p50, p99, totals }) {
  const line = `${second + 1}s  ${completed} req/s  p50 ${p50.toFixed(2)} ms  p99 ${p99.toFixed(2)} ms  errors ${errors}  total ${totals.completed}`;
  process.stderr.write(live ? `\r\x1b[K${line}` : `${line}\n`);
}

const server = args.url === undefined ? await createTestServer() : undefined;
try {
  const result = await runLoad({
    url: args.url ?? server.url,
    connections: Number(args.connections),
    duration: /^\d+$/.test(args.duration) ? Number(args.duration) : args.duration,
    rate: args.rate === undefined ? undefined : Number(args.rate),
    transport: args.transport,
    workers: args.workers === 'auto' ? 'auto' : Number(args.workers),
    onProgress,
    thresholds: { 'errors.rate': '< 0.01', 'statusCodes.5xx': '== 0' },
  });
  if (live) process.stderr.write('\n');
  console.log(formatResult(result));
  process.exitCode = result.ok ? 0 : 1;
} catch (error) {
  // Bad options reject with a message that names the option.
  console.error(`error: ${error.message}`);
  process.exitCode = 2;
} finally {
  await server?.close();
}
