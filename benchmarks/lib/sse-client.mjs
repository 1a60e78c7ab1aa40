// One contender of streams.mjs in its own process: `node sse-client.mjs salvo|subscribe|delivery|bare URL CONNECTIONS SECONDS [transport]`.
// salvo: runLoad with stream: { format: 'sse' }, each connection holding one stream for the run
// (the request timeout is longer than the run). subscribe: stream.subscribe, the subscription mode
// (an EventSource per connection); delivery: the same, each event's JSON timestamp read too. bare: an undici Pool of CONNECTIONS sockets, one
// request per socket, counting events by their blank lines in each chunk as it arrives. Both
// measured over the same window, from every stream open (the first event after it) to the end:
// process CPU (100 = one core), RSS sampled every 100 ms, events received. Prints one JSON line.
import { performance } from 'node:perf_hooks';

const [contender, url, connectionsArg, secondsArg, transport = 'net'] = process.argv.slice(2);
const connections = Number(connectionsArg);
const seconds = Number(secondsArg);

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 100);

if (contender !== 'bare') {
  const { runLoad } = await import('../../dist/index.js');
  // The window: from the end of the measured run's first second to the end of its last but one,
  // marked as each second closes (onProgress), so neither the opening nor the closing is in it.
  const marks = new Map();
  const result = await runLoad({
    url,
    transport,
    connections,
    duration: seconds * 1000,
    timeout: (seconds + 60) * 1000,
    stream: { format: 'sse', ...(contender === 'salvo' ? {} : { subscribe: true }), ...(contender === 'delivery' ? { timestamp: { field: 't' } } : {}) },
    onProgress: (event) => {
      marks.set(event.second, { cpu: process.cpuUsage(), time: performance.now(), rss: process.memoryUsage.rss() });
    },
  });
  clearInterval(sampler);
  const [from, to] = [marks.get(0), marks.get(seconds - 2)];
  const cpuUs = to.cpu.user + to.cpu.system - from.cpu.user - from.cpu.system;
  const wallMs = to.time - from.time;
  const events = result.timeline.slice(1, seconds - 1).reduce((sum, second) => sum + (second.stream?.events ?? 0), 0);
  const rss = Math.max(...[...marks.values()].map((mark) => mark.rss));
  console.log(JSON.stringify({ contender, cpuPercent: (cpuUs / 1000 / wallMs) * 100, cpuUsPerEvent: cpuUs / events, events, perSecond: events / (wallMs / 1000), peakRssMB: rss / 2 ** 20, errors: result.errors.total, ...(result.stream.subscriptions ? { subscribed: result.stream.subscriptions.subscribed, reconnects: result.stream.subscriptions.reconnects } : {}), ...(result.stream.delivery ? { deliveryP99: result.stream.delivery.p99 } : {}) }));
  process.exit(0);
} else {
  const { Pool } = await import('undici');
  const pool = new Pool(new URL(url).origin, { connections, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });
  const path = new URL(url).pathname;
  let events = 0;
  let counting = false;
  let opened = 0;
  const NL = 0x0a;
  // A connect that fails (a full listen backlog under 10,000 connects) is tried again, as salvo does.
  const subscribe = () =>
    pool.dispatch({ path, method: 'GET' }, {
      onConnect() {},
      onHeaders() {
        opened++;
        return true;
      },
      onData(chunk) {
        if (!counting) return true;
        // An event ends at a blank line: "\n\n" (this server writes LF only).
        for (let at = chunk.indexOf(NL); at !== -1 && at + 1 < chunk.length; at = chunk.indexOf(NL, at + 1)) if (chunk[at + 1] === NL) events++;
        return true;
      },
      onComplete() {},
      onError() {
        setTimeout(subscribe, 100);
      },
    });
  for (let i = 0; i < connections; i++) subscribe();
  // Every stream open (its head in), then a second more, as salvo's window starts a second into its run.
  const deadline = performance.now() + 120_000;
  while (opened < connections && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  counting = true;
  peakRss = 0;
  const cpuAt = process.cpuUsage();
  const start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, (seconds - 2) * 1000));
  const cpu = process.cpuUsage(cpuAt);
  const wallMs = performance.now() - start;
  if (opened < connections) throw new Error(`only ${opened} of ${connections} streams opened`);
  clearInterval(sampler);
  console.log(JSON.stringify({ contender, opened, cpuPercent: ((cpu.user + cpu.system) / 1000 / wallMs) * 100, cpuUsPerEvent: (cpu.user + cpu.system) / events, events, perSecond: events / (wallMs / 1000), peakRssMB: peakRss / 2 ** 20, errors: 0 }));
  process.exit(0);
}
