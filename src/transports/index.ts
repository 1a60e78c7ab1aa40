import type { TransportName } from '../shared/terms.js';
import type { TransportFactory } from './transport.js';
import { createH2Transport } from './h2.js';
import { createHttpTransport } from './http.js';
import { createNetTransport } from './net.js';
import { loadUndiciTransport } from './undici.js';

/**
 * The transport of that name. undici itself is imported on first use, so a run on the default
 * `net` transport never pays for loading it (about a third of a second).
 */
export async function loadTransport(name: TransportName): Promise<TransportFactory> {
  switch (name) {
    case 'net':
      return createNetTransport;
    case 'undici':
      return loadUndiciTransport();
    case 'http':
      return createHttpTransport;
    case 'h2':
      return createH2Transport;
  }
}
