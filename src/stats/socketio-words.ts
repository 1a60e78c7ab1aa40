// What a Socket.IO run did, in words, for formatResult and the report: the event, how it was timed
// (ack, reply, listen) and the namespace, so that a broadcast run does not read as an echo run.
import type { LoadResult, MergeSocketIo } from '../shared/load-result.js';

const quoted = (event: string) => `'${event}'`;

/** `emits 'echo', timed by each acknowledgement (ack)`, and so on; undefined for any other run. */
export function socketIoExchange(result: Pick<LoadResult, 'merge'>): string | undefined {
  const sio: MergeSocketIo | undefined = result.merge?.plan?.socketio;
  if (sio === undefined) return undefined;
  const emits =
    sio.emit === undefined
      ? undefined
      : `emits ${quoted(sio.emit)}${sio.rate === undefined ? '' : ` ${sio.rate}/s per client`}`;
  let what: string;
  if (sio.mode === 'ack') what = `${emits}, timed by each acknowledgement (ack)`;
  else if (sio.mode === 'reply') what = `${emits}, timed to the next ${quoted(sio.event!)} (reply)`;
  else if (sio.mode === 'listen')
    what = `${emits === undefined ? 'listens' : `${emits} and listens`} to ${quoted(sio.event!)} (listen)`;
  else what = `${emits}, untimed (no ack, reply or listen)`;
  return sio.namespace === '/' ? what : `${what} on namespace ${sio.namespace}`;
}

/**
 * Why a Socket.IO run sent nothing, when it was meant to: the namespace refused every connect
 * (`SIO_CONNECT_ERROR`); undefined when it sent, only listens, or is no Socket.IO run.
 */
export function socketIoNothingSent(result: Pick<LoadResult, 'merge' | 'errors' | 'requests'>): string | undefined {
  const sio = result.merge?.plan?.socketio;
  if (sio?.emit === undefined || result.requests.sent > 0) return undefined;
  const refused = result.errors.byCode['SIO_CONNECT_ERROR'] ?? 0;
  return refused > 0
    ? `none sent: namespace ${sio.namespace} refused all ${refused} connects (SIO_CONNECT_ERROR)`
    : 'none sent: no connection was accepted';
}
