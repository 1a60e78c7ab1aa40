// bytes.received is the responses as they were on the wire on every transport (issue 38): undici and
// node:http hand over a chunked body without its framing, which was left out (2.75% low against
// nginx's $bytes_sent).
import t from 'tap';
import { runLoad, type TransportName } from '../../src/index.js';
import { rawServer } from '../fixtures/raw-http-server.js';

const CHUNKED = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n';
const LENGTH = 'HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world';

for (const transport of ['net', 'undici', 'http'] as TransportName[]) {
  for (const [name, response] of [['chunked', CHUNKED], ['Content-Length', LENGTH]] as const) {
    t.test(`${transport}: a ${name} response counts every byte`, async (t) => {
      const server = await rawServer(t, (socket) => socket.write(response));
      const result = await runLoad({ url: `http://127.0.0.1:${server.port}/`, transport, connections: 2, amount: 50, timeout: 5000 });
      t.equal(result.requests.completed, 50);
      t.equal(result.bytes.received, 50 * Buffer.byteLength(response), `${result.bytes.received} bytes`);
    });
  }
}
