#!/usr/bin/env node
// The recipe on one machine, without Kubernetes: starts salvo's test server, runs N separate Node
// processes of segment.mjs (segments 0..N-1, one common START_AT) as the Job's pods would, merges
// their JSON results and checks the merged counts against what the server saw. Exits 1 when they
// differ or a threshold failed.
//   node local.mjs [--segments 3]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createTestServer } from 'salvo/testing';
import { readResults, report } from './merge.mjs';

const { values } = parseArgs({ options: { segments: { type: 'string', default: '3' } } });
const segments = Number(values.segments);
const server = await createTestServer({ delayMs: 2 });
const dir = await mkdtemp(join(tmpdir(), 'salvo-segments-'));
const options = { url: server.url, connections: 2 * segments, amount: 1000 * segments, thresholds: { 'latency.p99': '< 250' } };
try {
  // Enough for every process to start Node and import salvo before the measured run begins.
  const startAt = Date.now() + 3000;
  const pods = Array.from({ length: segments }, (_, index) =>
    spawn(process.execPath, [fileURLToPath(new URL('segment.mjs', import.meta.url))], {
      env: {
        ...process.env,
        JOB_COMPLETION_INDEX: String(index),
        SEGMENTS: String(segments),
        START_AT: new Date(startAt).toISOString(),
        SALVO_OPTIONS: JSON.stringify(options),
        RESULTS_DIR: dir,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const codes = await Promise.all(pods.map(async (pod) => (await once(pod, 'close'))[0]));
  if (codes.some((code) => code !== 0)) throw new Error(`segment processes exited with ${codes.join(', ')}`);

  const files = (await readdir(dir)).filter((file) => file.startsWith('segment-')).map((file) => join(dir, file));
  const merged = await report(await readResults(files), { out: join(dir, 'merged.json') });
  const checks = [
    [`completed ${merged.requests.completed} = amount ${options.amount}`, merged.requests.completed === options.amount],
    [`server saw ${server.stats.requests} requests = amount`, server.stats.requests === options.amount],
    [`server saw ${server.stats.connections} connections = ${options.connections}`, server.stats.connections === options.connections],
    [`segments started within ${Math.max(...(await readResults(files)).map((r) => Math.abs(r.startedAt - startAt))).toFixed(1)} ms of START_AT`, true],
  ];
  for (const [line, ok] of checks) console.log(`${ok ? 'ok  ' : 'FAIL'} ${line}`);
  if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
} finally {
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
