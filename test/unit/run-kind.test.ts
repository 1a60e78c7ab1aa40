// The kind of a run is named once, when it is planned (`plan.kind`), and carried in the result
// (`merge.plan.kind`); results saved without it say it through their transport.
import t from 'tap';
import { planLoad } from '../../src/options.js';
import { countsMessages, resultKind } from '../../src/shared/run-kind.js';

t.test('planLoad names the kind of each run', async (t) => {
  const url = 'http://127.0.0.1:9/';
  const kind = (options: Parameters<typeof planLoad>[0]) => planLoad(options).plan.kind;
  t.equal(kind({ url }), 'http');
  t.equal(kind({ url, transport: 'h2' }), 'http');
  t.equal(kind({ url: 'ws://127.0.0.1:9/' }), 'websocket');
  t.equal(kind({ url, socketio: { emit: { event: 'ping', data: 1 }, ack: true } }), 'socketio');
  t.equal(kind({ task: async () => {} }), 'task');
  t.equal(kind({ url, stream: { format: 'sse', subscribe: true } }), 'subscription');
  t.equal(kind({ url, stream: { format: 'sse' } }), 'http', 'a stream of responses is still HTTP requests');
});

t.test('resultKind reads the plan, or the transport of an older result', async (t) => {
  t.equal(resultKind({ transport: 'net', merge: { plan: { kind: 'subscription' } } }), 'subscription');
  t.equal(resultKind({ transport: 'socket.io' }), 'socketio');
  t.equal(resultKind({ transport: 'task' }), 'task');
  t.equal(resultKind({ transport: 'undici' }), 'http');
  t.same(['http', 'websocket', 'socketio', 'task', 'subscription'].map((kind) => countsMessages(kind as never)), [false, true, true, false, false]);
});
