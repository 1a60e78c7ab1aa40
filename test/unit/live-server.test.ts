// The live page's server without a browser: every open page gets each second and the redrawn view,
// a page opened late gets every earlier second first, a page that goes away is forgotten, the end
// sends the report and closes, and the controls answer 403 unless the run allows them.
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import t, { type Test } from 'tap';
import { LiveServer } from '../../src/live/server.js';
import { liveView } from '../../src/live/view.js';
import type { ProgressEvent } from '../../src/shared/load-result.js';
import type { RunControl } from '../../src/shared/run-control.js';
import { EventReader } from '../fixtures/event-reader.js';

const RUN = { url: 'http://127.0.0.1:9/', kind: 'http' as const, transport: 'net' };

function second(n: number): ProgressEvent {
  return {
    second: n, sent: 100 + n, completed: 100 + n, errors: n % 2, retried: 0, p50: 1 + n / 10, p99: 2 + n / 10,
    connections: 10, cpuPercent: 5, eventLoopUtilization: 0.1,
    totals: { sent: 100 * (n + 1), completed: 100 * (n + 1), errors: n, retried: 0 },
  };
}

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const response = await fetch(new URL(path, url), { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as { ok?: true; error?: string } };
}

async function start(t: Test, control = false, runControl?: Partial<RunControl>) {
  let views = 0;
  const server = await LiveServer.start({
    port: 0, host: '127.0.0.1', control, runControl, title: 'live',
    view: (seconds) => { views++; return liveView(RUN, seconds); },
  });
  t.teardown(() => server.close());
  return { server, views: () => views };
}

t.test('two pages get every second; one opened late gets the earlier ones first; one that goes away is forgotten', async (t) => {
  const { server, views } = await start(t);
  t.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  server.second(second(0));
  t.equal(views(), 0, 'nothing is drawn while no page is open');
  const a = await EventReader.open(server.url);
  await a.until('second', 1);
  const b = await EventReader.open(server.url);
  await b.until('view', 1);
  t.equal(server.pages, 2);
  for (let n = 1; n < 4; n++) server.second(second(n));
  await a.until('view', 4);
  await b.until('view', 4);
  t.same(a.of('second'), [0, 1, 2, 3].map((n) => JSON.parse(JSON.stringify(second(n)))), 'each second, as onProgress had it');
  t.same(b.of('second'), a.of('second'));
  t.equal(views(), 4, 'one drawing per second whatever the number of pages');
  const view = a.of('view').at(-1) as { charts: Array<{ id: string; x: number[]; series: Array<{ label: string; values: number[] }> }> };
  const throughput = view.charts.find((chart) => chart.id === 'chart-throughput')!;
  t.same(throughput.x, [1, 2, 3, 4]);
  t.same(throughput.series[0]!.values, [100, 101, 102, 103], 'the drawn completed per second');

  b.response.destroy();
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(server.pages, 1, 'the closed page is forgotten');
  server.second(second(4));
  const late = await EventReader.open(server.url);
  await late.until('view', 1);
  t.same(late.of('second').map((s) => (s as ProgressEvent).second), [0, 1, 2, 3, 4], 'a late page gets every second so far');
  t.equal(late.of('view').length, 1, 'then one view of them');

  const page = await (await fetch(server.url)).text();
  t.match(page, /id="live-body"/);
  t.notMatch(page, /id="live-controls"/, 'no controls without control: true');
  await server.finish('<!doctype html><p>the report</p>');
  await a.until('final', 1);
  await late.until('final', 1);
  t.same(a.of('final'), ['<!doctype html><p>the report</p>'], 'the open pages get the report');
  t.ok(a.ended && late.ended, 'and their streams end');
  await t.rejects(fetch(server.url), 'the server is closed after the run');
});

t.test('controls answer 403 unless the run allows them', async (t) => {
  const { server } = await start(t, false, { stop: () => void t.fail('must not stop') });
  for (const path of ['control/stop', 'control/rate', 'control/connections']) {
    const answer = await post(server.url, path, { value: 5 });
    t.equal(answer.status, 403, path);
    t.match(answer.body.error, /control: true/);
  }
  t.equal((await fetch(new URL('nothing', server.url))).status, 404);
  const rebound = request(server.url, { headers: { host: 'evil.example:80' } });
  rebound.end();
  const [answer] = (await once(rebound, 'response')) as [IncomingMessage];
  answer.resume();
  t.equal(answer.statusCode, 403, 'another host name (DNS rebinding) is refused');
});

t.test('with control: true the controls call the run handle, checking what they are given', async (t) => {
  const calls: string[] = [];
  const fake: RunControl = {
    setRate: (rate) => void calls.push(`rate ${rate}`),
    setConnections: (connections) => void calls.push(`connections ${connections}`),
    stop: async () => void calls.push('stop'),
  };
  const { server } = await start(t, true, fake);
  t.match(await (await fetch(server.url)).text(), /id="live-controls"/, 'the page shows the controls');
  t.same(await post(server.url, 'control/rate', { value: 3000 }), { status: 200, body: { ok: true } });
  t.same(await post(server.url, 'control/connections', { value: 20 }), { status: 200, body: { ok: true } });
  t.equal((await post(server.url, 'control/connections', { value: 2.5 })).status, 400, 'connections are whole');
  t.equal((await post(server.url, 'control/rate', { value: -1 })).status, 400);
  t.equal((await post(server.url, 'control/rate', { value: 5 }, { 'content-type': 'text/plain' })).status, 415, 'a form post from another site is refused');
  t.equal((await post(server.url, 'control/rate', { value: 5 }, { 'content-type': 'application/json', origin: 'http://evil.example' })).status, 403, 'another origin is refused');
  t.same(await post(server.url, 'control/stop', {}), { status: 200, body: { ok: true } });
  t.equal((await post(server.url, 'control/pause', {})).status, 404);
  t.same(calls, ['rate 3000', 'connections 20', 'stop']);
});

t.test('a run that fails tells its open pages, then the server closes', async (t) => {
  const { server } = await start(t);
  const page = await EventReader.open(server.url);
  server.second(second(0));
  await page.until('view', 1);
  await server.fail('connections must be at least 1');
  await page.until('failed', 1);
  t.same(page.of('failed'), ['connections must be at least 1']);
  t.ok(page.ended);
  await t.rejects(fetch(server.url));
});

t.test('a control the handle lacks answers 501', async (t) => {
  const { server } = await start(t, true, { stop: () => {} });
  t.equal((await post(server.url, 'control/rate', { value: 10 })).status, 501);
});
