// stats/error-samples.ts: at most 3 samples per code and 10 in all, no message twice, and merging
// several lists within the same limits.
import t from 'tap';
import { errorSample, keepErrorSample, MAX_SAMPLES, mergeErrorSamples, SAMPLES_PER_CODE, wantsSample } from '../../src/stats/error-samples.js';
import type { ErrorSample } from '../../src/shared/load-result.js';

t.test('errorSample: an Error keeps its message and four lines of stack; anything else is its text', async (t) => {
  const error = new Error('boom');
  error.stack = ['Error: boom', 'at a', 'at b', 'at c', 'at d', 'at e', 'at f'].join('\n');
  t.same(errorSample('TASK_FAILED', error), { code: 'TASK_FAILED', message: 'boom', stack: 'at a\nat b\nat c\nat d' });
  t.same(errorSample('TASK_FAILED', 'plain'), { code: 'TASK_FAILED', message: 'plain' });
  t.same(errorSample('TASK_FAILED', { status: 503 }), { code: 'TASK_FAILED', message: '{"status":503}' });
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  t.same(errorSample('TASK_FAILED', circular), { code: 'TASK_FAILED', message: '[object Object]' });
});

t.test('keepErrorSample: 3 per code, distinct messages, 10 in all', async (t) => {
  t.equal(SAMPLES_PER_CODE, 3);
  t.equal(MAX_SAMPLES, 10);
  const samples: ErrorSample[] = [];
  for (let i = 0; i < 5; i++) keepErrorSample(samples, 'A', new Error(`a${i}`));
  keepErrorSample(samples, 'B', new Error('same'));
  keepErrorSample(samples, 'B', new Error('same'));
  keepErrorSample(samples, 'B', 'same');
  t.same(samples.map((s) => `${s.code}:${s.message}`), ['A:a0', 'A:a1', 'A:a2', 'B:same'], 'the 4th and 5th A and the repeated messages are dropped');
  for (let code = 0; code < 10; code++) keepErrorSample(samples, `C${code}`, new Error('c'));
  t.equal(samples.length, 10, 'never more than MAX_SAMPLES');
  t.equal(samples.at(-1)?.code, 'C5');
  t.notOk(wantsSample(samples, 'Z', 'new'), 'a full list takes nothing');
});

t.test('mergeErrorSamples: in order, the limits over all lists', async (t) => {
  const a: ErrorSample[] = [{ code: 'X', message: '1' }, { code: 'X', message: '2' }];
  const b: ErrorSample[] = [{ code: 'X', message: '2' }, { code: 'X', message: '3' }, { code: 'X', message: '4' }, { code: 'Y', message: '1' }];
  t.same(mergeErrorSamples([a, undefined, b]).map((s) => `${s.code}${s.message}`), ['X1', 'X2', 'X3', 'Y1']);
});
