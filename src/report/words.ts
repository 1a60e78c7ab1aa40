import type { LoadResult } from '../shared/load-result.js';
import { countsMessages, resultKind } from '../shared/run-kind.js';

/**
 * The words a run's page speaks: requests for HTTP/1.1 and h2, messages for a message protocol
 * (WebSocket, Socket.IO: any result with `messages`), whose status codes are handshakes, calls for a task run.
 */
export interface RunWords {
  /** `'request'`, `'message'` or `'call'`. */
  unit: string;
  /** `'requests'`, `'messages'` or `'calls'`. */
  units: string;
  /** What the timeline's `completed` counts: `'completed'` (responses) or `'received'`. */
  completed: string;
  /** True for a message protocol: status codes are opening handshakes, `101` the accepted one. */
  handshakes: boolean;
}

const HTTP: RunWords = { unit: 'request', units: 'requests', completed: 'completed', handshakes: false };
const MESSAGES: RunWords = { unit: 'message', units: 'messages', completed: 'received', handshakes: true };

const CALLS: RunWords = { unit: 'call', units: 'calls', completed: 'completed', handshakes: false };

export function runWords(result: LoadResult): RunWords {
  const kind = resultKind(result);
  if (kind === 'task') return CALLS;
  return result.messages !== undefined || countsMessages(kind) ? MESSAGES : HTTP;
}

/** A status code that is a success in this run's protocol: 2xx, or `101` for a handshake. */
export function successfulStatus(code: string, words: RunWords): boolean {
  return words.handshakes ? code === '101' : code.startsWith('2');
}

/** The transport as people name it: `HTTP/2 (h2)`, `WebSocket`, `Socket.IO`, `HTTP/1.1 (net)`. */
export function protocolName(result: LoadResult): string {
  const kind = resultKind(result);
  if (kind === 'websocket') return 'WebSocket';
  if (kind === 'socketio') return 'Socket.IO';
  if (kind === 'task') return 'a task (your function)';
  if (result.transport === 'h2') return 'HTTP/2 (h2)';
  return `HTTP/1.1 (${result.transport})`;
}

/** Requests in flight per connection, named as the protocol names them; undefined when 1 or unknown. */
export function concurrencyPerConnection(result: LoadResult): string | undefined {
  const depth = result.merge?.plan?.pipelining;
  if (typeof depth !== 'number' || depth <= 1) return undefined;
  return result.transport === 'h2' ? `${depth} streams per connection` : `pipelining ${depth}`;
}
