// Against a real nginx that closes connections after `keepalive_requests 50`: HTTP/2 sessions end with
// a GOAWAY whose last stream id leaves the streams above it unprocessed, HTTP/1.1 connections with
// `Connection: close` on the 50th response and the pipelined requests behind it unread. Each of those
// is sent again once, and no request is processed twice: h2 has no errors and nginx's access log one
// line per completed request; HTTP/1.1 logs each request's id (x-id), and a reset that drops
// responses nginx sent leaves the requests it caught as errors, never sent again.
import t from 'tap';
import { runLoad, type LoadResult } from '../../src/index.js';
import { startNginx } from '../fixtures/nginx.js';
import { inSomeRun } from '../fixtures/timing.js';

const AMOUNT = 2000;

function numbers(result: LoadResult, logged: number): string {
  const { sent, completed, retried } = result.requests;
  return `sent ${sent}, completed ${completed}, access-log lines ${logged}, errors ${result.errors.total} ${JSON.stringify(result.errors.byCode)}, retried ${retried}`;
}

t.test('nginx keepalive_requests 50', async (t) => {
  const nginx = await startNginx(t, { keepaliveRequests: 50 });

  // Whether streams were in flight above a GOAWAY's last stream id (or pipelined behind a 50th
  // response) is the host's timing: a stalled client may have none, so `retried > 0` is a timing claim.
  t.test('h2c, 4 connections x 10 streams', (t) =>
    inSomeRun(t, 3, async (timing) => {
      nginx.clearLog();
      const result = await runLoad({ url: nginx.h2cUrl, transport: 'h2', connections: 4, h2Streams: 10, amount: AMOUNT });
      const { h2c } = await nginx.processed();
      t.comment(`h2c: ${numbers(result, h2c)}`);
      t.same(result.errors.byCode, {}, 'no errors');
      t.equal(result.requests.completed, AMOUNT);
      t.equal(h2c, result.requests.completed, 'one access-log line per completed request: none processed twice');
      timing.ok(result.requests.retried > 0, `the streams above each GOAWAY's last stream id went again: ${result.requests.retried}`);
    }),
  );

  t.test('h2c with retry: false: the GOAWAYs cost requests', (t) =>
    inSomeRun(t, 3, async (timing) => {
      nginx.clearLog();
      const result = await runLoad({ url: nginx.h2cUrl, transport: 'h2', connections: 4, h2Streams: 10, amount: AMOUNT, retry: false });
      const { h2c } = await nginx.processed();
      t.comment(`h2c, retry false: ${numbers(result, h2c)}`);
      timing.ok((result.errors.byCode.H2_GOAWAY ?? 0) > 0, 'requests above a last stream id are H2_GOAWAY');
      t.equal(result.requests.retried, 0);
      t.equal(h2c, result.requests.completed, 'what nginx processed, it answered');
    }),
  );

  for (const transport of ['net', 'undici'] as const) {
    t.test(`HTTP/1.1 (${transport}), 4 connections x pipelining 4`, (t) =>
      inSomeRun(t, 3, async (timing) => {
        nginx.clearLog();
        // Each request carries an id (x-id), which nginx logs and answers with: an id logged twice was processed twice.
        let next = 0;
        const answered = new Set<string>();
        const result = await runLoad({
          url: nginx.http1Url,
          transport,
          connections: 4,
          pipelining: 4,
          amount: AMOUNT,
          requests: [
            {
              setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-id': String(next++) } }),
              onResponse: (_status, body) => void answered.add(body.toString()),
            },
          ],
        });
        const { http1, http1Ids } = await nginx.processed();
        const { completed } = result.requests;
        const errors = result.errors.total;
        t.comment(`${transport}: ${numbers(result, http1)}`);
        t.equal(new Set(http1Ids).size, http1Ids.length, 'no id in the access log twice: no request processed twice');
        t.equal(completed + errors, AMOUNT, 'each request completed or failed');
        t.equal(answered.size, completed, 'each response answered a request of its own');
        t.ok([...answered].every((id) => http1Ids.includes(id)), 'each completed request is in the access log');
        // nginx's default lingering_close: a close after the 50th response that races the pipelined
        // requests behind it is a reset, which can drop responses nginx sent (the requests it processed
        // are then errors, never sent again); with none of those, one line per completed request.
        t.ok(http1 - completed <= errors, `access-log lines beyond completed (${http1 - completed}) are requests that failed`);
        if (errors === 0) t.equal(http1, AMOUNT, 'one access-log line per completed request');
        // The request that met the reset under its code, the ones pipelined behind it ECONNCLOSED.
        t.ok(Object.keys(result.errors.byCode).every((code) => ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNCLOSED'].includes(code)), 'only closes');
        timing.ok(result.requests.retried > 0, `the requests pipelined behind each 50th response went again: ${result.requests.retried}`);
      }),
    );
  }
});
