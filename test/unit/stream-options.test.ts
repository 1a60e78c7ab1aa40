// engine/stream-options.ts: the `stream` option checked into plain data (paths split, until trimmed,
// usage on with tokens) and the functions that stay in-process; each refusal names its option.
import t from 'tap';
import { planStream, rejectWithSubscribe } from '../../src/engine/stream-options.js';
import type { Plan } from '../../src/shared/plan.js';

const plain = { workers: 1, webSocket: false };

t.test('planned: tokens as a path with its reasoning paths, until trimmed, usage on by default with tokens', async (t) => {
  const { planned, hooks } = planStream({ format: 'sse', until: '  [DONE] ', tokens: 'choices.0.delta.content', timestamp: { field: 't' } }, plain)!;
  t.same(planned, {
    format: 'sse', until: '[DONE]', timestampField: 't', tokensPath: ['choices', '0', 'delta', 'content'], untilFunction: false, tokensFunction: false, tokenizerFunction: false, usage: true,
    reasoningPaths: [['choices', '0', 'delta', 'reasoning_content'], ['choices', '0', 'delta', 'reasoning'], ['choices', '0', 'delta', 'thinking']], subscribe: false,
  });
  t.same(hooks, {});
  t.equal(planStream({ format: 'ndjson', tokens: 'a', usage: false }, plain)!.planned.usage, false);
  t.equal(planStream({ format: 'chunks' }, plain)!.planned.usage, false, 'no tokens: usage not asked');
  const until = () => true;
  const tokenizer = (text: string) => text.length;
  const withHooks = planStream({ format: 'sse', until, tokens: 'x', tokenizer }, plain)!;
  t.same([withHooks.planned.untilFunction, withHooks.planned.tokenizerFunction, withHooks.planned.until], [true, true, undefined]);
  t.equal(withHooks.hooks.until, until);
  t.equal(withHooks.hooks.tokenizer, tokenizer);
  t.equal(planStream(undefined, plain), undefined);
});

t.test('refusals name the option and the value', async (t) => {
  const refuses = (value: unknown, option: string, message: RegExp, context = plain) =>
    t.throws(() => planStream(value, context), { code: 'SALVO_INVALID_OPTION', option, message }, `${option}: ${message}`);
  refuses('sse', 'stream', /^stream must be an object/);
  refuses({ format: 'sse' }, 'stream', /WebSocket run times messages with websocket\.timestamp/, { workers: 1, webSocket: true });
  refuses({ format: 'xml' }, 'stream.format', /^stream\.format must be one of 'sse', 'ndjson', 'chunks'; got "xml"/);
  refuses({ format: 'sse', until: '  ' }, 'stream.until', /non-empty string/);
  refuses({ format: 'sse', timestamp: { field: '' } }, 'stream.timestamp', /\{ field: string \}/);
  refuses({ format: 'sse', tokens: '' }, 'stream.tokens', /JSON path/);
  refuses({ format: 'sse', tokenizer: 'cl100k' }, 'stream.tokenizer', /must be a function/);
  refuses({ format: 'sse', tokenizer: () => 1, tokens: () => 1 }, 'stream.tokenizer', /give stream\.tokens as a path/);
  refuses({ format: 'sse', usage: 'yes' }, 'stream.usage', /true or false/);
  refuses({ format: 'ndjson', subscribe: true }, 'stream.subscribe', /needs format 'sse'/);
  refuses({ format: 'sse', subscribe: true, until: '[DONE]' }, 'stream.until', /held for the whole run/);
  refuses({ format: 'sse', tokens: () => 1 }, 'stream.tokens', /cannot be sent to worker threads \(workers: 2\)/, { workers: 2, webSocket: false });
  t.throws(() => planStream({ format: 'sse', untill: 'x' }, plain), { code: 'SALVO_INVALID_OPTION', option: 'stream.untill' }, 'an unknown key by name');
});

t.test('rejectWithSubscribe: what a held subscription has no use for', async (t) => {
  const plan = (over: Record<string, unknown>) => ({ stream: { subscribe: true }, rate: undefined, ramps: undefined, amount: undefined, pipelining: 1, requests: [{}], ...over }) as unknown as Plan;
  t.doesNotThrow(() => rejectWithSubscribe(plan({}), {}));
  t.doesNotThrow(() => rejectWithSubscribe(plan({ stream: { subscribe: false }, amount: 5 }), {}), 'no subscription: nothing refused');
  t.throws(() => rejectWithSubscribe(plan({ rate: 10 }), {}), { option: 'rate', message: /^rate has no meaning .* with stream\.subscribe.*; got rate 10$/ });
  t.throws(() => rejectWithSubscribe(plan({ amount: 50 }), {}), { option: 'amount', message: /give a duration/ });
  t.throws(() => rejectWithSubscribe(plan({ pipelining: 4 }), {}), { code: 'SALVO_INVALID_OPTION', option: 'pipelining' });
  t.throws(() => rejectWithSubscribe(plan({}), { expect: { status: 200 } }), { code: 'SALVO_INVALID_OPTION', option: 'expect' });
  t.throws(() => rejectWithSubscribe(plan({ requests: [{}, {}] }), { requests: [1, 2] }), { option: 'requests', message: /one request without hooks/ });
});
