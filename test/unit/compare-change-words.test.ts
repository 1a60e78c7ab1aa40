// compare/change-words.ts: a change in words (slower/faster for times, worse/better otherwise), the
// unit a metric prints with, and the sentence part a regression message carries.
import t from 'tap';
import { changeWord, describeMove, unitOf, worseWord } from '../../src/compare/change-words.js';

t.test('a time gets slower/faster, anything else worse/better, none unchanged', async (t) => {
  t.equal(changeWord({ metric: 'latency.p99', improvement: -0.2 }), 'slower');
  t.equal(changeWord({ metric: 'latency.p99', improvement: 0.2 }), 'faster');
  t.equal(changeWord({ metric: 'stream.ttft.p50', improvement: -0.1 }), 'slower');
  t.equal(changeWord({ metric: 'server.cpuPerRequestMs', improvement: -0.1 }), 'slower');
  t.equal(changeWord({ metric: 'requests.perSecond', improvement: -0.1 }), 'worse');
  t.equal(changeWord({ metric: 'errors.rate', improvement: 0.5 }), 'better');
  t.equal(changeWord({ metric: 'latency.p99', improvement: 0 }), 'unchanged');
  t.equal(changeWord({ metric: 'latency.p99', improvement: Number.NaN }), 'unchanged');
  // A per-name metric keeps its braces: the word comes from the metric before them.
  t.equal(changeWord({ metric: 'latency.p99{name:login}', improvement: -0.3 }), 'slower');
  t.equal(changeWord({ metric: 'stream.events', improvement: -0.3 }), 'worse', 'a stream count is no time');
  t.equal(worseWord('latency.mean'), 'slower');
  t.equal(worseWord('requests.perSecond'), 'worse');
});

t.test('units: ms for times, req/s for the rate, none for counts', async (t) => {
  t.equal(unitOf('latency.p50'), ' ms');
  t.equal(unitOf('stream.itl.p99{name:chat}'), ' ms');
  t.equal(unitOf('requests.perSecond'), ' req/s');
  t.equal(unitOf('errors.total'), '');
});

t.test('describeMove: the percentage of the baseline without a sign, both values and the unit', async (t) => {
  const format = (value: number) => String(Math.round(value * 100) / 100);
  t.equal(describeMove({ metric: 'latency.p99', improvement: -0.2636, baseline: 21.8, candidate: 27.55 }, format), '26.36% slower (21.8 -> 27.55 ms)');
  t.equal(describeMove({ metric: 'requests.perSecond', improvement: 0.05, baseline: 1000, candidate: 1050 }, format), '5.00% better (1000 -> 1050 req/s)');
  t.equal(describeMove({ metric: 'errors.total', improvement: 0, baseline: 3, candidate: 3 }, format), 'unchanged (3 -> 3)');
});
