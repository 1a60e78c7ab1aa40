import { once } from 'node:events';
import type { AddressInfo, Server } from 'node:net';

/**
 * Waits until `server` listens, then gives its URL under `scheme` and its port. The host is the
 * address it is bound to, an IPv6 address in brackets: the same for every mode of the test server.
 */
export async function listening(server: Server, scheme: string): Promise<{ url: string; port: number }> {
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `${scheme}://${host}:${address.port}/`, port: address.port };
}
