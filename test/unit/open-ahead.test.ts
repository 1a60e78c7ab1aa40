// engine/open-ahead.ts: connections opened before the clock, for at most the request timeout; a
// warning with the counts when some had not opened.
import t from 'tap';
import { openAhead } from '../../src/engine/open-ahead.js';
import type { Transport } from '../../src/transports/transport.js';

/** A transport whose connect resolves after `ms` (never when undefined) with `open` connections open. */
const fake = (ms: number | undefined, open: number) =>
  ({
    connect: () => new Promise<void>((resolve) => { if (ms !== undefined) setTimeout(resolve, ms); }),
    openConnections: () => open,
  }) as unknown as Transport;

t.test('all opened in time: no warning', async (t) => {
  t.equal(await openAhead(fake(1, 8), 8, 5_000, undefined), undefined);
});

t.test('a handshake that never ends: the clock starts at the timeout, with a warning naming the counts', async (t) => {
  const started = performance.now();
  const warning = await openAhead(fake(undefined, 3), 8, 150, undefined);
  t.ok(performance.now() - started >= 145, 'it waited the timeout');
  t.equal(warning?.code, 'CONNECTIONS_NOT_OPEN');
  t.match(warning?.message, /^3 of 8 connections had opened 150 ms \(the request timeout\) after the run began opening them/);
  t.equal(await openAhead(fake(undefined, 8), 8, 50, undefined), undefined, 'every one open though connect had not resolved: no warning');
});

t.test('an abort ends the wait at once, without a warning', async (t) => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const started = performance.now();
  t.equal(await openAhead(fake(undefined, 0), 8, 60_000, controller.signal), undefined);
  t.ok(performance.now() - started < 30_000, 'not the 60 s timeout');
});
