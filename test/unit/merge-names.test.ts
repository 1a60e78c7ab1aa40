// stats/merge-names.ts: result.byName from the threads' per-name recordings: each name's counts and
// latencies merged exactly, its seconds on the run's timeline; and a saved name read back as a shard.
import t from 'tap';
import { planLoad } from '../../src/options.js';
import { mergeShards } from '../../src/stats/merge.js';
import { nameAsShard } from '../../src/stats/merge-names.js';
import { Recorder } from '../../src/stats/recorder.js';

const gauges = { connections: () => 1, targetRate: () => undefined };
const { plan } = planLoad({ url: 'http://127.0.0.1:9/', amount: 100, requests: [{ name: 'login', path: '/login' }, { name: 'browse', path: '/items' }] });

/** One thread: `login` responses of `loginMs`, `browse` of `browseMs`, in seconds 0 and 1, and one browse error. */
function thread(loginMs: number, browseMs: number) {
  const recorder = new Recorder(0, gauges, undefined);
  recorder.nameRequests(plan.names);
  const login = plan.names.indexOf('login');
  const browse = plan.names.indexOf('browse');
  for (const at of [100, 1100]) {
    for (let i = 0; i < 3; i++) {
      recorder.recordSent(50, at, login);
      recorder.recordResponse(200, 100, loginMs, loginMs, at + 1, login);
    }
    recorder.recordSent(50, at, browse);
    recorder.recordResponse(200, 100, browseMs, browseMs, at + 1, browse);
  }
  recorder.recordSent(50, 1500, browse);
  recorder.recordError('ECONNRESET', 1501, browse);
  return recorder.finish(2000, 2000, false, undefined);
}

t.test('each name merged over threads, its seconds on the run’s timeline', async (t) => {
  t.same(plan.names, ['login', 'browse']);
  const result = mergeShards(plan, [thread(5, 40), thread(7, 60)], false);
  const { login, browse } = result.byName!;
  t.same(Object.keys(result.byName!), ['login', 'browse'], 'in the order the threads first name them');
  t.same([login!.requests.sent, login!.requests.completed, login!.errors.total], [12, 12, 0]);
  t.same([browse!.requests.sent, browse!.requests.completed, browse!.errors.total, browse!.errors.byCode], [6, 4, 2, { ECONNRESET: 2 }]);
  t.same(login!.statusCodes, { 200: 12 });
  t.ok(Math.abs(login!.latency.min - 5) < 0.01 && Math.abs(login!.latency.max - 7) < 0.01, `login ${login!.latency.min}-${login!.latency.max} ms: both threads, not browse's`);
  t.ok(Math.abs(browse!.latency.max - 60) < 0.1, `browse max ${browse!.latency.max} ms`);
  t.equal(result.requests.completed, 16, 'the run is the sum of its names');
  t.same(result.timeline.map((second) => second.byName?.login?.completed), [6, 6]);
  t.same(result.timeline.map((second) => [second.byName?.browse?.completed, second.byName?.browse?.errors]), [[2, 0], [2, 2]]);
  t.equal(browse!.merge.timeline.length, result.timeline.length, "a name's seconds' histograms line up with the run's");

  const back = nameAsShard(result, 'browse', browse!, 2000, 3);
  t.same([back.sent, back.completed, back.errors, back.errorsByCode], [6, 4, 2, { ECONNRESET: 2 }]);
  t.same(back.timeline.map((second) => [second.second, second.completed]), [[3, 2], [4, 2]], 'its seconds shifted by 3');
});

t.test('a run of one name: its one name is the run', async (t) => {
  const single = planLoad({ url: 'http://127.0.0.1:9/', amount: 10 }).plan;
  const recorder = new Recorder(0, gauges, undefined);
  recorder.nameRequests(single.names);
  recorder.recordSent(10, 100);
  recorder.recordResponse(200, 10, 1, 1, 101);
  const result = mergeShards(single, [recorder.finish(1000, 1000, false, undefined)], false);
  t.same(Object.keys(result.byName ?? {}), ['GET /']);
  t.same([result.byName!['GET /']!.requests.completed, result.requests.completed], [1, 1]);
});
