// workers/setup-error.ts: a task's setup error crossing a worker thread keeps its code, its cause's
// message, name, stack and fields.
import t from 'tap';
import { SalvoTaskSetupError } from '../../src/shared/errors.js';
import { receivedSetupError, sendSetupError } from '../../src/workers/setup-error.js';

t.test('an Error cause crosses structuredClone with its name, stack and own fields', async (t) => {
  const cause = Object.assign(new TypeError('redis refused'), { code: 'ECONNREFUSED', port: 6379, callback: () => 1 });
  const sent = structuredClone(sendSetupError(new SalvoTaskSetupError('setup failed: redis refused', { code: 'SALVO_TASK_SETUP_TIMEOUT', cause })));
  const received = receivedSetupError(sent)!;
  t.ok(received instanceof SalvoTaskSetupError);
  t.equal(received.code, 'SALVO_TASK_SETUP_TIMEOUT');
  t.equal(received.message, 'setup failed: redis refused');
  const back = received.cause as Error & { code: string; port: number; callback?: unknown };
  t.equal(back.name, 'TypeError');
  t.equal(back.message, 'redis refused');
  t.equal(back.stack, cause.stack);
  t.same({ code: back.code, port: back.port }, { code: 'ECONNREFUSED', port: 6379 });
  t.notOk('callback' in back, 'a field structuredClone cannot copy is left out');
});

t.test('a thrown value, no cause, and anything else', async (t) => {
  const value = receivedSetupError(structuredClone(sendSetupError(new SalvoTaskSetupError('x', { cause: { status: 500 } }))))!;
  t.same(value.cause, { status: 500 });
  t.equal(value.code, 'SALVO_TASK_SETUP_FAILED');
  const none = receivedSetupError(sendSetupError(new SalvoTaskSetupError('y')))!;
  t.equal(none.cause, undefined);
  t.equal(receivedSetupError(new Error('plain')), undefined);
  t.equal(receivedSetupError(null), undefined);
  t.equal(receivedSetupError({ salvoTaskSetupError: 'no' }), undefined);
});
