// The per-name Prometheus series: a name label each, at most 100 of them, the rest as `other`.
import t from 'tap';
import { MAX_NAME_LABELS, NameSeries } from '../../src/outputs/name-series.js';
import type { LoadResult, NameStats } from '../../src/shared/load-result.js';

const stats = (sent: number): NameStats => ({ requests: { sent, completed: sent, perSecond: 0, missed: 0, retried: 0 }, errors: { total: 1, byCode: {} } }) as unknown as NameStats;

t.test('more than 100 names: the first keep their label, the rest are counted together as other, with TOO_MANY_NAMES', async (t) => {
  const names = Array.from({ length: MAX_NAME_LABELS + 20 }, (_, i) => `GET /item/${i}`);
  const result = { byName: Object.fromEntries(names.map((name) => [name, stats(10)])), warnings: [] } as unknown as LoadResult;
  const points = new NameSeries().resultPoints(result);
  const sent = points.filter((point) => point.name === 'salvo_name_requests_sent_total');
  t.equal(sent.length, MAX_NAME_LABELS + 1, '100 names and other');
  t.same(sent.find((point) => point.label?.[1] === 'other')?.value, 200, 'the 20 past the limit, added up');
  t.same(sent.find((point) => point.label?.[1] === 'GET /item/0')?.value, 10);
  t.equal(points.filter((point) => point.name === 'salvo_name_errors_total').reduce((sum, point) => sum + point.value, 0), names.length, 'nothing lost');
  t.match(result.warnings, [{ code: 'TOO_MANY_NAMES', message: /120 request names; outputs wrote the first 100 as name labels and the other 20 together as name="other"/ }]);
});

t.test('a second carries each name\'s counters so far and its percentiles', async (t) => {
  const series = new NameSeries();
  series.secondPoints({ a: { sent: 3, completed: 2, errors: 1, histogram: '' } });
  const points = series.secondPoints({ a: { sent: 4, completed: 4, errors: 0, histogram: '' } });
  t.same(points.map((point) => [point.name, point.label, point.value]), [
    ['salvo_name_requests_sent_total', ['name', 'a'], 7],
    ['salvo_name_responses_total', ['name', 'a'], 6],
    ['salvo_name_errors_total', ['name', 'a'], 1],
  ], 'cumulative, and no latency for a second that timed nothing');
  t.same(new NameSeries().secondPoints(undefined), []);
});
