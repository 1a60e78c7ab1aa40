// The service under test, standing in for your own: `node server.mjs` serves on 127.0.0.1:$PORT
// (default 3000) with a DELAY_MS delay per response (default 10) until it is stopped.
import { createTestServer } from 'salvo/testing';

const server = await createTestServer({ port: Number(process.env.PORT ?? 3000), delayMs: Number(process.env.DELAY_MS ?? 10) });
console.log(`serving ${server.url}`);
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
