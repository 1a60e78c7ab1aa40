// Journeys planned (think, flows, feed and their errors), split over workers and segments as rate
// slots are, their flow chosen by weight, and feed files read.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { planLoad } from '../../src/options.js';
import { Journeys } from '../../src/engine/journeys.js';
import { parseCsvRecords, parseCsvRows, parseJsonLines } from '../../src/engine/feed-file.js';
import { segmentPlan, shardPlan } from '../../src/workers/shard.js';
import { SalvoOptionError, SalvoRangeError } from '../../src/index.js';
import type { LoadOptions } from '../../src/shared/load-options.js';
import { stepOption, type PlannedJourney } from '../../src/shared/journey.js';
import type { ClosedLoop } from '../../src/runner/closed-loop.js';
import { Lane } from '../../src/transports/transport.js';

const url = 'http://127.0.0.1:1/base';
const plan = (options: Omit<LoadOptions, 'url'>) => planLoad({ url, ...options }).plan;

t.test('no think, flows or feed: no journey, the plan as before', async (t) => {
  t.equal(plan({ requests: [{ path: '/a' }, { path: '/b', think: 0 }] }).journey, undefined);
  t.equal(plan({}).journey, undefined);
});

t.test('think: a duration or [min, max], on the step it follows', async (t) => {
  const journey = plan({ requests: [{ path: '/a', think: '1.5s' }, { path: '/b' }, { path: '/c', think: [10, '20ms'] }] }).journey!;
  t.same(journey.thinkMs, [[1500, 1500], null, [10, 20]]);
  t.same(journey.flows, [{ name: '', weight: 1, first: 0, count: 3 }], 'one flow of every request');
  t.same([journey.first, journey.stride], [0, 1]);
});

t.test('flows: flattened into the requests, each step named flow/step, each flow its range', async (t) => {
  const { requests, names, journey } = plan({
    method: 'POST',
    flows: [
      { name: 'browse', weight: 3, requests: [{ path: '/home' }, { name: 'item', path: '/item?id=1', method: 'get' }] },
      { requests: [{}] },
    ],
  });
  t.same(names, ['browse/POST /home', 'browse/item', 'flow2/POST /base']);
  t.same(requests.map((request) => `${request.method} ${request.path}`), ['POST /home', 'GET /item?id=1', 'POST /base']);
  t.same(journey!.flows, [
    { name: 'browse', weight: 3, first: 0, count: 2 },
    { name: 'flow2', weight: 1, first: 2, count: 1 },
  ]);
});

t.test('bad journeys are rejected, naming the option', async (t) => {
  const cases: Array<[Omit<LoadOptions, 'url'>, typeof SalvoOptionError | typeof SalvoRangeError, RegExp]> = [
    [{ requests: [{ think: [20, 10] }] }, SalvoRangeError, /^requests\[0\]\.think \[min, max\] must have min <= max/],
    [{ requests: [{ think: [1, 2, 3] as never }] }, SalvoOptionError, /^requests\[0\]\.think must be a duration or \[min, max\]/],
    [{ requests: [{ think: 'soon' }] }, SalvoOptionError, /^requests\[0\]\.think must be milliseconds/],
    [{ flows: [] }, SalvoOptionError, /^flows must be a non-empty array/],
    [{ flows: [{ requests: [{}] }], requests: [{}] }, SalvoOptionError, /^requests cannot be combined with flows/],
    [{ flows: [{ weight: 0, requests: [{}] }] }, SalvoRangeError, /^flows\[0\]\.weight must be a positive number; got 0/],
    [{ flows: [{ name: 'a', requests: [{}] }, { name: 'a', requests: [{}] }] }, SalvoOptionError, /^flows\[1\]\.name "a" is another flow's name too/],
    [{ flows: [{ name: 'a/b', requests: [{}] }] }, SalvoOptionError, /^flows\[0\]\.name must be a non-empty string without '\/'/],
    [{ flows: [{ requests: [] }] }, SalvoOptionError, /^flows\[0\]\.requests must be a non-empty array/],
    [{ flows: [{ requests: [{}, { path: 'nope' }] }] }, SalvoOptionError, /^flows\[0\]\.requests\[1\]\.path must be a path/],
    [{ flows: [{ requests: [{}], wieght: 2 } as never] }, SalvoOptionError, /wieght/],
    [{ requests: [{ think: 5 }], amount: 10 }, SalvoOptionError, /^amount cannot be combined with think/],
    [{ feed: [] }, SalvoOptionError, /^feed has no rows/],
    [{ feed: { rows: [1], file: 'x.csv' } }, SalvoOptionError, /^feed takes one of file and rows/],
    [{ feed: { rows: [1], reuse: 'no' as never } }, SalvoOptionError, /^feed\.reuse must be true or false/],
    [{ feed: 'rows.txt' }, SalvoOptionError, /^feed must be a \.csv, \.jsonl or \.ndjson file/],
    [{ feed: '/no/such/rows.csv' }, SalvoOptionError, /^feed: cannot read "\/no\/such\/rows\.csv"/],
    [{ feed: 42 as never }, SalvoOptionError, /^feed must be a file's path, an array of rows/],
    // With flows the messages name flows and the step, never a `requests` the user did not give.
    [{ body: 'x', flows: [{ requests: [{}] }] }, SalvoOptionError, /^body cannot be combined with flows/],
    [{ name: 'x', flows: [{ requests: [{}] }] }, SalvoOptionError, /^name cannot be combined with flows/],
    [{ flows: [{ requests: [{}, { name: 3 as never }] }] }, SalvoOptionError, /^flows\[0\]\.requests\[1\]\.name must be a non-empty string; got 3/],
    [{ flows: [{ requests: [{ name: ' ' }] }] }, SalvoOptionError, /^flows\[0\]\.requests\[0\]\.name must be a non-empty string/],
    [{ flows: [{ requests: [{ body: 5 as never }] }] }, SalvoOptionError, /^flows\[0\]\.requests\[0\]\.body must be/],
    // A subscription is held for the run: a think time would never be waited.
    [{ stream: { format: 'sse', subscribe: true }, requests: [{}, { think: 100 }] }, SalvoOptionError, /^requests\[1\]\.think has no meaning in an SSE subscription run/],
  ];
  for (const [options, ErrorClass, message] of cases) {
    t.throws(() => plan(options), { constructor: ErrorClass, message }, JSON.stringify(options));
  }
});

t.test('stepOption names a request of the plan as the options do', async (t) => {
  const flowed = plan({ flows: [{ requests: [{}, {}] }, { requests: [{}] }] }).journey;
  t.same([0, 1, 2].map((index) => stepOption(flowed, index)), ['flows[0].requests[0]', 'flows[0].requests[1]', 'flows[1].requests[0]']);
  const thinking = plan({ requests: [{}, { think: 5 }] }).journey;
  t.same([stepOption(thinking, 1), stepOption(undefined, 1)], ['requests[1]', 'requests[1]']);
});

t.test('split over segments and workers, journey k of a share is first + k * stride of the whole run', async (t) => {
  const whole = plan({ rate: 120, connections: 12, workers: 3, requests: [{ think: 10 }] });
  const shares = [0, 1].flatMap((index) => shardPlan(segmentPlan(whole, { index, count: 2 })));
  t.same(shares.map((share) => [share.journey!.first, share.journey!.stride]), [[0, 6], [2, 6], [4, 6], [1, 6], [3, 6], [5, 6]]);
  // The same arithmetic as the rate slots: share phase (i + j n) / (n w) sends slots first + k stride.
  t.same(shares.map((share) => share.ratePhase! * 6), [0, 2, 4, 1, 3, 5]);
  const numbers = shares.flatMap((share) => Array.from({ length: 50 }, (_, k) => share.journey!.first + k * share.journey!.stride));
  t.same(numbers.sort((a, b) => a - b), Array.from({ length: 300 }, (_, k) => k), 'every journey number once');
});

function journey(weights: number[]): PlannedJourney {
  return { flows: weights.map((weight, index) => ({ name: `f${index}`, weight, first: index, count: 1 })), thinkMs: weights.map(() => null), feed: undefined, first: 0, stride: 1 };
}

t.test('each journey takes its flow by weight, evenly spread, the same however the run is split', async (t) => {
  const journeys = new Journeys(journey([3, 1]), 1);
  for (const count of [100, 1000, 10_000]) {
    const first = Array.from({ length: count }, (_, k) => journeys.flowOf(k)).filter((flow) => flow === 0).length;
    t.ok(Math.abs(first - 0.75 * count) <= 2, `${first} of ${count} journeys take the weight-3 flow`);
  }
  const three = new Journeys(journey([1, 2, 7]), 1);
  const counts = [0, 0, 0];
  // One share of 8 (stride 8) is spread as evenly as the whole.
  for (let k = 0; k < 5000; k++) counts[three.flowOf(3 + 8 * k)]!++;
  t.ok(counts.every((count, flow) => Math.abs(count - (5000 * [1, 2, 7][flow]!) / 10) <= 10), `one share of 8: ${counts}`);
});

t.test('CSV: quoted fields, doubled quotes, line breaks in quotes, CRLF, BOM, blank lines', async (t) => {
  t.same(parseCsvRecords('\ufeffa,b\r\n1,"x, ""y""\nz"\n\n2,\n'), [['a', 'b'], ['1', 'x, "y"\nz'], ['2', '']]);
  t.same(parseCsvRows('id,name\n1,ann\n2,"bo, b"'), [{ id: '1', name: 'ann' }, { id: '2', name: 'bo, b' }]);
  t.throws(() => parseCsvRows('id,name\n1\n'), /row 1 has 1 fields; the header has 2/);
  t.throws(() => parseCsvRecords('a\n"open\n'), /a quoted field opened on line 2 never closes/);
  t.same(parseJsonLines('{"a":1}\n\n[2]\r\n"x"\n'), [{ a: 1 }, [2], 'x']);
  t.throws(() => parseJsonLines('{"a":1}\n{oops}\n'), /line 2 is not JSON/);
});

t.test('feed files are read once, when the run is planned', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'salvo-feed-unit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'users.csv'), 'user,pass\nann,1\n');
  writeFileSync(join(dir, 'users.jsonl'), '{"user":"bo"}\n');
  t.same(plan({ feed: join(dir, 'users.csv') }).journey!.feed, { rows: [{ user: 'ann', pass: '1' }], reuse: true, source: join(dir, 'users.csv') });
  t.same(plan({ feed: { file: join(dir, 'users.jsonl'), reuse: false } }).journey!.feed!.rows, [{ user: 'bo' }]);
  t.same(plan({ feed: { rows: [1, 2], reuse: false } }).journey!.feed, { rows: [1, 2], reuse: false, source: 'array' });
});

/** A Journeys over a fake owner that logs what the lanes are told to do. */
function walker(planned: PlannedJourney, openLoop: boolean) {
  const log: string[] = [];
  const loop = { inFlight: 0, stopped: false } as ClosedLoop<Lane>;
  const journeys = new Journeys(planned, 2);
  journeys.bind({
    loop,
    openLoop,
    send: (lane, intendedAt, now) => void log.push(`send ${lane.id} due +${Math.round(intendedAt - start)} late ${now >= intendedAt}`),
    next: (lane) => void log.push(`next ${lane.id}`),
    stop: () => void log.push('stop'),
    warn: (code) => void log.push(code),
  });
  const start = performance.now();
  /** `lane` sends its next step (as the engine's `#send` would) and returns its request index. */
  const take = (lane: Lane) => (journeys.refuses(lane) ? -1 : (lane.requestIndex = journeys.take(lane)));
  return { log, loop, journeys, take, start };
}

const twoSteps = (think: [number, number] | null, feed?: PlannedJourney['feed']): PlannedJourney => ({
  flows: [{ name: '', weight: 1, first: 0, count: 2 }], thinkMs: [think, [50, 50]], feed, first: 0, stride: 1,
});

t.test('open loop: the next step is due when the think time ends, and the lane is freed after the last', async (t) => {
  const { log, loop, journeys, take, start } = walker(twoSteps([30, 30]), true);
  const lane = new Lane(0, 0);
  t.equal(take(lane), 0);
  journeys.ended(lane, start, true);
  t.equal(loop.inFlight, 1, 'a lane thinking counts as in flight: the open loop waits for it rather than missing slots');
  t.same(log, [], 'nothing sent during the think time');
  await new Promise((resolve) => setTimeout(resolve, 60));
  t.same(log, ['send 0 due +30 late true'], 'sent once the think time ended, due at its end');
  t.equal(loop.inFlight, 0);
  t.equal(take(lane), 1);
  journeys.ended(lane, performance.now(), true);
  t.same(log.slice(1), ['next 0'], "the last step's think time does not hold the lane: the next journey is the schedule's");
  t.equal(loop.inFlight, 0);
});

t.test('closed loop: think time before the next step and before the next journey; a failure ends the journey', async (t) => {
  const { log, journeys, take, start } = walker(twoSteps(null), false);
  const lane = new Lane(1, 1);
  take(lane);
  journeys.ended(lane, start, true);
  t.same(log, ['next 1'], 'no think time: the next step at once');
  take(lane);
  journeys.ended(lane, start, true);
  t.same(log, ['next 1'], "the last step's 50 ms think time comes first");
  await new Promise((resolve) => setTimeout(resolve, 80));
  t.same(log, ['next 1', 'next 1']);
  t.ok(journeys.beginsWith(lane), 'and the lane begins a new journey');
  t.equal(take(lane), 0);
  journeys.failed(lane);
  t.ok(journeys.beginsWith(lane), 'a failed step ends its journey: the next send starts another');
  take(lane);
  journeys.ended(lane, start, false);
  t.same(log.slice(2), ['next 1'], 'as does a hook that threw, without its think time');
});

t.test('feed without reuse: a lane with no row left is refused, and the run stops once the journeys under way end', async (t) => {
  const feed = { rows: ['r0', 'r1', 'r2'], reuse: false, source: 'array' };
  const { log, journeys, take, start } = walker({ ...twoSteps(null, feed), first: 1, stride: 2 }, true);
  const [a, b] = [new Lane(0, 0), new Lane(1, 1)];
  take(a);
  t.same(journeys.describe(a), { row: 'r1', flow: undefined, journey: 1, iteration: 0 }, 'journey 0 of share 1 of 2 is journey 1: row 1');
  t.equal(take(b), -1, 'journey 3 would need a fourth row: refused');
  t.same(log, ['FEED_EXHAUSTED']);
  journeys.ended(a, start, true);
  take(a);
  journeys.ended(a, start, true);
  t.same(log, ['FEED_EXHAUSTED', 'send 0 due +0 late true', 'stop'], 'its second step at once (no think time), then its end stops the run');
  await Promise.resolve();
});

t.test('agents are sent the flows module and the feed file with the plan, at their paths', async (t) => {
  const { runFiles } = await import('../../src/agents/plan-files.js');
  const flows = 'test/fixtures/workers/session-flows.mjs';
  const feed = 'test/fixtures/workers/feed-requests.mjs'; // any file: runFiles only reads it
  t.same((await runFiles({ url, flows, feed }, [])).map((file) => file.path), [flows, feed]);
  t.same((await runFiles({ url, flows, feed: { file: feed, reuse: false } }, [])).map((file) => file.path), [flows, feed]);
  t.same(await runFiles({ url, feed: [{ id: 1 }] }, []), [], 'rows given as an array travel in the options');
  await t.rejects(runFiles({ url, feed: '/elsewhere/users.csv' }, []), { option: 'feed', message: /not under the working directory/ });
});
