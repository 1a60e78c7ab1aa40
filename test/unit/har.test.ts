// `salvo import`'s HAR reading: which requests are kept, in what order, with which headers, bodies
// and think times; and the command's own errors.
import t from 'tap';
import { importHar, isStaticAsset } from '../../src/cli/har.js';
import { runCli } from '../../src/cli/commands.js';
import { Capture } from '../fixtures/cli.js';

const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms).toISOString();
function entry(ms: number, url: string, extra: Record<string, unknown> = {}, time = 10) {
  return { startedDateTime: at(ms), time, request: { method: 'GET', url, headers: [] }, response: { status: 200, headers: [], content: { mimeType: 'text/html' } }, ...extra };
}

const HAR = {
  log: {
    entries: [
      // Out of order on purpose: entries are replayed by their start time.
      entry(1500, 'http://shop.test:8080/cart', {
        request: { method: 'POST', url: 'http://shop.test:8080/cart', headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'Cookie', value: 'sid=1' }, { name: 'Content-Length', value: '9' }], postData: { mimeType: 'application/json', text: '{"sku":7}' } },
      }),
      entry(0, 'http://shop.test:8080/?q=1', {
        _resourceType: 'document',
        request: { method: 'GET', url: 'http://shop.test:8080/?q=1', headers: [{ name: ':authority', value: 'shop.test' }, { name: 'Host', value: 'shop.test' }, { name: 'Accept-Encoding', value: 'gzip' }, { name: 'User-Agent', value: 'chrome' }, { name: 'If-None-Match', value: '"e"' }] },
        response: { status: 200, headers: [{ name: 'Set-Cookie', value: 'sid=1' }], content: { mimeType: 'text/html' } },
      }),
      entry(20, 'http://shop.test:8080/app.css', { _resourceType: 'stylesheet' }),
      entry(25, 'http://shop.test:8080/logo', { response: { status: 200, headers: [], content: { mimeType: 'image/png' } } }),
      entry(30, 'https://tracker.example/t.js', { _resourceType: 'script' }),
      entry(40, 'data:image/png;base64,AAAA'),
      entry(1000, 'http://shop.test:8080/about', { _resourceType: 'document' }, 50),
    ],
  },
};

t.test('kept: the first page\'s host, by start time; cookies and validators dropped; pauses as think', async (t) => {
  const imported = importHar(HAR);
  t.equal(imported.options.url, 'http://shop.test:8080');
  t.same(imported.options.requests.map((step) => step.name), ['GET /', 'GET /app.css', 'GET /logo', 'GET /about', 'POST /cart']);
  t.same([imported.kept, imported.otherHosts, imported.staticAssets], [5, 1, 0]);
  const [home, , logo, about, cart] = imported.options.requests;
  t.same(home, { name: 'GET /', method: 'GET', path: '/?q=1', headers: { 'user-agent': 'chrome' } }, 'no pseudo, host, accept-encoding or if-none-match; the pause after it is the assets\', under 100 ms');
  t.equal(logo!.think, 965, 'from the end of /logo (25 + 10 ms) to /about at 1000 ms');
  t.equal(about!.think, 450, 'from the end of /about (1000 + 50 ms) to /cart at 1500 ms');
  t.same(cart, { name: 'POST /cart', method: 'POST', path: '/cart', headers: { 'content-type': 'application/json' }, body: '{"sku":7}' }, 'the last step has no think');
  t.equal(imported.options.cookies, true, 'a recorded cookie asks for a cookie jar');
  t.equal(imported.options.compressed, true, 'a recorded accept-encoding asks for compression');
});

t.test('--no-static, --host and --min-think', async (t) => {
  t.same(importHar(HAR, { static: false }).options.requests.map((step) => step.path), ['/?q=1', '/about', '/cart']);
  t.same(importHar(HAR, { host: 'tracker.example' }).options.requests.map((step) => step.path), ['/t.js']);
  t.equal(importHar(HAR, { minThinkMs: 500 }).options.requests[3]!.think, undefined, 'a 450 ms pause under --min-think 500');
  t.ok(isStaticAsset(entry(0, 'http://a/x.woff2')), 'by extension');
  t.notOk(isStaticAsset(entry(0, 'http://a/api')), 'an API call is not static');
  t.equal(importHar(HAR, { url: 'http://127.0.0.1:9' }).options.url, 'http://127.0.0.1:9', '--url: another target, the same paths');
  t.throws(() => importHar({ log: {} }), /not a HAR file: it has no log.entries/);
  t.throws(() => importHar(HAR, { host: 'nowhere' }), /no request left: none to nowhere/);
});

t.test('salvo import: a file that is not a HAR, a missing one, an existing output', async (t) => {
  const run = async (args: string[]) => {
    const io = { stdout: new Capture(), stderr: new Capture() };
    return { code: await runCli(['import', ...args], io), stderr: io.stderr.text };
  };
  t.match(await run([]), { code: 2, stderr: /salvo import takes one HAR file/ });
  t.match(await run(['/no/such.har']), { code: 2, stderr: /cannot read \/no\/such\.har/ });
  t.match(await run(['package.json', '-o', '/tmp/salvo-not-written.mjs']), { code: 2, stderr: /package\.json: not a HAR file/ });
  t.match(await run(['package.json', '-o', 'package.json']), { code: 2, stderr: /package\.json exists: give another -o, or --force/ });
  t.match(await run(['x.har', '--min-think', 'soon']), { code: 2, stderr: /--min-think must be milliseconds/ });
  t.match(await run(['x.har', '--url', 'http://a/b']), { code: 2, stderr: /--url must be an http: or https: origin/ });
});
