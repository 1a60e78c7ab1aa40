// A string body that is a JSON object or array goes out as application/json (unless a header says
// otherwise), on every transport, so that a server that reads JSON by its content-type, as
// express.json() does, reads it; --json-body sends JSON as curl's --json does.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createH2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { runLoad, type TransportName } from '../../src/index.js';
import { UsageError } from '../../src/cli/command.js';
import { parseRunFlags } from '../../src/cli/run-flags.js';

/** What express.json() does with a request: 400 unless it says application/json and its body parses. */
function jsonStatus(headers: IncomingHttpHeaders, body: string): number {
  if (!/^application\/json\b/.test(headers['content-type'] ?? '')) return 400;
  try {
    JSON.parse(body);
    return 200;
  } catch {
    return 400;
  }
}

/** A node:http (or h2c node:http2) server answering as express.json() would, keeping each request's content-type. */
async function jsonServer(t: Test, h2: boolean): Promise<{ url: string; contentTypes: Array<string | undefined> }> {
  const contentTypes: Array<string | undefined> = [];
  const handler = (request: { headers: IncomingHttpHeaders; on: Function; setEncoding(e: string): void }, response: { writeHead(s: number): void; end(b: string): void }) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      contentTypes.push(request.headers['content-type']);
      response.writeHead(jsonStatus(request.headers, body));
      response.end('{}');
    });
  };
  const server = h2 ? createH2Server(handler as never) : createServer(handler as never);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  if (!h2) t.teardown(() => (server as ReturnType<typeof createServer>).closeAllConnections());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/orders`, contentTypes };
}

for (const transport of ['net', 'undici', 'http', 'h2'] as const satisfies readonly TransportName[]) {
  t.test(`${transport}: a JSON string body is application/json, and an express.json()-like server takes it`, async (t) => {
    const server = await jsonServer(t, transport === 'h2');
    const result = await runLoad({ url: server.url, transport, connections: 2, amount: 20, method: 'POST', body: '{"sku":"A-1","quantity":2}' });
    t.same(result.statusCodes, { '200': 20 }, 'no 400');
    t.same(new Set(server.contentTypes), new Set(['application/json']));
    t.equal(server.contentTypes.length, 20);
  });
}

t.test('what counts as JSON, and a content-type given wins', async (t) => {
  const server = await jsonServer(t, false);
  const cases: Array<[string, Record<string, string> | undefined, string | undefined]> = [
    [' [1, 2, 3]', undefined, 'application/json'],
    ['{"a":', undefined, undefined], // starts like JSON, does not parse
    ['42', undefined, undefined], // a JSON number is not taken for a JSON body
    ['hello', undefined, undefined],
    ['{"a":1}', { 'Content-Type': 'application/merge-patch+json' }, 'application/merge-patch+json'],
  ];
  for (const [body, headers, expected] of cases) {
    server.contentTypes.length = 0;
    await runLoad({ url: server.url, connections: 1, amount: 1, method: 'POST', body, ...(headers ? { headers } : {}) });
    t.same(server.contentTypes, [expected], `${JSON.stringify(body)} with ${JSON.stringify(headers ?? {})}`);
  }
  server.contentTypes.length = 0;
  await runLoad({ url: server.url, connections: 1, amount: 2, requests: [{ method: 'POST', body: '{"step":1}' }, { method: 'PUT', body: 'plain' }] });
  t.same(server.contentTypes, ['application/json', undefined], 'each request of a sequence by its own body');
});

t.test('--json-body: POST, content-type and accept as curl --json sends them', async (t) => {
  const { options } = parseRunFlags(['http://127.0.0.1:1/', '--json-body', '{"a":1}']);
  t.equal(options.method, 'POST');
  t.equal(options.body, '{"a":1}');
  t.same(options.headers, { 'content-type': 'application/json', accept: 'application/json' });
  const given = parseRunFlags(['http://127.0.0.1:1/', '--json-body', '[1]', '-m', 'PUT', '-H', 'Accept: application/vnd.api+json']).options;
  t.equal(given.method, 'PUT', '-m wins');
  t.same(given.headers, { Accept: 'application/vnd.api+json', 'content-type': 'application/json' }, 'a header given wins, in any case');
  t.throws(() => parseRunFlags(['http://127.0.0.1:1/', '--json-body', '{a:1}']), { constructor: UsageError, message: /^--json-body must be JSON/ });
  t.throws(() => parseRunFlags(['http://127.0.0.1:1/', '--json-body', '{}', '-b', 'x']), { constructor: UsageError, message: 'give one of --body, --body-file and --json-body; got --body and --json-body' });
});

t.test('--json-body end to end: the server takes every request', async (t) => {
  const server = await jsonServer(t, false);
  const { options } = parseRunFlags([server.url, '--json-body', '{"sku":"A-1"}', '-a', '10', '-c', '1']);
  const result = await runLoad(options);
  t.same(result.statusCodes, { '200': 10 });
});
