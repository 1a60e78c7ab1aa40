// The structured side of SalvoOptionError and SalvoRangeError: `option` (as the API spells it),
// `value` (what was given) and `mentions` (other options the message names), which the CLI maps to
// its flags without reading the message.
import t from 'tap';
import { findCapacity, mergeResults, runLoad, SalvoOptionError, SalvoRangeError, type LoadResult } from '../../src/index.js';
import { inFlagTerms } from '../../src/cli/commands.js';

const url = 'http://127.0.0.1:9/';

async function rejection(promise: Promise<unknown>): Promise<SalvoOptionError | SalvoRangeError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof SalvoOptionError || error instanceof SalvoRangeError)) throw new Error(`expected a salvo error, got ${String(error)}`);
  return error;
}

t.test('a top-level option: its name and the value given', async (t) => {
  const error = await rejection(runLoad({ url, connections: 0 }));
  t.ok(error instanceof SalvoRangeError);
  t.same([error.option, error.value, error.mentions], ['connections', 0, []]);
  const typed = await rejection(runLoad({ url, duration: 'soon' }));
  t.ok(typed instanceof SalvoOptionError);
  t.same([typed.option, typed.value], ['duration', 'soon']);
});

t.test('a nested option is named by its path', async (t) => {
  const path = await rejection(runLoad({ url, requests: [{ path: '/a' }, { path: 'nope' }] }));
  t.same([path.option, path.value], ['requests[1].path', 'nope']);
  const header = await rejection(runLoad({ url, headers: { 'x-a': 'b\r\nc' } }));
  t.same([header.option, header.value], ["headers['x-a']", 'b\r\nc']);
  const stage = await rejection(runLoad({ url, stages: [{ duration: '1s', rate: -2 }] }));
  t.same([stage.option, stage.value], ['stages[0].rate', -2]);
  const threshold = await rejection(runLoad({ url, thresholds: { 'latency.p99': ['< 5', 'soon'] } }));
  t.same([threshold.option, threshold.value], ["thresholds['latency.p99'][1]", 'soon']);
});

t.test('websocket.rate, and the options an error names beside its own', async (t) => {
  const ws = 'ws://127.0.0.1:9/';
  const range = await rejection(runLoad({ url: ws, websocket: { message: 'x', rate: -1 } }));
  t.ok(range instanceof SalvoRangeError);
  t.same([range.option, range.value], ['websocket.rate', -1]);
  const noMessage = await rejection(runLoad({ url: ws, websocket: { rate: 5 } }));
  t.same([noMessage.option, noMessage.value, noMessage.mentions], ['websocket.rate', 5, ['websocket.message']]);
  const combination = await rejection(runLoad({ url, pipelining: 4, keepAlive: false }));
  t.same([combination.option, combination.value, combination.mentions], ['pipelining', 4, ['keepAlive']]);
});

t.test("findCapacity's slo and mergeResults' force are named as the caller wrote them", async (t) => {
  const slo = await rejection(findCapacity({ url, slo: { 'latency.p99': 'fast' } }));
  t.same([slo.option, slo.value], ["slo['latency.p99']", 'fast']);
  t.match(slo.message, /^slo\['latency.p99'\] has an invalid expression 'fast'/);
  const notResults = await rejection(Promise.resolve().then(() => mergeResults([] as LoadResult[])));
  t.same([notResults.option, notResults.value], ['results', []]);
});

t.test('the CLI renames an error by its option and mentions, never by reading other words', async (t) => {
  const error = new SalvoOptionError('websocket.rate needs websocket.message, the message to send; got rate 5 and no message', {
    option: 'websocket.rate',
    value: 5,
    mentions: ['websocket.message'],
  });
  t.equal(inFlagTerms(error), '--ws-rate needs --ws-message, the message to send; got rate 5 and no message');
  const unmentioned = new SalvoOptionError('websocket.rate needs websocket.message', { option: 'websocket.rate', value: 5 });
  t.equal(inFlagTerms(unmentioned), '--ws-rate needs websocket.message', 'a name the error does not list is left as written');
  const threshold = new SalvoOptionError("thresholds['latency.p99'][0] has an invalid expression", { option: "thresholds['latency.p99'][0]", value: 'x' });
  t.equal(inFlagTerms(threshold), '--threshold "latency.p99" has an invalid expression');
  const own = new SalvoRangeError('connections must be a positive integer; got 0', { option: 'connections', value: 0 });
  t.equal(inFlagTerms(own), 'connections must be a positive integer; got 0', 'an option spelt as its flag is left alone');
  const caused = new SalvoOptionError('requests: could not import', { option: 'requests', cause: new Error('ENOENT') });
  t.equal((caused.cause as Error).message, 'ENOENT');
  t.equal(caused.value, undefined);
});


t.test("every error salvo throws about an option carries its detail (the constructor's second argument)", async (t) => {
  // The detail is optional in the constructor's type, for code that builds these errors itself, so
  // the compiler cannot hold salvo's own throw sites to it: this reads them instead.
  const ts = (await import('typescript')).default;
  const { readFile, readdir } = await import('node:fs/promises');
  const root = new URL('../../src/', import.meta.url);
  const files = (await readdir(root, { recursive: true })).filter((name) => name.endsWith('.ts'));
  const bare: string[] = [];
  let sites = 0;
  for (const name of files) {
    const source = ts.createSourceFile(name, await readFile(new URL(name, root), 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node: import('typescript').Node): void => {
      // `new SalvoOptionError(...)`, `new (cond ? SalvoRangeError : SalvoOptionError)(...)`, `new ErrorClass(...)`.
      if (ts.isNewExpression(node) && /Salvo(Option|Range)Error|ErrorClass/.test(node.expression.getText(source))) {
        sites++;
        if ((node.arguments?.length ?? 0) < 2) bare.push(`${name}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  t.ok(sites > 100, `${sites} throw sites read`);
  t.same(bare, [], 'none without { option, value }');
});

t.test('an error built without a detail, as 0.x code may, still works', async (t) => {
  const error = new SalvoRangeError('pause must be more than zero');
  t.equal(error.code, 'SALVO_OUT_OF_RANGE');
  t.same([error.option, error.value, error.mentions], ['', undefined, []]);
  t.equal(inFlagTerms(error), 'pause must be more than zero');
});
