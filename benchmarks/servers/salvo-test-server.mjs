// salvo's test server as a target in its own process (pinned by the harness). argv[2]: the
// createTestServer options as JSON. Prints `{"url": ...}` once listening; stops on SIGTERM/SIGINT.
import { createTestServer } from '../../dist/testing.js';

const server = await createTestServer(JSON.parse(process.argv[2] ?? '{}'));
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

const stop = async () => {
  await server.close();
  process.exit(0);
};
process.once('SIGTERM', stop).once('SIGINT', stop);
