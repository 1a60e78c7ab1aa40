import t from 'tap';
import { addWarning, mergeWarnings } from '../../src/shared/warnings.js';

t.test('a code appears once; the first message wins', async (t) => {
  const warnings: Array<{ code: string; message: string }> = [];
  addWarning(warnings, 'A', 'first');
  addWarning(warnings, 'A', 'second');
  addWarning(warnings, 'B', 'other');
  t.same(warnings, [{ code: 'A', message: 'first' }, { code: 'B', message: 'other' }]);
});

t.test('shards merge by code, in the order first seen', async (t) => {
  const merged = mergeWarnings([[{ code: 'B', message: 'b0' }], undefined, [{ code: 'A', message: 'a1' }, { code: 'B', message: 'b1' }]]);
  t.same(merged, [{ code: 'B', message: 'b0' }, { code: 'A', message: 'a1' }]);
});
