// report/server-section.ts: what monitor saw, as the report's table: the server's processes and the
// machine in rows of their own, CPU per request (per call in a task run), and each source's answer.
import t from 'tap';
import { serverSection } from '../../src/report/server-section.js';
import type { LoadResult } from '../../src/shared/load-result.js';

const cells = (html: string) => [...html.matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/g)].map((match) => match[1]!.replace(/<[^>]+>/g, ''));

t.test('no monitor: nothing', async (t) => {
  t.equal(serverSection({ transport: 'net' } as LoadResult), '');
});

t.test('server and machine rows, with their numbers; sources and whether they answered', async (t) => {
  const result = {
    transport: 'net',
    server: {
      cpuPercent: 37.5, cores: 4, cpuPerRequestMs: 0.125, memory: { rssBytes: 52_400_000, peakRssBytes: 61_000_000 }, eventLoopLagMs: 12,
      machine: { cpuPercent: 180, cores: 8, memory: { usedBytes: 2_500_000_000, peakUsedBytes: 2_600_000_000 }, network: { receivedBytesPerSecond: 1_500_000, sentBytesPerSecond: 900 } },
      sources: [
        { source: 'pid:123', scope: 'server', answered: true, seconds: 10 },
        { source: 'http://127.0.0.1:9100/metrics', scope: 'machine', answered: false, seconds: 7, error: 'ECONNREFUSED' },
        { source: 'http://127.0.0.1:3000/metrics', scope: 'server', answered: true, seconds: 10, sameProcessAs: 'pid:123' },
      ],
    },
  } as unknown as LoadResult;
  const html = serverSection(result);
  const text = cells(html);
  const row = (measure: string) => text.slice(text.indexOf(measure) - 1, text.indexOf(measure) + 2);
  t.same(row('CPU (of 4 cores)'), ['server', 'CPU (of 4 cores)', '37.5% of a core']);
  t.same(row('CPU per request'), ['server', 'CPU per request', '0.125 ms']);
  t.same(row('resident memory (mean, peak)'), ['server', 'resident memory (mean, peak)', '52.4 MB, 61 MB']);
  t.same(row('CPU (of 8 cores)'), ['machine', 'CPU (of 8 cores)', '180% of a core']);
  t.same(row('network in, out'), ['machine', 'network in, out', '1.5 MB/s, 900 B/s']);
  t.ok(text.includes('answered all 10 s'));
  t.ok(text.includes('ECONNREFUSED (7 s answered)'), 'a source that missed samples says why');
  t.ok(text.includes('the process of pid:123: counted once'));
  t.match(html, /<section id="server"/);
});

t.test('a task run counts CPU per call; no figure at all is said', async (t) => {
  const task = serverSection({ transport: 'task', merge: { plan: { kind: 'task' } }, server: { cpuPerRequestMs: 2, sources: [] } } as unknown as LoadResult);
  t.ok(cells(task).includes('CPU per call'));
  const none = serverSection({ transport: 'net', server: { sources: [{ source: 'pid:1', scope: 'server', answered: false, seconds: 0 }] } } as unknown as LoadResult);
  t.match(none, '<p>No source gave a figure.</p>');
  t.ok(cells(none).includes('missed samples (0 s answered)'));
});
