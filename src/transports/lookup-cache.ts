import dns from 'node:dns';
import type { LookupFunction } from 'node:net';

type LookupCallback = Parameters<LookupFunction>[2];

interface Answer {
  address: string | dns.LookupAddress[];
  family: number | undefined;
}

/**
 * A `lookup` for net/tls.connect that resolves each host name once per transport (per run and
 * thread) and answers every later connection from memory, as wrk does. Without it each new
 * connection to `localhost` goes through getaddrinfo on libuv's thread pool, which reads
 * /etc/hosts every time and costs a trip through the event loop before the connect can start.
 * Failed lookups are not kept, so a transient DNS error is retried on the next connection. The
 * answer is replayed whole (every address, in order), so Node's address-family fallback
 * (`autoSelectFamily`) still tries them all.
 */
export function cachedLookup(): LookupFunction {
  const answers = new Map<string, Answer>();
  const waiting = new Map<string, LookupCallback[]>();
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    const key = `${hostname}\0${options.family ?? 0}\0${options.all === true ? 'all' : 'one'}\0${options.hints ?? 0}`;
    const known = answers.get(key);
    if (known !== undefined) {
      callback(null, known.address, known.family);
      return;
    }
    // The first connections of a run open together: they share one lookup.
    const queue = waiting.get(key);
    if (queue !== undefined) {
      queue.push(callback);
      return;
    }
    const callbacks = [callback];
    waiting.set(key, callbacks);
    dns.lookup(hostname, options, (error, address: string | dns.LookupAddress[], family?: number) => {
      waiting.delete(key);
      if (error === null) answers.set(key, { address, family });
      for (const waiter of callbacks) waiter(error, address, family);
    });
  };
}
