// `feed`: each row reaches exactly one journey over worker threads and segments (one process each),
// with the arithmetic that splits rate slots; `reuse: false` ends the run once the rows are used.
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { mergeResults, runLoad } from '../../src/index.js';
import type { AddressInfo } from 'node:net';
import { runInProcesses } from '../fixtures/segment-processes.js';

const ROWS = 10_000;

async function rowServer(t: Test) {
  const seen = new Map<string, number>();
  const server = createServer((request, response) => {
    const id = /^\/row\/(.+)$/.exec(request.url ?? '')?.[1] ?? `not a row: ${request.url}`;
    seen.set(id, (seen.get(id) ?? 0) + 1);
    response.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, seen };
}

t.test('10,000 CSV rows over 2 segments of 4 workers: each row sent exactly once, then the run ends', async (t) => {
  const { url, seen } = await rowServer(t);
  const dir = mkdtempSync(join(tmpdir(), 'salvo-feed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const csv = join(dir, 'rows.csv');
  // A quoted field with a comma, a quote and a line break in it: the parser keeps the columns.
  const lines = Array.from({ length: ROWS }, (_, i) => (i === 7 ? `${i},"Smith, ""J""\nJr"` : `${i},name ${i}`));
  writeFileSync(csv, `id,name\r\n${lines.join('\r\n')}\r\n`);
  const requests = fileURLToPath(new URL('../fixtures/workers/feed-requests.mjs', import.meta.url));
  const options = { url, connections: 16, workers: 4, duration: '60s', requests, feed: { file: csv, reuse: false } };
  const { results } = await runInProcesses([0, 1].map((index) => ({ ...options, segment: { index, count: 2 } })));
  const merged = mergeResults(results);
  const counts = [...seen.values()];
  t.equal(seen.size, ROWS, 'the server saw 10,000 distinct rows');
  t.ok([...seen.keys()].every((id) => /^\d+$/.test(id) && Number(id) < ROWS), 'every one a row of the file');
  t.equal(counts.filter((count) => count !== 1).length, 0, 'each row exactly once');
  t.equal(merged.requests.sent, ROWS, 'the merged result sent one request per row');
  t.equal(merged.requests.completed, ROWS, 'and each completed');
  t.same(results.map((result) => result.requests.sent), [5000, 5000], 'each segment half of the rows');
  t.ok(merged.warnings.some((warning) => warning.code === 'FEED_EXHAUSTED'), 'the result says the rows ran out');
  t.ok(merged.durationMs < 60_000, `the run ended with the rows (${merged.durationMs.toFixed(0)} ms), not at its duration`);
});

t.test('a cycling feed hands journey k row k mod rows, in order, to setupRequest and onResponse', async (t) => {
  const { url } = await rowServer(t);
  const rows = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
  const sent: string[] = [];
  const answered: unknown[] = [];
  const result = await runLoad({
    url,
    connections: 1,
    duration: '300ms',
    feed: rows,
    requests: [
      { setupRequest: (_request, context) => void sent.push(`${context.journey}:${(context.row as { id: string }).id}`) },
      { path: '/second', onResponse: (_status, _body, context) => void answered.push(context.row) },
    ],
  });
  t.ok(result.requests.completed >= 6, `several journeys (${result.requests.completed} requests)`);
  t.same(sent.slice(0, 5), ['0:a', '1:b', '2:c', '3:a', '4:b'], 'journey k gets row k mod 3');
  t.same(answered.slice(0, 4), [rows[0], rows[1], rows[2], rows[0]], 'the same row through the journey to its last step');
});
