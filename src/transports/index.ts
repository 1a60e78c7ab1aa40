import type { TransportName } from '../types.js';
import type { TransportFactory } from './transport.js';

/**
 * The transport of that name. Each is loaded on first use, so a run on the default `net`
 * transport never pays for importing undici (about a third of a second).
 */
export async function loadTransport(name: TransportName): Promise<TransportFactory> {
  switch (name) {
    case 'net':
      return (await import('./net.js')).createNetTransport;
    case 'undici':
      return (await import('./undici.js')).loadUndiciTransport();
    case 'http':
      return (await import('./http.js')).createHttpTransport;
  }
}
