// Socket.IO runs against a real socket.io server: exact counts at both ends (the server's handler
// sees exactly `messages.sent` emits), acks, reply events, broadcast timestamps, namespaces and auth,
// pings, server disconnects, binary attachments, workers.
import t from 'tap';
import { formatResult, runLoad } from '../src/index.js';
import { socketIoServer } from './fixtures/socketio-server.js';

t.test('echo with acks: exact counts at the server and the client', async (t) => {
  const server = await socketIoServer(t);
  const result = await runLoad({ url: server.url, connections: 5, amount: 503, socketio: { emit: { event: 'echo', data: { hello: 1 } }, ack: true } });
  t.equal(server.stats.echoes, 503, "the server's handler saw exactly amount emits");
  t.same(result.messages && { sent: result.messages.sent, received: result.messages.received }, { sent: 503, received: 503 });
  t.equal(result.transport, 'socket.io');
  t.equal(server.stats.connects, 5, 'one namespace connection per connection');
  t.equal(result.errors.total, 0);
  t.equal(result.latency.count ?? result.timeline.reduce((sum, s) => sum + s.completed, 0), 503);
  t.equal(result.phases.handshake?.count, 5, 'the Engine.IO open and namespace connect as the handshake');
  t.same(result.statusCodes, { '101': 5 });
  t.match(formatResult(result), /Messages +503 sent, 503 received/);
});
