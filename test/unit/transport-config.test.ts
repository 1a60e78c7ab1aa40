// engine/transport-config.ts: a transport's settings from the plan: the run's peak connections and
// the lanes of each, with the plan's connection settings and what the caller adds.
import t from 'tap';
import { transportConfig } from '../../src/engine/transport-config.js';
import { planLoad } from '../../src/options.js';
import type { PhaseRecorder } from '../../src/stats/phases.js';

const phases = {} as PhaseRecorder;

t.test('connections and pipelining from the plan, the caller’s own fields on top', async (t) => {
  const { plan } = planLoad({ url: 'http://127.0.0.1:9/x', connections: 6, pipelining: 3, keepAlive: true, timeout: '2s', amount: 10 });
  const config = transportConfig(plan, phases, { captureResponses: true });
  t.equal(config.url.href, 'http://127.0.0.1:9/x');
  t.same({ connections: config.connections, pipelining: config.pipelining, keepAlive: config.keepAlive, timeoutMs: config.timeoutMs }, { connections: 6, pipelining: 3, keepAlive: true, timeoutMs: 2000 });
  t.equal(config.phases, phases);
  t.equal(config.captureResponses, true);
});

t.test('connection stages: the peak of the stages, not the first', async (t) => {
  const { plan } = planLoad({ url: 'http://127.0.0.1:9/', connections: 2, stages: [{ duration: '1s', connections: 10 }, { duration: '1s', connections: 4 }] });
  t.equal(transportConfig(plan, phases, { captureResponses: false }).connections, 10);
});

t.test('h2: the streams per connection are its lanes', async (t) => {
  const { plan } = planLoad({ url: 'http://127.0.0.1:9/', transport: 'h2', connections: 2, h2Streams: 16, amount: 10 });
  t.same({ connections: transportConfig(plan, phases, { captureResponses: false }).connections, pipelining: transportConfig(plan, phases, { captureResponses: false }).pipelining }, { connections: 2, pipelining: 16 });
});
