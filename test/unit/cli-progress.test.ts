// The progress line: rewritten in place on a terminal, one line per second elsewhere.
import t from 'tap';
import { ProgressLine } from '../../src/cli/progress-line.js';
import type { ProgressEvent } from '../../src/index.js';
import { Capture } from '../fixtures/cli.js';

function event(second: number, sent: number): ProgressEvent {
  return { second, sent: 1234, completed: 1200, errors: 1, retried: 0, p50: 1.234, p99: 56.78, connections: 10, cpuPercent: 12, eventLoopUtilization: 0.12, totals: { sent, completed: sent - 2, errors: 3, retried: 0 } };
}

t.test('not a terminal: one line per second, each complete', async (t) => {
  const out = new Capture(false);
  const progress = new ProgressLine(out, { plannedMs: 4000 });
  progress.update(event(0, 1234));
  progress.update(event(1, 2468));
  progress.end();
  t.equal(
    out.text,
    '1s/4s [#####...............]  1,200 req/s  p50 1.23 ms  p99 56.8 ms  errors 3  10 conns\n' +
      '2s/4s [##########..........]  1,200 req/s  p50 1.23 ms  p99 56.8 ms  errors 3  10 conns\n',
  );
});

t.test('a terminal: one line rewritten in place, cut to the width, ended by a newline', async (t) => {
  const out = new Capture(true, 40);
  const progress = new ProgressLine(out, { plannedAmount: 10_000 });
  progress.update(event(0, 2500));
  progress.update(event(1, 5000));
  progress.end();
  // 39 columns: one short of the width, so the line never wraps and \r returns to its start.
  t.equal(out.text, '\r\x1b[K1s 2,500/10,000 [#####...............] \r\x1b[K2s 5,000/10,000 [##########..........] \n');
});

t.test('a terminal with no progress written gets no stray newline', async (t) => {
  const out = new Capture(true, 80);
  new ProgressLine(out, {}).end();
  t.equal(out.text, '');
});

t.test('a Socket.IO or WebSocket run counts messages a second, not requests', async (t) => {
  for (const options of [{ url: 'http://127.0.0.1:1', socketio: { listen: { event: 'tick' } } }, { url: 'ws://127.0.0.1:1/' }]) {
    const out = new Capture(false);
    new ProgressLine(out, { plannedMs: 4000, options }).update(event(0, 1234));
    t.match(out.text, '  1,200 msg/s  ', options.url);
  }
});

t.test('a task run counts calls a second and the calls in flight, not requests and connections', async (t) => {
  const out = new Capture(false);
  new ProgressLine(out, { plannedMs: 4000, options: { task: './task.mjs' } }).update(event(0, 1234));
  t.match(out.text, '  1,200 calls/s  ');
  t.match(out.text, ' in flight');
  t.notMatch(out.text, /req\/s|conns/);
});

t.test('SSE subscriptions count events a second, not the few subscription requests that ended', async (t) => {
  const out = new Capture(false);
  const second = { ...event(0, 1234), stream: { events: 5000, outputTokens: 0, firstEventP50: 1, firstEventP99: 2 } };
  new ProgressLine(out, { plannedMs: 4000, options: { url: 'http://127.0.0.1:1/events', stream: { subscribe: true } } }).update(second);
  t.equal(out.text, '1s/4s [#####...............]  5,000 events/s  errors 3  10 conns\n');
});
