import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { PhaseRecorder } from '../stats/phases.js';

/**
 * Records the connect (and TLS) time of a socket that has just started connecting, once it is
 * ready, into `phases`. Listeners are added once per connection, never per request. The clock
 * starts now and starts again at 'lookup', so a DNS lookup is not counted as connecting (as k6's
 * ConnectStart comes after DNSDone); TLS runs from TCP 'connect' to 'secureConnect'. A connection
 * that fails before it is ready records nothing.
 */
export function watchConnect(socket: Socket, secure: boolean, phases: PhaseRecorder): void {
  let startAt = performance.now();
  let tcpAt = 0;
  socket.once('lookup', () => {
    startAt = performance.now();
  });
  socket.once('connect', () => {
    tcpAt = performance.now();
    if (!secure) phases.recordConnection(tcpAt - startAt, undefined);
  });
  if (secure) {
    socket.once('secureConnect', () => {
      // Failed by the session store's certificate check (`SessionStore.accept`) just before.
      if (socket.destroyed) return;
      const readyAt = performance.now();
      // A TLS socket layered on a socket connected elsewhere never sees its own 'connect'.
      if (tcpAt === 0) tcpAt = startAt;
      phases.recordConnection(tcpAt - startAt, readyAt - tcpAt);
    });
  }
}
