// The option table (src/shared/option-table.ts) is the one list of runLoad's options: validation
// refuses an option in a kind of run it does not list, and docs/options.md and the CLI's flags are
// checked against it here, so that none of them can drift from it again.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { planLoad } from '../../src/options.js';
import { KNOWN_OPTIONS, OPTION_TABLE, SCENARIO_ONLY_TABLE, rejectForKind, type OptionRow } from '../../src/shared/option-table.js';
import { LOAD_FLAGS } from '../../src/cli/load-flags.js';
import type { LoadOptions } from '../../src/shared/load-options.js';
import type { RunKind } from '../../src/shared/run-kind.js';
import { runLoad, SalvoOptionError } from '../../src/index.js';
import { testServer } from '../fixtures/test-server.js';

const KINDS: RunKind[] = ['http', 'websocket', 'socketio', 'task', 'subscription'];

/** A table of docs/options.md under `heading` (the first table when undefined): option -> its cells. */
function docsTable(heading?: string): Map<string, string[]> {
  const text = readFileSync(new URL('../../docs/options.md', import.meta.url), 'utf8');
  const from = heading === undefined ? 0 : text.indexOf(`\n${heading}\n`);
  const lines = text.slice(from).split('\n');
  const start = lines.findIndex((line) => line.startsWith('| option |'));
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [name, ...cells] = line.slice(2, -2).split(' | ');
    rows.set(name!.replace(/`/g, ''), cells);
  }
  return rows;
}

const runsText = (row: OptionRow) => `${row.kinds.length === KINDS.length ? 'all' : row.kinds.join(', ')}${row.run ? ' (whole run)' : ''}`;

t.test('docs/options.md lists every option, with the default and the kinds of run the table gives', async (t) => {
  const docs = docsTable();
  t.same([...docs.keys()], [...KNOWN_OPTIONS], 'the same options, in the same order');
  for (const key of KNOWN_OPTIONS) {
    const [defaultCell, runs] = docs.get(key) ?? [];
    t.equal(defaultCell, OPTION_TABLE[key].default, `${key}: its default`);
    t.equal(runs, runsText(OPTION_TABLE[key]), `${key}: the runs it applies to`);
  }
  const scenario = docsTable("### A scenario's own options");
  t.same([...scenario.keys()], Object.keys(SCENARIO_ONLY_TABLE), "and a scenario's own options");
  for (const [key, row] of Object.entries(SCENARIO_ONLY_TABLE)) t.same(scenario.get(key)?.slice(0, 2), [row.default, runsText(row)], key);
});

t.test('every flag of the command line sets an option of the table, and each flag the table names exists', async (t) => {
  const named = new Set(Object.values(OPTION_TABLE).flatMap((row) => row.flags ?? []));
  for (const flag of Object.keys(LOAD_FLAGS)) t.ok(named.has(flag), `--${flag} is claimed by an option`);
  for (const [key, row] of Object.entries(OPTION_TABLE)) for (const flag of row.flags ?? []) t.ok(flag in LOAD_FLAGS, `${key}: --${flag} exists`);
});

/** A value of each option that its own check accepts. */
const SAMPLES: { [K in keyof Required<LoadOptions>]: LoadOptions[K] } = {
  url: 'http://127.0.0.1:9/', name: 'n', transport: 'undici', connections: 2, duration: 1000, amount: 5, rate: 10,
  arrivals: 'poisson',
  stages: [{ duration: 1000, connections: 2 }], pipelining: 2, h2Streams: 2, workers: 1, keepAlive: false, compressed: true, method: 'POST',
  headers: { a: 'b' }, body: 'x', requests: [{ path: '/' }], timeout: 1000, warmup: 0, prewarm: false, expect: { status: 200 },
  thresholds: { 'latency.p99': '< 50' }, tls: {}, retry: false, tlsSessionReuse: false, signal: new AbortController().signal,
  onProgress: () => {}, segment: { index: 0, count: 1 }, startAt: Date.now() + 60_000, websocket: { message: 'x' },
  socketio: { emit: { event: 'e' }, ack: true }, stream: { format: 'sse' }, task: async () => {}, concurrency: 2, setupTimeout: 1000, backoff: false,
  scenarios: { a: {} }, outputs: [{ type: 'prometheus', url: 'http://127.0.0.1:9/' }], monitor: { processes: [process.pid] },
  cookies: true, followRedirects: 3,
  llm: { api: 'openai-chat', model: 'm', prompts: ['hi'] }, slo: { ttft: 100 },
  flows: [{ name: 'f', weight: 1, requests: [{ path: '/' }] }], feed: [{ id: 1 }],
  live: { port: 0 },
  agents: { expect: 2, listen: 0, token: 'a-long-enough-token' },
  maxConnections: 4,
};

/** The smallest options of each kind of run. */
const BASES: Record<RunKind, LoadOptions> = {
  http: { url: 'http://127.0.0.1:9/' },
  websocket: { url: 'ws://127.0.0.1:9/' },
  socketio: { url: 'http://127.0.0.1:9/', socketio: { emit: { event: 'e' }, ack: true } },
  task: { task: async () => {} },
  subscription: { url: 'http://127.0.0.1:9/', stream: { format: 'sse', subscribe: true } },
};

t.test('a run refuses, by name, each option the table says it has no meaning in', async (t) => {
  for (const kind of KINDS) {
    t.equal(planLoad(BASES[kind]).plan.kind, kind, `the base of ${kind}`);
    for (const key of KNOWN_OPTIONS) {
      // These choose the kind of run rather than being refused by one.
      if (key in BASES[kind] || key === 'task' || key === 'socketio' || (key === 'stream' && kind === 'http')) continue;
      if (OPTION_TABLE[key].kinds.includes(kind)) continue;
      t.throws(() => planLoad({ ...BASES[kind], [key]: SAMPLES[key] }), { code: 'SALVO_INVALID_OPTION', option: key }, `${kind} refuses ${key}`);
    }
  }
  t.throws(() => rejectForKind({ name: 'chat' }, 'websocket'), { option: 'name', message: /^name has no meaning in a WebSocket run \(it applies to: HTTP run, SSE subscription run/ });
  t.doesNotThrow(() => rejectForKind({ name: 'search', h2Streams: 2 }, 'http'));
});

t.test('name in a WebSocket or Socket.IO run is refused, not dropped', async (t) => {
  const ws = await testServer(t, { websocket: true });
  await t.rejects(runLoad({ url: ws.url, name: 'chat', amount: 5, websocket: { message: 'ping' } }), { code: 'SALVO_INVALID_OPTION', option: 'name', message: /^name is an HTTP option and has no meaning with a ws: url/ });
  await t.rejects(runLoad({ ...BASES.socketio, name: 'chat' }), { code: 'SALVO_INVALID_OPTION', option: 'name' });
  t.equal(ws.stats.websocket?.messagesReceived ?? 0, 0, 'nothing was sent');
});

t.test('streams, renamed h2Streams, fails naming the new option', async (t) => {
  const options = { url: 'http://127.0.0.1:9/', transport: 'h2', streams: 4 } as unknown as LoadOptions;
  await t.rejects(runLoad(options), new SalvoOptionError('streams is now h2Streams (concurrent HTTP/2 streams per connection; stream is the option that reads response bodies as events); got streams 4', { option: 'streams', value: 4 }));
  await t.rejects(runLoad(options), { code: 'SALVO_INVALID_OPTION', option: 'streams', mentions: ['h2Streams'] });
  await t.rejects(runLoad({ url: 'http://127.0.0.1:9/', scenarios: { a: { streams: 2 } as never } }), { code: 'SALVO_INVALID_OPTION', option: 'scenarios.a.streams', mentions: ['scenarios.a.h2Streams'] });
});
