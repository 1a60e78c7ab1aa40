import net from 'node:net';
import type tls from 'node:tls';
import type { PhaseRecorder } from '../stats/phases.js';
import { sharedSecureContext } from './tls-setup.js';

/** Where and how to connect, worked out once from the config. */
export interface Endpoint {
  host: string;
  port: number;
  /** The tls.connect options every connection shares (one secure context), or undefined for http. */
  tls: tls.ConnectionOptions | undefined;
  keepAlive: boolean;
  phases: PhaseRecorder;
  /** Host names are resolved once per transport. */
  lookup: net.LookupFunction;
  /**
   * The one address `host` stands for (an IP literal, or the only address a host name resolved
   * to): plain-TCP connections without pipelining go there on a bare TCP handle (`RawTcp`).
   * Undefined until known, or when the name has several addresses (net.connect then tries them).
   */
  address: { ip: string; family: number } | undefined;
}

/** Where a URL points, for sockets: the host without IPv6 brackets, the scheme's port by default. */
export function socketTarget(url: URL): { secure: boolean; host: string; port: number } {
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { secure, host, port: url.port === '' ? (secure ? 443 : 80) : Number(url.port) };
}

/**
 * The user's tls.connect options with what every connection shares worked out once: the secure
 * context and the SNI name (none for an IP address, which SNI does not allow).
 */
export function sharedTlsOptions(
  options: tls.ConnectionOptions,
  host: string,
  port: number,
  lookup: net.LookupFunction,
): tls.ConnectionOptions {
  return {
    lookup,
    ...options,
    host,
    port,
    servername: options.servername ?? (net.isIP(host) === 0 ? host : undefined),
    secureContext: sharedSecureContext(options),
    // The connection's session is set on its socket (see `open`), from the user's to start with.
    session: undefined,
  };
}
