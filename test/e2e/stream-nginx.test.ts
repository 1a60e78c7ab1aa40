// Streams through a real nginx, as users deploy SSE (`proxy_buffering off`), and with nginx's default
// `proxy_buffering on`: against a client that reads as fast as events come, nginx's buffered pipe
// still writes each read on at once (measured here, nginx 1.22), so both pass the events on time;
// buffering holds events only once the client falls behind (docs/streams.md).
import t from 'tap';
import { runLoad } from '../../src/index.js';
import { startNginx } from '../fixtures/nginx.js';
import { separateStreamServer } from '../fixtures/separate-stream-server.js';
import { inSomeRun } from '../fixtures/timing.js';

const DELAY_MS = 30;
const INTERVAL_MS = 20;
const EVENTS = 5;
const AMOUNT = 8;

/** Distinct client connections in nginx's access log (its `$connection` field). */
const connections = ({ lines }: { lines: string[] }): number => new Set(lines.map((line) => line.split(' ')[4])).size;

t.test('SSE behind nginx, proxy_buffering off and on: every event and token through, on time', async (t) => {
  const upstream = await separateStreamServer(t, { format: 'sse', delayMs: DELAY_MS, intervalMs: INTERVAL_MS, events: EVENTS });
  const origin = new URL(upstream.url).origin;
  const proxy = (buffering: 'on' | 'off') =>
    `location /${buffering}/ { proxy_pass ${origin}/; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering ${buffering}; }`;
  const nginx = await startNginx(t, { keepaliveRequests: 1000, locations: `${proxy('off')} ${proxy('on')}` });
  const stream = { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' } as const;

  await inSomeRun(t, 6, async (timing) => {
    await upstream.applied();
    nginx.clearLog();
    const unbuffered = await runLoad({ url: `${nginx.http1Url}off/`, connections: 2, amount: AMOUNT, stream });
    const applied = await upstream.applied();
    t.equal(unbuffered.stream!.events, AMOUNT * EVENTS, 'every event through the proxy, the [DONE] marker not counted');
    t.equal(unbuffered.stream!.outputTokens, AMOUNT * EVENTS, 'every token through the proxy');
    t.equal(unbuffered.stream!.ended, AMOUNT);
    t.equal(connections(await nginx.processed()), 2, 'two connections carried the eight streams: the body is read to its end after [DONE]');
    nginx.clearLog();
    timing.hostKept(applied.firstEventMs < DELAY_MS + 3, `the host let the upstream keep its delay (${applied.firstEventMs.toFixed(3)} ms)`);
    // nginx adds its own hop (two more socket writes and reads), and a loaded host a few ms to each;
    // the head taken for the first event is 30 ms early, the body's end 80 ms late.
    timing.ok(unbuffered.stream!.firstEvent.p50 - applied.firstEventMs < 5, `unbuffered first event p50 ${unbuffered.stream!.firstEvent.p50} ms within 5 ms of the upstream's ${applied.firstEventMs.toFixed(3)} ms`);
    timing.ok(unbuffered.stream!.firstEvent.p50 >= applied.firstEventMs - 0.5, `unbuffered first event p50 ${unbuffered.stream!.firstEvent.p50} ms not before the upstream's`);
    timing.ok(Math.abs(unbuffered.stream!.gap.mean - applied.gapMs) < 1, `unbuffered gap mean ${unbuffered.stream!.gap.mean.toFixed(3)} ms within 1 ms of the upstream's ${applied.gapMs.toFixed(3)} ms`);

    const buffered = await runLoad({ url: `${nginx.http1Url}on/`, connections: 2, amount: AMOUNT, stream });
    const appliedBuffered = await upstream.applied();
    t.equal(buffered.stream!.outputTokens, AMOUNT * EVENTS, 'buffered: every token through the proxy');
    t.equal(connections(await nginx.processed()), 2, 'buffered: two connections too');
    nginx.clearLog();
    timing.ok(buffered.stream!.firstEvent.p50 - appliedBuffered.firstEventMs < 5, `buffered first event p50 ${buffered.stream!.firstEvent.p50} ms within 5 ms of the upstream's ${appliedBuffered.firstEventMs.toFixed(3)} ms`);
    timing.ok(Math.abs(buffered.stream!.gap.mean - appliedBuffered.gapMs) < 1, `buffered gap mean ${buffered.stream!.gap.mean.toFixed(3)} ms within 1 ms of the upstream's ${appliedBuffered.gapMs.toFixed(3)} ms`);
  });
});
