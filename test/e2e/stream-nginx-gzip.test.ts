// Streams through a real nginx with `gzip on`, as a site that compresses everything deploys it:
// salvo asks for gzip (`compressed`), decodes each read as it comes, and so sees what a browser's
// EventSource sees: with `proxy_buffering off` nginx flushes its gzip stream per upstream read and
// the events come on time; with buffering on it holds them until the body's end.
import t from 'tap';
import { runLoad } from '../../src/index.js';
import type { TransportName } from '../../src/shared/terms.js';
import { startNginx } from '../fixtures/nginx.js';
import { separateStreamServer } from '../fixtures/separate-stream-server.js';
import { inSomeRun } from '../fixtures/timing.js';

const DELAY_MS = 30;
const INTERVAL_MS = 20;
const EVENTS = 5;
const AMOUNT = 6;

t.test('SSE behind nginx gzip on: every event decoded; buffering off on time, buffering on held to the end', async (t) => {
  const upstream = await separateStreamServer(t, { format: 'sse', delayMs: DELAY_MS, intervalMs: INTERVAL_MS, events: EVENTS });
  const origin = new URL(upstream.url).origin;
  const proxy = (buffering: 'on' | 'off') =>
    `location /${buffering}/ { proxy_pass ${origin}/; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering ${buffering}; ` +
    'gzip on; gzip_types text/event-stream; gzip_min_length 1; gzip_proxied any; }';
  const nginx = await startNginx(t, { keepaliveRequests: 1000, locations: `${proxy('off')} ${proxy('on')}` });
  const stream = { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' } as const;

  for (const transport of ['net', 'undici', 'http', 'h2'] as TransportName[]) {
    const base = transport === 'h2' ? nginx.h2cUrl : nginx.http1Url;
    await inSomeRun(t, 4, async (timing) => {
      await upstream.applied();
      const off = await runLoad({ url: `${base}off/`, transport, connections: 2, amount: AMOUNT, compressed: true, stream });
      const applied = await upstream.applied();
      t.equal(off.errors.total, 0, `${transport}: no errors`);
      t.equal(off.stream!.events, AMOUNT * EVENTS, `${transport}: every event through gzip, the [DONE] marker no event`);
      t.equal(off.stream!.outputTokens, AMOUNT * EVENTS, `${transport}: every token`);
      timing.hostKept(applied.firstEventMs < DELAY_MS + 3, `the host let the upstream keep its delay (${applied.firstEventMs.toFixed(3)} ms)`);
      timing.ok(off.stream!.firstEvent.p50 - applied.firstEventMs < 5, `${transport}, buffering off: first event p50 ${off.stream!.firstEvent.p50} ms within 5 ms of the upstream's ${applied.firstEventMs.toFixed(3)} ms`);
      timing.ok(Math.abs(off.stream!.gap.mean - applied.gapMs) < 2, `${transport}, buffering off: gap mean ${off.stream!.gap.mean.toFixed(3)} ms within 2 ms of the upstream's ${applied.gapMs.toFixed(3)} ms`);

      const on = await runLoad({ url: `${base}on/`, transport, connections: 2, amount: AMOUNT, compressed: true, stream });
      t.equal(on.stream!.events, AMOUNT * EVENTS, `${transport}, buffering on: every event, at the end`);
      // The whole answer takes DELAY_MS + EVENTS * INTERVAL_MS; gzip's hold-back puts every event there.
      const wholeMs = DELAY_MS + EVENTS * INTERVAL_MS;
      timing.ok(on.stream!.firstEvent.p50 > wholeMs - 10, `${transport}, buffering on: first event p50 ${on.stream!.firstEvent.p50} ms, at the body's end (${wholeMs} ms), as a browser sees it`);
      timing.ok(on.stream!.gap.p50 < 1, `${transport}, buffering on: gaps collapse (p50 ${on.stream!.gap.p50} ms)`);
    });
  }
});
