// A thread's WebSocket connections as a set: the settings they open with, the stage ramp's opening and
// closing of them, and the closing handshakes at the end, which may take `CLOSE_GRACE_MS` before sockets drop.
import type { Plan } from '../shared/plan.js';
import type { WebSocketHooks } from '../shared/websocket.js';
import { socketSettings, type SocketSettings, type WsConnection } from './connection.js';
import type { OpeningQueue } from './opening.js';

/** At the end, how long closing handshakes may take before the sockets are dropped. */
export const CLOSE_GRACE_MS = 1000;
export const NORMAL_CLOSURE = 1000;

/** What every connection of a run opens with. */
export function planSocketSettings(plan: Plan, hooks: WebSocketHooks | undefined): SocketSettings {
  const ws = plan.websocket!;
  return socketSettings(plan.url, {
    headers: ws.headers,
    protocols: ws.protocols,
    perMessageDeflate: ws.perMessageDeflate,
    tlsOptions: plan.tls,
    timeoutMs: plan.timeoutMs,
    keepsMessages: hooks?.timestamp !== undefined,
  });
}

/** Connection `stages`: opens or closes the connections between the `before` and `target` counts. */
export function rampConnections(
  connections: readonly WsConnection[],
  before: number,
  target: number,
  opening: OpeningQueue,
): void {
  for (let index = Math.min(before, target); index < Math.max(before, target); index++) {
    const connection = connections[index]!;
    if (target > before) {
      if (connection.socket === undefined && connection.timer === undefined) opening.request(connection);
    } else if (connection.socket !== undefined) {
      connection.closing = true;
      clearTimeout(connection.timer);
      connection.timer = undefined;
      connection.socket.close(NORMAL_CLOSURE);
    }
  }
}

/** The closing handshakes at the end: `then` runs once every socket closed, or after the grace. */
export class ClosingSockets {
  /** Sockets whose close has not come yet. */
  #left = 0;
  #allClosed: (() => void) | undefined;

  closeAll(connections: readonly WsConnection[], then: () => void): void {
    const sockets = connections.filter((connection) => {
      clearTimeout(connection.timer);
      connection.timer = undefined;
      return connection.socket !== undefined;
    });
    if (sockets.length === 0) return then();
    this.#left = sockets.length;
    const grace = setTimeout(() => {
      for (const connection of sockets) connection.socket?.terminate();
      finish();
    }, CLOSE_GRACE_MS);
    const finish = () => {
      this.#allClosed = undefined;
      clearTimeout(grace);
      then();
    };
    this.#allClosed = finish;
    for (const connection of sockets) {
      connection.closing = true;
      if (connection.open) connection.socket!.close(NORMAL_CLOSURE);
      else connection.socket!.terminate();
    }
  }

  /** A socket closed after the end. */
  closed(): void {
    if (--this.#left === 0) this.#allClosed?.();
  }
}
