// bytes.sent is what the server received, on every HTTP/1.1 transport: the headers a library adds
// (undici's and node:http's `connection: keep-alive`, node:http's `Content-Length: 0`) included.
import t from 'tap';
import { runLoad, type TransportName } from '../../src/index.js';
import { rawServer } from '../fixtures/raw-http-server.js';

const TRANSPORTS: TransportName[] = ['net', 'undici', 'http'];

const CASES = [
  { method: 'GET' },
  { method: 'HEAD' },
  { method: 'DELETE' },
  { method: 'POST', body: 'a body of 19 bytes.' },
  { method: 'POST' },
  { method: 'PUT', body: '{"x":1}', headers: { 'content-type': 'application/json', 'x-extra': 'yes' } },
];

for (const transport of TRANSPORTS) {
  for (const keepAlive of [true, false]) {
    t.test(`${transport}, keepAlive ${keepAlive}: bytes.sent is what the server received`, async (t) => {
      for (const { method, body, headers } of CASES) {
        const server = await rawServer(t, (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
        const result = await runLoad({ url: `http://127.0.0.1:${server.port}/path?q=1`, transport, keepAlive, method, body, headers, connections: 2, amount: 20 });
        const received = server.requests.reduce((sum, request) => sum + request.length, 0);
        t.equal(server.requests.length, 20, `${method}: requests`);
        t.equal(result.bytes.sent, received, `${method}${body === undefined ? '' : ' with a body'}: ${result.bytes.sent} sent, ${received} received`);
      }
    });
  }
}
