// stats/format-parts.ts: the summary's tables of scenarios and request names, and whether a run's
// target rate is one of the whole run.
import t from 'tap';
import type { LoadResult } from '../../src/shared/load-result.js';
import { partTables, wholeTarget } from '../../src/stats/format-parts.js';

const part = (perSecond: number, p50: number, p99: number, sent: number, completed: number, errors: number, statusCodes: Record<string, number>, rate?: number) => ({
  ...(rate !== undefined ? { rate } : {}), requests: { sent, completed, perSecond }, latency: { p50, p99 }, errors: { total: errors }, statusCodes,
});

t.test('wholeTarget: false only when some scenario has no target rate', async (t) => {
  t.ok(wholeTarget({ byScenario: undefined }));
  t.ok(wholeTarget({ byScenario: { a: { rate: 10 }, b: { rate: 20 } } as unknown as LoadResult['byScenario'] }));
  t.notOk(wholeTarget({ byScenario: { a: { rate: 10 }, b: {} } as unknown as LoadResult['byScenario'] }));
});

t.test('a table of scenarios with a target column, names right-aligned numbers', async (t) => {
  const result = {
    byScenario: { browse: part(1234.5, 1.234, 10.5, 12345, 12340, 5, { 200: 12340 }, 1250), checkout: part(50, 20, 80.125, 500, 500, 0, {}) },
  } as unknown as LoadResult;
  t.same(partTables(result), [
    '',
    'Scenario     Req/s  Target/s       p50       p99    Sent  Completed  Errors  Status codes',
    'browse    1,234.50     1,250   1.23 ms  10.50 ms  12,345     12,340       5  200: 12,340',
    'checkout     50.00         -  20.00 ms  80.13 ms     500        500       0  -',
    '',
  ], 'each column as wide as its widest cell: names left, numbers right, the last column free');
});

t.test('names: a table only with two or more; no target column without targets', async (t) => {
  const one = { byName: { only: part(10, 1, 2, 10, 10, 0, { 200: 10 }) } } as unknown as LoadResult;
  t.same(partTables(one), [], 'a single name is the run itself');
  const two = { byName: { a: part(10, 1, 2, 10, 10, 0, { 200: 9, 500: 1 }), bb: part(5, 3, 4, 5, 5, 1, { 200: 5 }) } } as unknown as LoadResult;
  const lines = partTables(two);
  t.equal(lines[1], 'Name  Req/s      p50      p99  Sent  Completed  Errors  Status codes');
  t.equal(lines[2], 'a     10.00  1.00 ms  2.00 ms    10         10       0  200: 9, 500: 1');
  t.equal(lines[3], 'bb     5.00  3.00 ms  4.00 ms     5          5       1  200: 5');
  t.equal(lines.length, 5);
});
