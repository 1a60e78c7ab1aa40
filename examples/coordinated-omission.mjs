// What coordinated omission is, in one run: 1000 requests/s for 3 s against a local server that
// stops answering for 500 ms in the middle. `npm run build` first; then `node examples/coordinated-omission.mjs`.
import { runLoad } from 'salvo';
import { createTestServer } from 'salvo/testing';

const server = await createTestServer();
try {
  // The stall starts as the first measured second closes (a rate of 1,000/s pre-warms first, which
  // sends this server nothing and takes a moment).
  const onProgress = (second) => second.second === 0 && server.stall(500);
  const result = await runLoad({ url: server.url, rate: 1000, duration: '3s', connections: 10, onProgress });
  const rows = ['p50', 'p90', 'p99', 'p999', 'max'];
  const ms = (value) => `${value.toFixed(1)} ms`.padStart(12);
  console.log(`${result.requests.sent} requests at ${result.rate}/s; the server stalled for 500 ms after 1 s\n`);
  console.log(`${'latency'.padEnd(8)}${'corrected'.padStart(12)}${'uncorrected'.padStart(14)}`);
  for (const row of rows) console.log(`${row.padEnd(8)}${ms(result.latency[row])}  ${ms(result.latencyUncorrected[row])}`);
  console.log(
    '\nUncorrected latency starts when a request is written, but during the stall no connection was free to write one,' +
      '\nso ~500 requests waited unseen: corrected latency starts when each was due, as a user arriving then would have.',
  );
} finally {
  await server.close();
}
