// Load anything: salvo calls your own async function (here, a client of a key-value server with a
// protocol of its own, in task/) on its schedule, over 2 worker threads, and reports it as it
// reports an HTTP run; the server's own count of commands is the check that salvo counted right.
import { formatResult, runLoad } from 'salvo';
import { startKvServer } from './task/kv-server.mjs';

const server = await startKvServer();
process.env.KV_PORT = String(server.port);
try {
  const result = await runLoad({
    task: new URL('./task/kv-task.mjs', import.meta.url).href,
    workers: 2,
    concurrency: 16,
    rate: 2000,
    duration: '3s',
    thresholds: { 'latency.p99': '< 100', 'errors.rate': '< 0.01', 'checks.rate': '== 1' },
  });
  console.log(formatResult(result));
  console.log(`\nSET p50 ${result.byName.SET.latency.p50} ms, GET p50 ${result.byName.GET.latency.p50} ms`);
  // Two commands per call; calls still in flight at the end reached the server too.
  console.log(`the server counted ${server.commands()} commands for ${result.requests.sent} calls sent`);
  if (!result.ok) process.exitCode = 1;
} finally {
  await server.close();
}
