import type { Socket } from 'node:net';
import type { buildConnector as BuildConnector } from 'undici';

/**
 * Each connection's socket opened before the clock, as `net` opens its own: undici connects on a
 * Client's first dispatch, so a socket opened here waits until that Client's connector asks for one
 * (`connectorFor`), and is handed over while it is still open.
 */
export class PreopenedSockets {
  readonly #sockets: Array<Socket | undefined> = [];

  constructor(
    readonly connector: BuildConnector.connector,
    readonly url: URL,
  ) {}

  /** Opens the sockets of connections `0 ... count - 1` but those `skip` says have a Client already; resolves once each is ready or failed. */
  async open(count: number, skip: (connection: number) => boolean): Promise<void> {
    const { url } = this;
    const secure = url.protocol === 'https:';
    const options = {
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      host: url.host,
      protocol: url.protocol,
      port: url.port || (secure ? '443' : '80'),
      servername: null,
      localAddress: null,
    };
    const opening: Array<Promise<void>> = [];
    for (let connection = 0; connection < count; connection++) {
      if (skip(connection) || this.#sockets[connection] !== undefined) continue;
      opening.push(
        new Promise((resolve) => {
          this.connector(options as unknown as BuildConnector.Options, (error, socket) => {
            if (error === null) {
              this.#sockets[connection] = socket;
              // An error while it waits for its Client must not go unhandled; the Client adds its own listener.
              socket.on('error', () => {});
            }
            resolve();
          });
        }),
      );
    }
    await Promise.all(opening);
  }

  /** A Client's connector for `connection`: the socket opened ahead while still open, else a new one. */
  connectorFor(connection: number): BuildConnector.connector {
    return (options, callback) => {
      const socket = this.#sockets[connection];
      this.#sockets[connection] = undefined;
      // Called back later, as a connecting socket would be: undici's Client does not expect it inside its connect.
      if (socket !== undefined && !socket.destroyed && socket.readyState === 'open')
        return void process.nextTick(callback, null, socket);
      socket?.destroy();
      this.connector(options, callback);
    };
  }

  /** Destroys the sockets no Client took. */
  destroy(): void {
    for (const socket of this.#sockets) socket?.destroy();
    this.#sockets.length = 0;
  }
}
