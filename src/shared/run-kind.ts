/**
 * What a run drives, named once when it is planned (`plan.kind`, `result.merge.plan.kind`) and read
 * everywhere after: HTTP requests, WebSocket or Socket.IO messages, calls of a user's task, or SSE
 * subscriptions held for the run (`stream.subscribe`).
 */
export type RunKind = 'http' | 'websocket' | 'socketio' | 'task' | 'subscription';

/** The kind of a result's run; results saved before `kind` existed say it through their transport. */
export function resultKind(result: { transport: string; merge?: { plan?: { kind?: RunKind } } }): RunKind {
  return result.merge?.plan?.kind ?? transportKind(result.transport);
}

/** The kind a transport alone says (never `'subscription'`, which is an HTTP transport's). */
export function transportKind(transport: string): RunKind {
  if (transport === 'websocket' || transport === 'task') return transport;
  return transport === 'socket.io' ? 'socketio' : 'http';
}

/** Whether a run of this kind counts messages (WebSocket, Socket.IO) rather than requests or calls. */
export function countsMessages(kind: RunKind): boolean {
  return kind === 'websocket' || kind === 'socketio';
}
