import type { TransportName } from '../types.js';
import type { TransportFactory } from './transport.js';
import { createHttpTransport } from './http.js';
import { createUndiciTransport } from './undici.js';
import { createNetTransport } from './net.js';

/** Every transport by its public name. */
export const transports: Record<TransportName, TransportFactory> = {
  net: createNetTransport,
  undici: createUndiciTransport,
  http: createHttpTransport,
};
