// A load test in jest, CommonJS: `npm test` in this folder.
const { runLoad } = require('salvo');
const { createTestServer } = require('salvo/testing');

jest.setTimeout(10_000); // a load test runs for seconds, longer than jest's default 5 s

let server;
const seen = new Map(); // connection -> 'METHOD /path' in the order the server received them
beforeAll(async () => {
  server = await createTestServer({
    onRequest: ({ connection, method, path }) => {
      if (!seen.has(connection)) seen.set(connection, []);
      seen.get(connection).push(`${method} ${path}`);
    },
  });
});
afterAll(() => server.close());

test('each connection walks the request sequence in order', async () => {
  let nextId = 0;
  const result = await runLoad({
    url: server.url,
    connections: 4,
    amount: 3000,
    requests: [
      { method: 'POST', path: '/cart', body: { item: 'book' } },
      // setupRequest builds a request just before it is sent: here, a fresh id each time.
      { path: '/cart', setupRequest: (request) => ({ ...request, path: `/cart/${++nextId}` }) },
      { method: 'DELETE', path: '/cart' },
    ],
    expect: { status: '2xx' },
  });
  expect(result.requests.completed).toBe(3000);
  expect(result.errors.total).toBe(0);
  expect(result.checks.failed).toBe(0);
  const sequence = [/^POST \/cart$/, /^GET \/cart\/\d+$/, /^DELETE \/cart$/];
  for (const steps of seen.values()) {
    expect(steps).toEqual(steps.map((_, i) => expect.stringMatching(sequence[i % 3])));
  }
});
