// gate/measured.ts: what a build's runs measured (target and shape, not host or port), how two
// differ, and the refusal to compare a build with a baseline of something else.
import t from 'tap';
import { checkSameMeasurement, differences, measuredOf, type Measured } from '../../src/gate/measured.js';
import type { LoadResult } from '../../src/shared/load-result.js';

type Source = Parameters<typeof measuredOf>[0];
const run = (over: Partial<Source> & { plan?: Record<string, unknown> } = {}): Source => {
  const { plan, ...rest } = over;
  return { url: 'http://127.0.0.1:3000/api?x=1', transport: 'net', connections: 10, rate: undefined, ...(plan ? { merge: { plan } as unknown as Pick<LoadResult['merge'], 'plan'> } : {}), ...rest };
};

t.test('measuredOf: path and query without host or port, the plan’s shape, scenarios sorted', async (t) => {
  t.same(measuredOf(run({ plan: { requests: ['GET /a', 'POST /b'], durationMs: 5000, scenarios: { write: {}, read: {} } }, rate: 200 })), {
    url: 'http://127.0.0.1:3000/api?x=1', target: '/api?x=1', requests: ['GET /a', 'POST /b'], scenarios: ['read', 'write'], transport: 'net', connections: 10, rate: 200, durationMs: 5000,
  });
  t.same(measuredOf(run({ url: 'task:./checkout.mjs', transport: 'task' })).target, 'task:./checkout.mjs', 'a task keeps its whole url');
  t.same(measuredOf(run({ url: 'ws://127.0.0.1:9/chat' })).target, '/chat');
  t.same(measuredOf(run({ byScenario: { b: {}, a: {} } })).scenarios, ['a', 'b'], 'a stored run without its plan: the scenarios of byScenario');
});

t.test('differences: one phrase per field; a field one side lacks is not compared', async (t) => {
  const a: Measured = { url: 'u', target: '/work', transport: 'net', connections: 10, durationMs: 5000 };
  t.same(differences(a, { ...a, url: 'other host', target: '/api', connections: 20 }), ['target /work -> /api', 'connections 10 -> 20'], 'the url (host, port) is not a difference');
  t.same(differences(a, { ...a, durationMs: undefined }), [], 'durationMs unknown on one side (no requests recorded): not compared');
  t.same(differences({ ...a, requests: ['GET /'] }, { ...a, requests: ['GET /'], durationMs: undefined, amount: 100 }), ['duration (ms) 5000 -> none', 'amount none -> 100'], 'both read from a plan: absent is none');
  t.same(differences(a, { ...a, rate: 100 }), ['rate none -> 100'], 'a rate is on every result');
  t.same(differences({ ...a, scenarios: ['a', 'b'] }, { ...a, scenarios: ['a', 'c'] }), ['scenarios a, b -> a, c']);
});

t.test('checkSameMeasurement: a candidate run unlike the first, then a baseline entry unlike the candidate', async (t) => {
  t.throws(() => checkSameMeasurement('api', [], [run(), run({ connections: 20 })]), { code: 'SALVO_INVALID_OPTION', option: 'results', message: /run 2 differs from run 1 \(connections 10 -> 20\)/ });
  const baseline = [
    { id: 'e1', runs: [run()] },
    { id: 'e2', measured: measuredOf(run({ url: 'http://127.0.0.1:4000/other' })), runs: [] },
  ];
  t.throws(() => checkSameMeasurement('api', baseline, [run({ url: 'http://localhost:5000/api?x=1' })]), { option: 'testId', message: /^test api's baseline measured something else than these runs \(target \/other -> \/api\?x=1; entry e2\)/ });
  t.doesNotThrow(() => checkSameMeasurement('api', [baseline[0]!, { id: 'e3', runs: [] }], [run({ url: 'http://localhost:5000/api?x=1' })]), 'same path on another port, and an entry with nothing recorded');
  t.doesNotThrow(() => checkSameMeasurement('api', baseline, []));
});
