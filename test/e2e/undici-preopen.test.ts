// transports/undici-preopen.ts against a bare TCP server: sockets opened before the clock for the
// connections without a Client, each handed to its Client's connector once (no second connection),
// a new one opened when none is waiting, and the ones no Client took destroyed.
import { once } from 'node:events';
import net, { type AddressInfo, type Socket } from 'node:net';
import t from 'tap';
import { buildConnector } from 'undici';
import { PreopenedSockets } from '../../src/transports/undici-preopen.js';

t.test('opened ahead, handed over once, then opened anew', async (t) => {
  const accepted: Socket[] = [];
  const server = net.createServer((socket) => accepted.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => { for (const socket of accepted) socket.destroy(); server.close(); });
  /** Waits (at most 5 s) for the server to have accepted `count` connections, and a little longer for any more. */
  const accepts = async (count: number) => {
    for (const deadline = Date.now() + 5000; accepted.length < count && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    return accepted.length;
  };
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const preopened = new PreopenedSockets(buildConnector({}), url);
  await preopened.open(3, (connection) => connection === 1);
  t.equal(await accepts(2), 2, 'connections 0 and 2 opened; 1 has a Client already');
  await preopened.open(3, () => false);
  t.equal(await accepts(3), 3, 'only connection 1 was still missing');

  const connect = (connection: number) => new Promise<Socket>((resolve, reject) =>
    preopened.connectorFor(connection)({ hostname: '127.0.0.1', host: url.host, protocol: 'http:', port: url.port, servername: null, localAddress: null } as never, (error, socket) => (error ? reject(error) : resolve(socket as Socket))));
  const first = await connect(0);
  t.equal(first.readyState, 'open');
  const again = await connect(0);
  t.not(again, first);
  t.equal(await accepts(4), 4, 'the socket opened ahead was handed over (no new connection for it); taken once, the next connect opened one');
  first.destroy();
  again.destroy();
  preopened.destroy();
});
