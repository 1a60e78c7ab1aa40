// stats/socketio-words.ts: a Socket.IO run's exchange in words, and why it sent nothing.
import t from 'tap';
import type { LoadResult, MergeSocketIo } from '../../src/shared/load-result.js';
import { socketIoExchange, socketIoNothingSent } from '../../src/stats/socketio-words.js';

const of = (socketio: MergeSocketIo | undefined) => ({ merge: { plan: { socketio } } }) as unknown as Pick<LoadResult, 'merge'>;

t.test('each mode in words, the rate per client and a namespace other than /', async (t) => {
  t.equal(socketIoExchange(of({ namespace: '/', emit: 'echo', mode: 'ack' })), "emits 'echo', timed by each acknowledgement (ack)");
  t.equal(socketIoExchange(of({ namespace: '/chat', emit: 'msg', rate: 5, mode: 'reply', event: 'answer' })), "emits 'msg' 5/s per client, timed to the next 'answer' (reply) on namespace /chat");
  t.equal(socketIoExchange(of({ namespace: '/', mode: 'listen', event: 'tick' })), "listens to 'tick' (listen)");
  t.equal(socketIoExchange(of({ namespace: '/', emit: 'join', mode: 'listen', event: 'tick' })), "emits 'join' and listens to 'tick' (listen)");
  t.equal(socketIoExchange(of({ namespace: '/', emit: 'fire', mode: 'none' })), "emits 'fire', untimed (no ack, reply or listen)");
  t.equal(socketIoExchange(of(undefined)), undefined);
});

t.test('nothing sent: the refused connects counted, or no connection accepted', async (t) => {
  const result = (socketio: MergeSocketIo, sent: number, byCode: Record<string, number>) =>
    ({ ...of(socketio), requests: { sent }, errors: { byCode } }) as unknown as Pick<LoadResult, 'merge' | 'errors' | 'requests'>;
  t.equal(socketIoNothingSent(result({ namespace: '/admin', emit: 'x', mode: 'ack' }, 0, { SIO_CONNECT_ERROR: 4 })), 'none sent: namespace /admin refused all 4 connects (SIO_CONNECT_ERROR)');
  t.equal(socketIoNothingSent(result({ namespace: '/', emit: 'x', mode: 'ack' }, 0, {})), 'none sent: no connection was accepted');
  t.equal(socketIoNothingSent(result({ namespace: '/', emit: 'x', mode: 'ack' }, 1, { SIO_CONNECT_ERROR: 4 })), undefined, 'it sent');
  t.equal(socketIoNothingSent(result({ namespace: '/', mode: 'listen', event: 'e' }, 0, {})), undefined, 'a listener sends nothing by design');
});
