// `form` bodies: URL-encoded by default, multipart when a field is a file, read back by the
// Fetch API's own parser (undici's Response#formData) to show a server reads what was meant.
import t from 'tap';
import { encodeForm } from '../../src/shared/form-body.js';
import { planRequests } from '../../src/shared/request-spec.js';

t.test('URL-encoded', async (t) => {
  const { body, contentType } = encodeForm('form', { user: 'ada lovelace', n: 3, ok: true, tag: ['a&b', 'c=d'] });
  t.equal(contentType, 'application/x-www-form-urlencoded');
  t.equal(body.toString(), 'user=ada+lovelace&n=3&ok=true&tag=a%26b&tag=c%3Dd');
});

t.test('multipart when a value is a file, or when asked', async (t) => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]);
  const { body, contentType } = encodeForm('form', {
    title: 'a "quoted"\r\nname',
    photo: png,
    notes: { content: 'line 1\n', filename: 'notes.txt', contentType: 'text/plain' },
  });
  t.match(contentType, /^multipart\/form-data; boundary=----salvo[0-9a-f]{24}$/);
  const parsed = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  t.equal(parsed.get('title'), 'a "quoted"\r\nname');
  const photo = parsed.get('photo') as File;
  t.equal(photo.name, 'blob');
  t.equal(photo.type, 'application/octet-stream');
  t.same(Buffer.from(await photo.arrayBuffer()), png, 'binary bytes intact');
  const notes = parsed.get('notes') as File;
  t.same([notes.name, notes.type, await notes.text()], ['notes.txt', 'text/plain', 'line 1\n']);
  const asked = encodeForm('form', { multipart: true, a: '1' });
  t.equal((await new Response(asked.body, { headers: { 'content-type': asked.contentType } }).formData()).get('a'), '1');
});

t.test('on a request spec', async (t) => {
  const url = new URL('http://127.0.0.1:9/');
  const { requests } = planRequests({ url: url.href, requests: [{ method: 'POST', path: '/login', form: { u: 'a' } }, { method: 'POST', form: { u: 'b' }, headers: { 'content-type': 'text/plain' } }] }, url);
  t.equal(requests[0]!.body!.toString(), 'u=a');
  t.equal(requests[0]!.headers['content-type'], 'application/x-www-form-urlencoded');
  t.equal(requests[1]!.headers['content-type'], 'text/plain', 'a URL-encoded form keeps a content type given');
  const file = planRequests({ url: url.href, requests: [{ method: 'POST', form: { f: Buffer.from('x') }, headers: { 'content-type': 'text/plain' } }] }, url);
  t.match(file.requests[0]!.headers['content-type'], /^multipart\/form-data; boundary=/, 'a multipart one sets its own: the boundary must match');
  t.throws(() => planRequests({ url: url.href, requests: [{ form: { a: '1' }, body: 'x' }] }, url), { option: 'requests[0].form', message: /cannot be combined with requests\[0\]\.body/ });
  t.throws(() => planRequests({ url: url.href, requests: [{ form: 'a=1' as never }] }, url), { code: 'SALVO_INVALID_OPTION', option: 'requests[0].form' });
  t.throws(() => planRequests({ url: url.href, requests: [{ form: { a: null } as never }] }, url), { code: 'SALVO_INVALID_OPTION', option: 'requests[0].form.a' });
  t.throws(() => planRequests({ url: url.href, requests: [{ form: { multipart: 'yes' } as never }] }, url), { code: 'SALVO_INVALID_OPTION', option: 'requests[0].form.multipart' });
});
