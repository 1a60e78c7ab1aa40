import t from 'tap';
import { SalvoOptionError, SalvoRangeError } from '../../src/shared/errors.js';
import {
  MAX_CHECK_EXAMPLES,
  compileExpect,
  planExpect,
  mergeCheckStats,
  needsResponseDetails,
} from '../../src/stats/checks.js';
import type { ResponseDetails } from '../../src/shared/exchange.js';
import type { CheckStats } from '../../src/shared/load-result.js';

function response(body: string, headers: Record<string, string> = {}): ResponseDetails {
  return { headers, body: Buffer.from(body, 'utf8') };
}

t.test('status: a single code', async (t) => {
  const checker = compileExpect(planExpect({ status: 200 }));
  t.equal(checker.needsDetails, false);
  checker.check(200, undefined);
  checker.check(200, undefined);
  checker.check(201, undefined);
  t.same(checker.stats(), {
    passed: 2,
    failed: 1,
    byName: { status: { passed: 2, failed: 1 } },
    examples: [{ name: 'status', message: 'status 201 is not 200' }],
  });
});

t.test('status: a class string, any case', async (t) => {
  const checker = compileExpect(planExpect({ status: '2XX' }));
  for (const status of [200, 204, 299]) checker.check(status, undefined);
  for (const status of [199, 300, 500]) checker.check(status, undefined);
  const stats = checker.stats();
  t.same(stats.byName, { status: { passed: 3, failed: 3 } });
  t.same(
    stats.examples.map((e) => e.message),
    ['status 199 is not 2xx', 'status 300 is not 2xx', 'status 500 is not 2xx'],
  );
});

t.test('status: a list of codes, code strings and classes', async (t) => {
  const checker = compileExpect(planExpect({ status: [200, '404', '3xx'] }));
  for (const status of [200, 404, 301, 399]) checker.check(status, undefined);
  for (const status of [201, 403, 500]) checker.check(status, undefined);
  const stats = checker.stats();
  t.equal(stats.passed, 4);
  t.equal(stats.failed, 3);
  t.equal(stats.examples[0]?.message, 'status 201 is not one of 200, 404, 3xx');
});

t.test('status: out-of-range statuses from a broken server fail instead of crashing', async (t) => {
  const checker = compileExpect(planExpect({ status: '2xx' }));
  checker.check(0, undefined);
  checker.check(1234, undefined);
  checker.check(-1, undefined);
  t.same(checker.stats().byName, { status: { passed: 0, failed: 3 } });
});

t.test('body: a string to include, searched as bytes', async (t) => {
  const checker = compileExpect(planExpect({ body: 'héllo' }));
  t.equal(checker.needsDetails, true);
  checker.check(200, response('{"greeting":"héllo world"}'));
  checker.check(200, response('hello world'));
  const stats = checker.stats();
  t.same(stats.byName, { body: { passed: 1, failed: 1 } });
  t.same(stats.examples, [{ name: 'body', message: 'body "hello world" does not include "héllo"' }]);
});

t.test('body: a RegExp, with g/y flags made stateless', async (t) => {
  const checker = compileExpect(planExpect({ body: /"ok":\s*true/g }));
  // With a shared lastIndex, a global RegExp would fail every second identical body.
  for (let i = 0; i < 4; i++) checker.check(200, response('{"ok": true}'));
  checker.check(200, response('{"ok": false}'));
  const stats = checker.stats();
  t.same(stats.byName, { body: { passed: 4, failed: 1 } });
  t.equal(stats.examples[0]?.message, 'body "{\\"ok\\": false}" does not match /"ok":\\s*true/');
});

t.test('body: long bodies are shortened in examples', async (t) => {
  const checker = compileExpect(planExpect({ body: 'needle' }));
  checker.check(200, response('x'.repeat(500)));
  t.equal(checker.stats().examples[0]?.message, `body "${'x'.repeat(60)}…" does not include "needle"`);
});

t.test('headers: equality and RegExp, names case-insensitive', async (t) => {
  const checker = compileExpect(planExpect({
    headers: { 'Content-Type': /^application\/json/, 'X-Cache': 'HIT' },
  }));
  t.equal(checker.needsDetails, true);
  checker.check(200, response('', { 'content-type': 'application/json; charset=utf-8', 'x-cache': 'HIT' }));
  checker.check(200, response('', { 'content-type': 'text/html', 'x-cache': 'hit' }));
  checker.check(200, response('', {}));
  const stats = checker.stats();
  t.same(stats.byName, {
    'header:content-type': { passed: 1, failed: 2 },
    'header:x-cache': { passed: 1, failed: 2 },
  });
  t.equal(stats.passed, 2);
  t.equal(stats.failed, 4);
  t.same(stats.examples.map((e) => e.message), [
    'header content-type "text/html" does not match /^application\\/json/',
    'header x-cache "hit" is not "HIT"',
    'header content-type is missing',
    'header x-cache is missing',
  ]);
});

t.test('body and header checks fail when details were not captured', async (t) => {
  const checker = compileExpect(planExpect({ status: 200, body: 'ok', headers: { etag: /./ } }));
  checker.check(200, undefined);
  const stats = checker.stats();
  t.same(stats.byName, {
    status: { passed: 1, failed: 0 },
    body: { passed: 0, failed: 1 },
    'header:etag': { passed: 0, failed: 1 },
  });
  t.same(stats.examples.map((e) => e.message), ['body was not captured', 'header etag was not captured']);
});

t.test('every check counts once per response', async (t) => {
  const checker = compileExpect(planExpect({ status: 200, body: 'ok', headers: { a: '1' } }));
  checker.check(200, response('ok', { a: '1' }));
  checker.check(500, response('no', { a: '1' }));
  const stats = checker.stats();
  t.equal(stats.passed, 4);
  t.equal(stats.failed, 2);
});

t.test('examples are capped, distinct, and each status is shown once', async (t) => {
  const checker = compileExpect(planExpect({ status: 200 }));
  for (let i = 0; i < 100; i++) checker.check(500, undefined);
  checker.check(503, undefined);
  t.same(checker.stats().examples.map((e) => e.message), ['status 500 is not 200', 'status 503 is not 200']);

  const many = compileExpect(planExpect({ status: 200 }));
  for (let status = 300; status < 320; status++) many.check(status, undefined);
  const stats = many.stats();
  t.equal(stats.failed, 20);
  t.equal(stats.examples.length, MAX_CHECK_EXAMPLES);
  t.equal(stats.examples[4]?.message, 'status 304 is not 200');
});

t.test('stats() is a fresh, serialisable copy', async (t) => {
  const checker = compileExpect(planExpect({ status: 200 }));
  checker.check(500, undefined);
  const first = checker.stats();
  checker.check(200, undefined);
  t.equal(first.passed, 0, 'an earlier snapshot does not change');
  t.same(structuredClone(checker.stats()), checker.stats());
});

t.test('an empty expect checks nothing', async (t) => {
  const checker = compileExpect(planExpect({}));
  checker.check(500, undefined);
  t.same(checker.stats(), { passed: 0, failed: 0, byName: {}, examples: [] });
});

t.test('needsResponseDetails', async (t) => {
  t.equal(needsResponseDetails(undefined), false);
  t.equal(needsResponseDetails({}), false);
  t.equal(needsResponseDetails({ status: 200 }), false);
  t.equal(needsResponseDetails({ body: 'ok' }), true);
  t.equal(needsResponseDetails({ status: 200, headers: { etag: /./ } }), true);
});

t.test('mergeCheckStats adds counters and merges examples', async (t) => {
  const a: CheckStats = {
    passed: 10,
    failed: 2,
    byName: { status: { passed: 6, failed: 1 }, body: { passed: 4, failed: 1 } },
    examples: [
      { name: 'status', message: 'status 500 is not 2xx' },
      { name: 'body', message: 'body "x" does not include "ok"' },
    ],
  };
  const b: CheckStats = {
    passed: 5,
    failed: 5,
    byName: { status: { passed: 2, failed: 3 }, 'header:etag': { passed: 3, failed: 2 } },
    examples: [
      { name: 'status', message: 'status 500 is not 2xx' },
      { name: 'status', message: 'status 502 is not 2xx' },
      { name: 'header:etag', message: 'header etag is missing' },
      { name: 'status', message: 'status 503 is not 2xx' },
      { name: 'status', message: 'status 504 is not 2xx' },
    ],
  };
  const merged = mergeCheckStats(a, b);
  t.same(merged, {
    passed: 15,
    failed: 7,
    byName: {
      status: { passed: 8, failed: 4 },
      body: { passed: 4, failed: 1 },
      'header:etag': { passed: 3, failed: 2 },
    },
    examples: [
      { name: 'status', message: 'status 500 is not 2xx' },
      { name: 'body', message: 'body "x" does not include "ok"' },
      { name: 'status', message: 'status 502 is not 2xx' },
      { name: 'header:etag', message: 'header etag is missing' },
      { name: 'status', message: 'status 503 is not 2xx' },
    ],
  });
  t.equal(a.byName.status?.passed, 6, 'inputs are not changed');
  t.equal(a.examples.length, 2);
});

t.test('bad expect options name the option', async (t) => {
  const cases: Array<[unknown, typeof SalvoOptionError | typeof SalvoRangeError, RegExp]> = [
    [null, SalvoOptionError, /^expect must be an object/],
    ['2xx', SalvoOptionError, /^expect must be an object.*got '2xx'/],
    [{ statuses: 200 }, SalvoOptionError, /^expect\.statuses is not a known check/],
    [
      { status: 'abc' },
      SalvoOptionError,
      /^expect\.status must be a status code, a list, or a class like '2xx'; got 'abc'$/,
    ],
    [{ status: '6xx' }, SalvoOptionError, /^expect\.status must be .*got '6xx'/],
    [{ status: 200.5 }, SalvoOptionError, /^expect\.status must be .*got 200\.5/],
    [{ status: 700 }, SalvoRangeError, /^expect\.status must be a status code from 100 to 599; got 700$/],
    [{ status: '099' }, SalvoRangeError, /^expect\.status must be a status code from 100 to 599; got 99$/],
    [{ status: [] }, SalvoOptionError, /^expect\.status must not be an empty list/],
    [{ status: [200, true] }, SalvoOptionError, /^expect\.status\[1\] must be .*got true/],
    [{ body: 42 }, SalvoOptionError, /^expect\.body must be a string to find or a RegExp to match; got 42/],
    [{ body: '' }, SalvoOptionError, /^expect\.body must not be empty/],
    [{ headers: 'etag' }, SalvoOptionError, /^expect\.headers must be an object/],
    [{ headers: { etag: 1 } }, SalvoOptionError, /^expect\.headers\['etag'\] must be a string or a RegExp; got 1/],
    [{ headers: { 'bad name': 'x' } }, SalvoOptionError, /^expect\.headers\['bad name'\] is not a valid header name/],
    [{ headers: { ETag: 'a', etag: 'b' } }, SalvoOptionError, /^expect\.headers\['etag'\] repeats header etag/],
  ];
  for (const [expect, type, message] of cases) {
    const error = t.throws(() => compileExpect(planExpect(expect)), { message }, JSON.stringify(expect));
    t.ok(error instanceof type, `a ${type.name}`);
  }
  const error = t.throws(() => compileExpect(planExpect({ status: 'abc' }))) as SalvoOptionError;
  t.equal(error.code, 'SALVO_INVALID_OPTION');
});
