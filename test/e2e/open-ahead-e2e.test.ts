// Every transport opens its connections before the clock: the first wave of requests is not timed
// with the connections it would otherwise open (undici and node:http connected on the first request).
import t from 'tap';
import { runLoad } from '../../src/index.js';
import type { TransportName } from '../../src/shared/terms.js';
import { separateStreamServer } from '../fixtures/separate-stream-server.js';
import { inSomeRun } from '../fixtures/timing.js';

const DELAY_MS = 50;
const STREAMS = 20;

for (const transport of ['net', 'undici', 'http', 'h2'] as TransportName[]) {
  t.test(`${transport}: one wave of ${STREAMS} streams against a ${DELAY_MS} ms server, its connections opened before the clock`, async (t) => {
    const server = await separateStreamServer(t, { format: 'sse', delayMs: DELAY_MS, intervalMs: 1, events: 1, h2: transport === 'h2' });
    await inSomeRun(t, 6, async (timing) => {
      await server.applied();
      const result = await runLoad({ url: server.url, transport, connections: STREAMS, amount: STREAMS, stream: { format: 'sse' } });
      const applied = await server.applied();
      t.equal(result.requests.completed, STREAMS);
      t.equal(applied.connections, STREAMS, 'one connection per stream');
      // The server's process accepts what the kernel already connected in its own time: a busy host
      // can read the first request before it has accepted the last connections (11 of 20 seen once).
      timing.ok(applied.connectionsBeforeFirstRequest === STREAMS, `every connection was open before the first request came (${applied.connectionsBeforeFirstRequest} of ${STREAMS})`);
      t.equal(result.phases?.connect?.count, STREAMS, 'their set-up is in phases');
      timing.hostKept(applied.firstEventMs < DELAY_MS + 5, `the host let the server keep its delay (${applied.firstEventMs.toFixed(1)} ms)`);
      // Opening a connection inside the first wave added 11-39 ms on undici and http (83 ms for 50).
      timing.ok(result.stream!.firstEvent.mean - applied.firstEventMs < 10, `first event mean ${result.stream!.firstEvent.mean.toFixed(1)} ms for the server's ${applied.firstEventMs.toFixed(1)} ms`);
    });
  });
}
