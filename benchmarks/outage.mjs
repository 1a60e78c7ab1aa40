// The outage timeline (issue 38): a rate run against a node:http server in another process that is
// killed (SIGKILL) about 1.9 s into the measured run and started again on the same port 1 s later.
// Prints, per transport, the requests per 100 ms at the server from 1.5 s to 4.5 s, the most in any
// 50 ms, salvo's counts and the requests per connection. `npm run build` first; then
// `node benchmarks/outage.mjs [--transports net,undici,http] [--rate 200]`.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { runLoad } from '../dist/index.js';

// The server: each request's arrival (ms since the shared epoch) and its connection's number, on stdout.
if (process.argv[2] === '--serve') {
  const [port, epoch] = [Number(process.argv[3]), Number(process.argv[4])];
  let connections = 0;
  const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
    process.send({ at: Date.now() - epoch, connection: request.socket.id });
    response.end('ok');
  });
  server.on('connection', (socket) => (socket.id = `${process.pid}-${connections++}`));
  server.listen(port, '127.0.0.1', () => process.send({ listening: server.address().port }));
} else {
  const { values } = parseArgs({ options: { transports: { type: 'string', default: 'net,undici,http' }, rate: { type: 'string', default: '200' } } });
  const rate = Number(values.rate);
  for (const transport of values.transports.split(',')) {
    const epoch = Date.now();
    const arrivals = [];
    const serve = async (port) => {
      const child = fork(new URL(import.meta.url).pathname, ['--serve', String(port), String(epoch)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      child.on('message', (message) => message.at !== undefined && arrivals.push(message));
      const [message] = await once(child, 'message');
      return { child, port: message.listening };
    };
    let { child, port } = await serve(0);
    let measuredAt;
    const outage = (async () => {
      while (measuredAt === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, measuredAt + 1900 - (Date.now() - epoch)));
      child.kill('SIGKILL');
      await once(child, 'exit');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      ({ child } = await serve(port));
    })();
    const result = await runLoad({
      url: `http://127.0.0.1:${port}/`, transport, rate, duration: '5s', connections: 10, timeout: '2s',
      // The measured run starts a second before the first progress event.
      onProgress: (event) => {
        if (event.second === 0) measuredAt ??= Date.now() - epoch - 1000;
      },
    });
    await outage;
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill();
    const from = measuredAt + 1500;
    const windows = Array.from({ length: 30 }, (_, i) => arrivals.filter(({ at }) => at >= from + i * 100 && at < from + (i + 1) * 100).length);
    let most = 0;
    for (const { at } of arrivals) most = Math.max(most, arrivals.filter((other) => other.at >= at && other.at < at + 50).length);
    const counts = new Map();
    for (const { connection } of arrivals) counts.set(connection, (counts.get(connection) ?? 0) + 1);
    const perConnection = [...counts.values()].sort((a, b) => b - a);
    console.log(`| ${transport} | ${windows.join(' ')} | ${most} | ${result.requests.sent}, ${result.requests.completed}, ${result.requests.missed}, ${Object.entries(result.errors.byCode).map(([code, count]) => `${count} ${code}`).join(' ') || '0'} | ${perConnection.join(',')} |`);
  }
}
