import t from 'tap';
import { runLoad, SalvoOptionError, SalvoRangeError, type LoadOptions } from '../../src/index.js';
import { lanesPerConnection } from '../../src/shared/plan.js';

const url = 'http://127.0.0.1:9/';

/** Each case: options, the error class, and what the message must say (the option and the value). */
const cases: Array<[string, unknown, typeof SalvoOptionError | typeof SalvoRangeError, RegExp]> = [
  ['missing url', {}, SalvoOptionError, /url is required.*got undefined/],
  ['url not a string', { url: 42 }, SalvoOptionError, /url .*got 42/],
  ['relative url', { url: '/path' }, SalvoOptionError, /url must be an absolute.*"\/path"/],
  ['ftp url', { url: 'ftp://127.0.0.1/' }, SalvoOptionError, /url must use http: or https:.*ftp/],
  ['zero connections', { url, connections: 0 }, SalvoRangeError, /connections must be a positive integer; got 0/],
  ['negative connections', { url, connections: -3 }, SalvoRangeError, /connections .*got -3/],
  ['fractional connections', { url, connections: 1.5 }, SalvoRangeError, /connections .*got 1.5/],
  ['string connections', { url, connections: '10' }, SalvoOptionError, /connections .*got "10"/],
  ['NaN connections', { url, connections: NaN }, SalvoOptionError, /connections .*got NaN$/],
  ['Infinity connections', { url, connections: Infinity }, SalvoRangeError, /connections .*got Infinity$/],
  ['NaN duration', { url, duration: NaN }, SalvoRangeError, /duration .*got NaN$/],
  ['h2Streams over 1 with net', { url, h2Streams: 4 }, SalvoOptionError, /h2Streams needs transport 'h2'.*got h2Streams 4 with transport "net"/],
  ['pipelining over 1 with h2', { url, transport: 'h2', pipelining: 4 }, SalvoOptionError, /pipelining is HTTP\/1.1.*got pipelining 4/],
  ['zero workers', { url, workers: 0 }, SalvoRangeError, /workers .*got 0/],
  ['fractional workers', { url, workers: 2.5 }, SalvoRangeError, /workers .*got 2.5/],
  ['bad workers string', { url, workers: 'many' }, SalvoOptionError, /workers .*got "many"/],
  ['zero pipelining', { url, pipelining: 0 }, SalvoRangeError, /pipelining .*got 0/],
  ['pipelining with http', { url, transport: 'http', pipelining: 4 }, SalvoOptionError, /pipelining 4 needs transport/],
  ['pipelining without keep-alive', { url, pipelining: 4, keepAlive: false }, SalvoOptionError, /pipelining 4 needs keepAlive/],
  ['zero timeout', { url, timeout: 0 }, SalvoRangeError, /timeout must be more than zero; got 0 ms$/],
  ['negative timeout', { url, timeout: -1 }, SalvoRangeError, /timeout .*got -1/],
  ['fractional timeout', { url, timeout: 100.5 }, SalvoRangeError, /timeout .*whole number.*100.5/],
  // A bare number is ms; one that small was surely meant as seconds (autocannon's -d 10).
  ['duration in seconds', { url, duration: 10 }, SalvoRangeError, /^duration 10 is 10 ms \(a bare number is milliseconds\): for seconds write '10s' \(or 10000\); for milliseconds on purpose write '10ms'$/],
  ['timeout in seconds', { url, timeout: 5 }, SalvoRangeError, /^timeout 5 is 5 ms .*write '5s'/],
  ['fractional timeout in seconds', { url, timeout: 1.5 }, SalvoRangeError, /^timeout 1.5 is 1.5 ms .*write '1.5s' \(or 1500\)/],
  ['bad timeout string', { url, timeout: 'soon' }, SalvoOptionError, /timeout must be milliseconds or a string.*"soon"/],
  ['zero amount', { url, amount: 0 }, SalvoRangeError, /amount .*got 0/],
  ['fractional amount', { url, amount: 10.5 }, SalvoRangeError, /amount .*got 10.5/],
  ['string amount', { url, amount: 'ten' }, SalvoOptionError, /amount .*got "ten"/],
  ['zero rate', { url, rate: 0 }, SalvoRangeError, /rate .*got 0/],
  ['negative rate', { url, rate: -100 }, SalvoRangeError, /rate .*got -100/],
  ['fractional rate', { url, rate: 0.5 }, SalvoRangeError, /rate .*got 0.5/],
  ['string rate', { url, rate: 'fast' }, SalvoOptionError, /rate .*got "fast"/],
  ['unparsable duration', { url, duration: '10 parsecs' }, SalvoOptionError, /duration must be .*"10 parsecs"/],
  ['duration without unit', { url, duration: '10' }, SalvoOptionError, /duration .*"10"/],
  ['negative duration', { url, duration: -5 }, SalvoRangeError, /duration .*got -5/],
  ['unknown transport', { url, transport: 'curl' }, SalvoOptionError, /transport must be one of 'net', 'undici', 'http', 'h2'; got "curl"/],
  ['misspelt option', { url, conections: 5 }, SalvoOptionError, /unknown option "conections"; did you mean connections\?/],
  ['unknown option', { url, frobnicate: true }, SalvoOptionError, /^unknown option "frobnicate"$/],
  ['misspelt key of a request spec', { url, requests: [{ path: '/a' }, { pth: '/login' }] }, SalvoOptionError, /^unknown option "requests\[1\]\.pth"; did you mean path\?$/],
  ['bad method', { url, method: 'GE T' }, SalvoOptionError, /method must be an HTTP method.*"GE T"/],
  ['header with newline', { url, headers: { 'x-a': 'b\r\nc' } }, SalvoOptionError, /headers\['x-a'\] must not contain CR/],
  ['bad body', { url, body: 42 }, SalvoOptionError, /body must be a string, a Buffer or an object.*42/],
  ['keepAlive not boolean', { url, keepAlive: 'yes' }, SalvoOptionError, /keepAlive must be true or false; got "yes"/],
  ['retry not boolean', { url, retry: 'no' }, SalvoOptionError, /retry must be true or false; got "no"/],
  ['signal not a signal', { url, signal: {} }, SalvoOptionError, /signal must be an AbortSignal/],
  ['negative warmup', { url, warmup: -1 }, SalvoRangeError, /warmup must be zero or more; got -1 ms$/],
  ['empty stages', { url, stages: [] }, SalvoOptionError, /stages must be a non-empty array/],
  ['stage with both', { url, stages: [{ duration: '1s', rate: 5, connections: 2 }] }, SalvoOptionError, /stages\[0\] must have exactly one/],
  ['requests empty', { url, requests: [] }, SalvoOptionError, /requests must be a non-empty array/],
  ['request bad path', { url, requests: [{ path: 'nope' }] }, SalvoOptionError, /requests\[0\].path must be a path starting with '\/'.*"nope"/],
];

for (const [name, options, ErrorClass, message] of cases) {
  t.test(name, async (t) => {
    const error = await runLoad(options as LoadOptions).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(error instanceof ErrorClass, `rejects with ${ErrorClass.name}, got ${String(error)}`);
    t.ok(error instanceof (ErrorClass === SalvoOptionError ? TypeError : RangeError));
    t.match((error as Error).message, message);
    t.equal((error as { code: string }).code, ErrorClass === SalvoOptionError ? 'SALVO_INVALID_OPTION' : 'SALVO_OUT_OF_RANGE');
    const { option } = error as SalvoOptionError;
    t.ok(option !== '' && (error as Error).message.includes(option), `option ${JSON.stringify(option)} is the one the message names`);
  });
}

t.test('durations parse in every unit', async (t) => {
  const { planLoad } = await import('../../src/options.js');
  t.equal(planLoad({ url, duration: '500ms' }).plan.durationMs, 500);
  t.equal(planLoad({ url, duration: '1.5s' }).plan.durationMs, 1500);
  t.equal(planLoad({ url, duration: '2m' }).plan.durationMs, 120_000);
  t.equal(planLoad({ url, duration: '1h' }).plan.durationMs, 3_600_000);
  t.equal(planLoad({ url, duration: 250 }).plan.durationMs, 250);
  t.equal(planLoad({ url }).plan.durationMs, 10_000, 'defaults to 10 s');
  t.equal(planLoad({ url, amount: 5 }).plan.durationMs, undefined, 'amount alone is not time-bound');
  t.equal(planLoad({ url }).plan.connections, 10);
  t.equal(planLoad({ url }).plan.transport, 'net');
  t.equal(planLoad({ url }).plan.timeoutMs, 10_000);
});

t.test('no run warms up unless asked: a warm-up sends requests the run does not count', async (t) => {
  const { planLoad } = await import('../../src/options.js');
  const warmup = (options: Partial<LoadOptions>) => planLoad({ url, ...options } as LoadOptions).plan.warmupMs;
  t.equal(warmup({ rate: 5000 }), 0, 'a rate run pre-warms against a loopback server instead');
  t.equal(warmup({ rate: 50_000, workers: 8, duration: '5s' }), 0);
  t.equal(warmup({ rate: 5000, warmup: '500ms' }), 500, 'a given warmup is kept');
  t.equal(planLoad({ url, rate: 5000, prewarm: false }).plan.prewarm, false, 'prewarm reaches the plan');
  t.equal(planLoad({ url, rate: 5000 }).plan.prewarm, undefined, 'unset: each thread decides from its rate');
});

t.test('an object body is sent as JSON with a content-type', async (t) => {
  const { planLoad } = await import('../../src/options.js');
  const [request] = planLoad({ url, method: 'post', body: { a: 1 } }).plan.requests;
  t.equal(request?.method, 'POST');
  t.equal(request?.body?.toString(), '{"a":1}');
  t.equal(request?.headers['content-type'], 'application/json');
});

t.test('streams and pipelining at their default of 1 are accepted with either protocol', async (t) => {
  const { planLoad } = await import('../../src/options.js');
  t.equal(planLoad({ url, h2Streams: 1 }).plan.pipelining, 1, 'streams: 1 with net');
  t.equal(planLoad({ url, transport: 'undici', h2Streams: 1 }).plan.pipelining, 1, 'streams: 1 with undici');
  t.equal(planLoad({ url, transport: 'h2', pipelining: 1 }).plan.pipelining, 1, 'pipelining: 1 with h2');
  t.equal(planLoad({ url, transport: 'h2', pipelining: 1, h2Streams: 8 }).plan.streams, 8, 'h2 takes streams');
  t.equal(lanesPerConnection(planLoad({ url, transport: 'h2', pipelining: 1, h2Streams: 8 }).plan), 8, 'as its lanes per connection');
  t.equal(lanesPerConnection(planLoad({ url, pipelining: 3 }).plan), 3, 'HTTP/1.1 pipelines instead');
});

t.test('parseDuration, as exported, reads one value the way duration options do', async (t) => {
  const { parseDuration } = await import('../../src/index.js');
  t.equal(parseDuration('1.5m'), 90_000);
  t.equal(parseDuration('250ms'), 250);
  t.equal(parseDuration(40), 40);
  t.throws(() => parseDuration('soon'), { name: 'SalvoOptionError', message: /^duration must be milliseconds or a string like '500ms'.*got "soon"$/ });
  t.throws(() => parseDuration('-1s', 'pause'), { message: /^pause must be milliseconds/ });
});
