// findCapacity's options are checked before any step runs: errors name the option and the value.
import t, { type Test } from 'tap';
import { findCapacity, SalvoOptionError, SalvoRangeError } from '../../src/index.js';
import type { FindCapacityOptions } from '../../src/index.js';
import { testServer } from '../fixtures/test-server.js';

const url = 'http://127.0.0.1:9/';
const slo = { 'latency.p99': '< 50' };

async function rejects(t: Test, options: unknown, error: typeof SalvoOptionError | typeof SalvoRangeError, message: RegExp): Promise<void> {
  await t.rejects(findCapacity(options as FindCapacityOptions), error, 'error class');
  await t.rejects(findCapacity(options as FindCapacityOptions), { message }, String(message));
}

t.test('the search options', async (t) => {
  await rejects(t, { url }, SalvoOptionError, /^slo is required: the objective each step must meet/);
  await rejects(t, { url, slo: {} }, SalvoOptionError, /^slo must name at least one objective/);
  await rejects(t, { url, slo: { 'latency.p99x': '< 5' } }, SalvoOptionError, /^slo\['latency\.p99x'\] names an unknown metric/);
  await rejects(t, { url, slo: { 'latency.p99': '50' } }, SalvoOptionError, /^slo\['latency\.p99'\] has an invalid expression '50'/);
  await rejects(t, { url, slo, start: 0 }, SalvoRangeError, /^start must be a positive integer; got 0/);
  await rejects(t, { url, slo, start: 2.5 }, SalvoRangeError, /^start must be a positive integer; got 2\.5/);
  await rejects(t, { url, slo, max: '1000' }, SalvoOptionError, /^max must be a positive integer; got "1000"/);
  await rejects(t, { url, slo, start: 500, max: 100 }, SalvoRangeError, /^max must be at least start \(500\); got 100/);
  await rejects(t, { url, slo, precision: 5 }, SalvoRangeError, /^precision must be a fraction between 0 and 1 \(0\.05 is 5%\); got 5/);
  await rejects(t, { url, slo, precision: NaN }, SalvoRangeError, /^precision must be a fraction between 0 and 1 \(0\.05 is 5%\); got NaN/);
  await rejects(t, { url: 'ws://127.0.0.1:9/', slo }, SalvoOptionError, /^url: findCapacity searches HTTP request rates; a WebSocket url .*got "ws:\/\/127.0.0.1:9\/"/);
  await rejects(t, { url, slo, precision: '5%' }, SalvoOptionError, /^precision must be a fraction between 0 and 1/);
  await rejects(t, { url, slo, stepDuration: '1 minute' }, SalvoOptionError, /^stepDuration must be milliseconds or a string like/);
  await rejects(t, { url, slo, stepDuration: 0 }, SalvoRangeError, /^stepDuration must be more than zero; got 0/);
  await rejects(t, { url, slo, pause: -1 }, SalvoRangeError, /^pause must be zero or more; got -1/);
  await rejects(t, { url, slo, confirmDuration: 'long' }, SalvoOptionError, /^confirmDuration must be milliseconds/);
  await rejects(t, { url, slo, onStep: 'log' }, SalvoOptionError, /^onStep must be a function; got "log"/);
});

t.test('what the search sets for each step cannot be given', async (t) => {
  await rejects(t, { url, slo, rate: 100 }, SalvoOptionError, /^rate cannot be given to findCapacity: the search sets each step's rate; give start and max$/);
  await rejects(t, { url, slo, duration: '5s' }, SalvoOptionError, /^duration cannot be given to findCapacity: give stepDuration/);
  await rejects(t, { url, slo, amount: 10 }, SalvoOptionError, /^amount cannot be given to findCapacity/);
  await rejects(t, { url, slo, stages: [] }, SalvoOptionError, /^stages cannot be given to findCapacity/);
  await rejects(t, { url, slo, thresholds: slo }, SalvoOptionError, /^thresholds cannot be given to findCapacity: give the objective as slo/);
});

t.test("misspelt options get a suggestion from both the search's and runLoad's", async (t) => {
  await rejects(t, { url, slo, stepDuraton: '1s' }, SalvoOptionError, /^unknown option "stepDuraton"; did you mean stepDuration\?$/);
  await rejects(t, { url, slo, conections: 5 }, SalvoOptionError, /^unknown option "conections"; did you mean connections\?$/);
});

t.test("each step's load options are validated before the first step", async (t) => {
  const server = await testServer(t);
  await rejects(t, { url: server.url, slo, connections: 0 }, SalvoRangeError, /^connections must be a positive integer; got 0/);
  await rejects(t, { url: 'ftp://x/', slo }, SalvoOptionError, /^url must use http: or https:/);
  await rejects(t, { url: server.url, slo, warmup: 'soon' }, SalvoOptionError, /^warmup must be milliseconds/);
  t.equal(server.stats.requests, 0, 'nothing was sent');
});

t.test('outputs: every step of one search writes with one testid', async (t) => {
  const { planCapacity } = await import('../../src/capacity/options.js');
  const write = 'http://127.0.0.1:9/api/v1/write';
  const plan = await planCapacity({ url, slo, outputs: [{ type: 'prometheus', url: write }, { type: 'prometheus', url: write, labels: { team: 'a' } }] });
  const [first, second] = plan.stepOptions.outputs!;
  t.match(first!.labels!['testid'], /^salvo-[0-9a-f]{8}$/, 'generated once for the search, not per step');
  t.same(second!.labels, { team: 'a', testid: first!.labels!['testid'] });
  const given = await planCapacity({ url, slo, outputs: [{ type: 'prometheus', url: write, labels: { testid: 'search-1' } }] });
  t.same(given.stepOptions.outputs, [{ type: 'prometheus', url: write, labels: { testid: 'search-1' } }]);
  await rejects(t, { url, slo, outputs: [{ type: 'prometheus', url: 'nope' }] }, SalvoOptionError, /^outputs\[0\]\.url must be an http: or https: URL/);
});

t.test("requestSlo: each step's per-request objectives (runLoad's slo), for an objective on goodput", async (t) => {
  const { planCapacity } = await import('../../src/capacity/options.js');
  const llm = { api: 'openai-chat' as const, model: 'm', prompts: ['hi'] };
  const goodput = { 'goodput.rate': '>= 0.95' };
  const plan = await planCapacity({ url, llm, slo: goodput, requestSlo: { ttft: 500, tpot: 50 } });
  t.same([plan.stepOptions.slo, plan.stepOptions.thresholds], [{ ttft: 500, tpot: 50 }, goodput], "each step's slo is requestSlo, its thresholds the search's slo");
  t.equal((await planCapacity({ url, slo })).stepOptions.slo, undefined, 'no requestSlo: none');
  await rejects(t, { url, llm, slo: goodput }, SalvoOptionError, /^requestSlo is required by the objective's goodput/);
  await rejects(t, { url, llm, slo: { ttft: 500 } }, SalvoOptionError, /^slo here is the search's objective, such as \{ 'goodput\.rate': '>= 0\.95' \}; give each request's objectives .* as requestSlo/);
  await rejects(t, { url, llm, slo: goodput, requestSlo: { ttft: -1 } }, SalvoOptionError, /^requestSlo\.ttft must be a positive number of ms/);
  await rejects(t, { url, slo: goodput, requestSlo: { ttft: 5 } }, SalvoOptionError, /^requestSlo/);
});
