import type { Transport } from '../transports/transport.js';
import type { Warning } from '../shared/warnings.js';

/**
 * Opens `count` connections before the clock starts, for at most the request timeout (or until the
 * run is aborted): a server that accepts and never finishes a handshake must not hold the run.
 * Requests sent on connections still opening wait for them, and time out like any other. Returns the
 * warning to give when some had not opened by then.
 */
export async function openAhead(
  transport: Transport,
  count: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Warning | undefined> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const bound = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, false);
    onAbort = () => resolve(false);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  const opened = await Promise.race([transport.connect(count).then(() => true), bound]);
  clearTimeout(timer);
  signal?.removeEventListener('abort', onAbort!);
  const open = transport.openConnections();
  if (opened || signal?.aborted === true || open >= count) return undefined;
  return {
    code: 'CONNECTIONS_NOT_OPEN',
    message:
      `${open} of ${count} connections had opened ${timeoutMs} ms (the request timeout) after the run began opening them, ` +
      'and the clock started without the rest: requests wait on them and count as TIMEOUT if they never open. ' +
      'A server that accepts TCP connections but never completes the TLS handshake (or is not listening for TLS) looks like this.',
  };
}
