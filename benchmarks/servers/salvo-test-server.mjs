// salvo's test server as a target in its own process (pinned by the harness). argv[2]: the
// createTestServer options as JSON (preciseDelay unless they say otherwise: the process is the
// server's alone, so polling out the last 1.5 ms of each delay costs the generator nothing). Prints `{"url": ...}` once listening; stops on SIGTERM/SIGINT.
import { createTestServer } from '../../dist/testing.js';

const server = await createTestServer({ preciseDelay: true, ...JSON.parse(process.argv[2] ?? '{}') });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

const stop = async () => {
  await server.close();
  process.exit(0);
};
process.once('SIGTERM', stop).once('SIGINT', stop);
