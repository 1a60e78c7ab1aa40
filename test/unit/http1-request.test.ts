import t from 'tap';
import { encodeRequest, isHeadRequest } from '../../src/http1/request.js';

t.test('host carries the port only when it is not the default', async (t) => {
  const request = { method: 'GET', path: '/a?b=1', headers: {}, body: undefined };
  t.equal(encodeRequest(new URL('http://example.com/'), request, true).toString(), 'GET /a?b=1 HTTP/1.1\r\nhost: example.com\r\n\r\n');
  t.equal(encodeRequest(new URL('https://example.com:443/'), request, true).toString(), 'GET /a?b=1 HTTP/1.1\r\nhost: example.com\r\n\r\n');
  t.equal(encodeRequest(new URL('http://[::1]:8080/'), request, true).toString(), 'GET /a?b=1 HTTP/1.1\r\nhost: [::1]:8080\r\n\r\n');
});

t.test('body, user headers, and the framing headers the encoder owns', async (t) => {
  const encoded = encodeRequest(
    new URL('http://localhost:3000/'),
    { method: 'PUT', path: '/x', headers: { host: 'virtual.test', 'content-length': '999', connection: 'keep-alive', 'x-a': 'b' }, body: Buffer.from('{"a":1}') },
    false,
  );
  t.equal(
    encoded.toString(),
    'PUT /x HTTP/1.1\r\nhost: virtual.test\r\nx-a: b\r\ncontent-length: 7\r\nconnection: close\r\n\r\n{"a":1}',
    "the user's host wins; content-length is the body's; keep-alive is dropped when closing",
  );
});

t.test('an empty body still says content-length: 0', async (t) => {
  const encoded = encodeRequest(new URL('http://h/'), { method: 'POST', path: '/', headers: {}, body: Buffer.alloc(0) }, true);
  t.equal(encoded.toString(), 'POST / HTTP/1.1\r\nhost: h\r\ncontent-length: 0\r\n\r\n');
});

t.test('CR or LF in a header is refused, not sent', async (t) => {
  t.throws(() => encodeRequest(new URL('http://h/'), { method: 'GET', path: '/', headers: { 'x-a': 'b\r\nx-evil: 1' }, body: undefined }, true), TypeError);
  t.throws(() => encodeRequest(new URL('http://h/'), { method: 'GET', path: '/ HTTP/1.1\r\n', headers: {}, body: undefined }, true), TypeError);
});

t.test('isHeadRequest looks at the method only', async (t) => {
  const head = encodeRequest(new URL('http://h/'), { method: 'HEAD', path: '/', headers: {}, body: undefined }, true);
  const headers = encodeRequest(new URL('http://h/'), { method: 'HEADERS', path: '/', headers: {}, body: undefined }, true);
  t.equal(isHeadRequest(head), true);
  t.equal(isHeadRequest(headers), false);
});
