// A timeline second in which nothing was timed carries no latency: NaN in memory, null in JSON, a
// gap in the report's charts, nothing in onProgress's percentiles; never 0, which reads as instant.
import t from 'tap';
import { runLoad, type LoadResult, type ProgressEvent } from '../../src/index.js';
import { reportCharts } from '../../src/report/charts.js';
import { testServer } from '../fixtures/test-server.js';

/** The p50 and p99 lines of the report's latency chart. */
function latencyLines(result: LoadResult): Array<Array<number | null>> {
  const chart = reportCharts(result).find((spec) => spec.id === 'chart-latency');
  return chart!.series.map((series) => series.values);
}

t.test('a server that hangs mid-run: the seconds with no response have no latency, not 0', async (t) => {
  const server = await testServer(t);
  const events: ProgressEvent[] = [];
  const result = await runLoad({
    url: server.url,
    connections: 2,
    duration: '5s',
    // Once the first second has closed, every response waits 2.5 s: a stretch that holds at least
    // one whole second (two when the event comes on time), whenever in [1, 2.5) s it begins.
    onProgress: (event) => {
      if (events.push(event) === 1) server.stall(2500);
    },
  });
  const empty = result.timeline.filter((second) => second.completed === 0);
  t.ok(empty.length >= 1, `a second with no response (completed per second: ${result.timeline.map((s) => s.completed).join(', ')})`);
  t.ok(result.timeline[0]!.completed > 0 && result.timeline[0]!.p99 > 0, 'the first second timed its responses');
  for (const second of result.timeline) {
    if (second.completed === 0) {
      t.ok(Number.isNaN(second.p50) && Number.isNaN(second.p99), `second ${second.second}: no response, p50 and p99 NaN (${second.p50}, ${second.p99})`);
    } else {
      t.ok(second.p50 > 0 && second.p99 >= second.p50, `second ${second.second}: ${second.completed} responses, p50 ${second.p50}, p99 ${second.p99}`);
    }
  }
  // The held responses complete after the stall, each over 2 s late.
  t.ok(result.latency.max >= 2000, `the held responses are timed (max ${result.latency.max} ms)`);

  const saved = JSON.parse(JSON.stringify(result)) as LoadResult;
  for (const second of empty) {
    t.equal(saved.timeline[second.second]!.p50, null, `JSON: second ${second.second}'s p50 is null`);
    t.equal(saved.timeline[second.second]!.p99, null, `JSON: second ${second.second}'s p99 is null`);
    const event = events.find((e) => e.second === second.second);
    t.ok(event !== undefined && Number.isNaN(event.p50) && Number.isNaN(event.p99), `onProgress: second ${second.second} has no percentiles`);
  }

  // Charts: a gap (null) where no response came, from the result in memory and from its JSON alike.
  const gaps = result.timeline.map((second) => second.completed === 0);
  for (const [from, lines] of [['memory', latencyLines(result)], ['JSON', latencyLines(saved)]] as const) {
    t.same(lines.map((values) => values.map((value) => value === null)), [gaps, gaps], `${from}: p50 and p99 lines have gaps exactly at the seconds with no response`);
    t.ok(lines.flat().every((value) => value === null || value > 0), `${from}: every other point is a latency`);
  }
  // A result saved before 1.0 wrote 0 for such a second: the chart shows a gap there too.
  const old = { ...saved, timeline: saved.timeline.map((second) => (second.completed === 0 ? { ...second, p50: 0, p99: 0 } : second)) };
  t.same(latencyLines(old).map((values) => values.map((value) => value === null)), [gaps, gaps], 'a 0.x result: the same gaps');
});
