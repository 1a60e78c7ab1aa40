import type http from 'node:http';
import { isIP, type Socket } from 'node:net';
import type { PhaseRecorder } from '../stats/phases.js';
import { watchConnect } from './connect-timing.js';

/**
 * Opens a node:http Agent's socket ahead of its first request, so that the request is not timed
 * with the connection it had to open: the Agent's next `createConnection` gets this socket while it
 * is still open, and opens its own otherwise. Resolves with the socket once it is ready (connected,
 * TLS done), or with undefined when it failed (the first request then opens one and meets the error).
 */
export function preopenAgentSocket(
  agent: http.Agent,
  url: URL,
  secure: boolean,
  phases: PhaseRecorder,
): Promise<Socket | undefined> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || (secure ? 443 : 80);
  const options: Record<string, unknown> = {
    ...(agent as unknown as { options: object }).options,
    host: hostname,
    port,
    ...(secure && isIP(hostname) === 0 ? { servername: hostname } : {}),
  };
  // The key the Agent files TLS sessions under, so that its reconnections resume this one's.
  options._agentKey = agent.getName(options as unknown as http.ClientRequestArgs);
  const create = (agent as unknown as { createConnection(options: object, callback?: unknown): Socket })
    .createConnection;
  const socket = create.call(agent, options);
  watchConnect(socket, secure, phases);
  (agent as unknown as { createConnection: unknown }).createConnection = function (
    this: http.Agent,
    given: object,
    callback?: unknown,
  ): Socket {
    (agent as unknown as { createConnection: unknown }).createConnection = create;
    const usable = !socket.destroyed && !socket.connecting && socket.readyState === 'open';
    return usable ? socket : create.call(this, given, callback);
  };
  return new Promise((resolve) => {
    socket.once(secure ? 'secureConnect' : 'connect', () => resolve(socket));
    // Kept: an error while it waits for its first request must not go unhandled.
    socket.on('error', () => resolve(undefined));
  });
}
