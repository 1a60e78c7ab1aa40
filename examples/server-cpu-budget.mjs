// A performance test that holds the server to a CPU budget per request instead of a throughput:
// requests/s on a shared CI machine moves with everything else it runs, the CPU the server spends
// on each request does not. The server runs in a child process; `monitor` reads its CPU from /proc
// (Linux) once a second while salvo loads it at a fixed rate.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { assertThresholds, formatResult, runLoad } from 'salvo';

if (process.platform !== 'linux') {
  console.log('skipped: monitor reads a process from /proc, which only Linux has');
  process.exit(0);
}
const server = spawn(process.execPath, [fileURLToPath(new URL('./cpu-budget-server.mjs', import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] });
try {
  const [line] = await once(server.stdout, 'data');
  const result = await runLoad({
    url: line.toString().trim(),
    rate: 200,
    connections: 10,
    duration: '3s',
    monitor: { processes: [server.pid] },
    // Measured 0.4 ms per request on a busy 2-core VM; the budget leaves room for a slower CI machine.
    thresholds: { 'server.cpuPerRequestMs': '< 2', 'errors.total': '== 0' },
  });
  console.log(formatResult(result));
  assertThresholds(result);
} finally {
  server.stdin.end();
}
