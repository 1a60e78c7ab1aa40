// The shortest useful load test: start a local server, load it for 3 seconds, print the summary.
// `npm run demo` builds salvo and runs this file.
import { formatResult, runLoad } from 'salvo';
import { createTestServer } from 'salvo/testing';

const server = await createTestServer({ delayMs: 1 });
try {
  const result = await runLoad({
    url: server.url,
    connections: 10,
    duration: '3s',
    expect: { status: 200 },
    thresholds: { 'latency.p99': '< 50', 'checks.failed': '== 0' },
  });
  console.log(formatResult(result));
} finally {
  await server.close();
}
