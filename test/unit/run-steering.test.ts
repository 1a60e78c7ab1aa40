import t from 'tap';
import { planRun } from '../../src/scenarios.js';
import { StartGate, wallClockMs } from '../../src/runner/start-gate.js';
import { RunSteering } from '../../src/workers/run-steering.js';
import { segmentPlan, shardPlan } from '../../src/workers/shard.js';
import { planLoad } from '../../src/options.js';
import { peakConnections } from '../../src/shared/plan.js';
import type { ToWorker } from '../../src/workers/messages.js';
import type { LoadOptions } from '../../src/index.js';

async function steered(options: LoadOptions, shards: number) {
  const { plan: whole } = (await planRun(options)).scenarios[0]!;
  const plan = whole.segment === undefined ? whole : segmentPlan(whole, whole.segment);
  const steering = new RunSteering(options);
  const start = new StartGate(undefined, 0, undefined);
  steering.bind(whole, plan, start);
  const posted: Array<[number, ToWorker]> = [];
  steering.onWorkers(shards, (index, message) => posted.push([index, message]));
  return { steering, start, posted, plan };
}

t.test('a change is split over segments and worker threads as the plan is', async (t) => {
  const { steering, start, posted, plan } = await steered({ url: 'http://127.0.0.1:9/', rate: 3000, connections: 10, workers: 3, segment: { index: 1, count: 2 } }, 3);
  t.equal(plan.rate, 1500, "the segment's share of the rate");
  const goAt = wallClockMs();
  start.onGo?.(goAt);
  steering.setRate(6000);
  const rates = posted.map(([index, message]) => [index, message.type === 'rate' ? message.rate : undefined]);
  t.same(rates, [[0, 1000], [1, 1000], [2, 1000]], '6,000/s over 2 segments and 3 threads: 1,000/s each');
  const at = (posted[0]![1] as { atMs: number }).atMs;
  t.ok(posted.every(([, message]) => (message as { atMs: number }).atMs === at), 'one instant for every thread');
  t.ok(at - goAt >= 10 && at - goAt < 100, 'a little ahead of now, for the messages to arrive');
  t.ok(Math.abs(steering.steps[0]!.atMs - (at - goAt)) < 0.01, 'the step is recorded at that instant, from the start');
  posted.length = 0;
  steering.setConnections(9);
  t.same(posted.map(([index, message]) => [index, (message as { connections: number }).connections]), [[0, 2], [1, 1], [2, 1]], "9 over 2 segments is 5 + 4: this segment's 4 over 3 threads is 2 + 1 + 1");
  t.same(steering.steps.map(({ rate, connections }) => rate ?? connections), [6000, 9]);
  steering.end();
  t.throws(() => steering.setRate(10), { message: /^setRate: the run has ended/ });
});

t.test('a change made before the threads run reaches them as they start', async (t) => {
  const options: LoadOptions = { url: 'http://127.0.0.1:9/', rate: 100, workers: 2 };
  const steering = new RunSteering(options);
  steering.setRate(400);
  steering.setConnections(4);
  t.same(steering.steps, [{ atMs: 0, rate: 400 }, { atMs: 0, connections: 4 }], 'before the start: at 0');
  const { plan: whole } = (await planRun(options)).scenarios[0]!;
  steering.bind(whole, whole, new StartGate(undefined, 0, undefined));
  const posted: ToWorker[] = [];
  steering.onWorkers(2, (_, message) => posted.push(message));
  t.same(posted.map((message) => (message.type === 'rate' ? message.rate : message.type === 'connections' ? message.connections : undefined)), [200, 200, 2, 2]);
});

t.test('the kinds of run that cannot take a change say so, naming the method', async (t) => {
  t.throws(() => new RunSteering({ url: 'ws://127.0.0.1:9/', websocket: { message: 'x' } }).setConnections(2), { message: /^setConnections: a websocket run cannot be steered/ });
  t.throws(() => new RunSteering({ scenarios: {} } as LoadOptions).setRate(2), { message: /^setRate: a run of named scenarios/ });
  t.throws(() => new RunSteering({ url: 'http://127.0.0.1:9/', stages: [{ duration: 1000, connections: 20 }] }).setConnections(21), { message: /more than the 20 connections/ });
  t.doesNotThrow(() => new RunSteering({ url: 'http://127.0.0.1:9/', stages: [{ duration: 1000, rate: 20 }] }).setRate(0), 'rate stages are a rate run; 0 pauses');
});

t.test('maxConnections: lanes for that many, split over segments and workers as setConnections splits a count', async (t) => {
  const options: LoadOptions = { url: 'http://127.0.0.1:9/', connections: 4, maxConnections: 11, workers: 2, segment: { index: 1, count: 2 } };
  const { steering, plan, posted } = await steered(options, 2);
  t.equal(plan.maxConnections, 5, 'segment 1 of 2 holds 5 of the 11 (6 + 5)');
  const shares = shardPlan(plan);
  t.same(shares.map(peakConnections), [3, 2], "its 2 workers' lanes: 3 + 2");
  t.same(shares.map((share) => share.connections), [1, 1], 'starting from 1 each (2 of the 4)');
  // Any count up to maxConnections fits every share's lanes: the splits are monotone in the count.
  for (let count = 1; count <= 11; count++) steering.setConnections(count);
  const over = posted.filter(([index, message]) => message.type === 'connections' && message.connections > peakConnections(shares[index]!));
  t.equal(over.length, 0, 'no worker is ever sent more connections than it has lanes');
  t.throws(() => steering.setConnections(12), { name: 'SalvoRangeError', message: /^setConnections: 12 is more than the 11 connections this run was planned with; start it with maxConnections: 12/ });
});

t.test('maxConnections is checked by name', async (t) => {
  const url = 'http://127.0.0.1:9/';
  t.throws(() => planLoad({ url, connections: 4, maxConnections: 3 }), { name: 'SalvoRangeError', option: 'maxConnections', message: /^maxConnections must be at least connections \(4\); got 3/ });
  t.throws(() => planLoad({ url, maxConnections: 2.5 }), { option: 'maxConnections', message: /positive integer/ });
  t.throws(() => planLoad({ url: 'ws://127.0.0.1:9/', websocket: { message: 'x' }, maxConnections: 20 }), { option: 'maxConnections', message: /maxConnections/ });
  await t.rejects(planRun({ url, scenarios: { a: {} }, maxConnections: 9 }), { option: 'maxConnections', message: /^maxConnections has no meaning in a run of scenarios/ });
  t.equal(peakConnections(planLoad({ url, connections: 2, maxConnections: 9 }).plan), 9);
  t.equal(planLoad({ url, connections: 2, maxConnections: 9 }).plan.connections, 2);
});
