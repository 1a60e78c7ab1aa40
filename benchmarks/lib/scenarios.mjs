// What is measured. `group` decides how a scenario is reported:
//   throughput: closed loop, as many requests as each tool can get answered (req/s)
//   rate:       open loop at a target rate (achieved vs target)
//   latency:    closed loop against a server with a known fixed delay (reported minus true latency)

/** Fixed server-side delay of the latency-accuracy target, ms. */
export const KNOWN_DELAY_MS = 10;

const base = { group: 'throughput', target: 'main', body: '2b', connections: 10, pipelining: 1, keepAlive: true };

/**
 * Scenarios for a mode; `rates` are the open-loop targets (requests/s). Quick mode leaves out the
 * scenarios marked `full` (each kind of scenario still runs at least once).
 */
export function buildScenarios({ rates, quick }) {
  const all = [
    { ...base, id: 'c10', title: '10 connections, 2 B body' },
    { ...base, id: 'c100', title: '100 connections, 2 B body', connections: 100 },
    { ...base, id: 'c1000', title: '1000 connections, 2 B body', connections: 1000 },
    { ...base, id: 'body-1k', title: '100 connections, 1 KiB body', connections: 100, body: '1k', full: true },
    { ...base, id: 'body-64k', title: '100 connections, 64 KiB body', connections: 100, body: '64k' },
    { ...base, id: 'pipeline-10', title: '10 connections, pipelining 10, 2 B body', pipelining: 10 },
    { ...base, id: 'no-keepalive', title: '10 connections, keep-alive off (new connection per request)', keepAlive: false },
    ...rates.map((rate) => ({
      ...base,
      group: 'rate',
      id: `rate-${rate}`,
      title: `target ${rate} req/s, 100 connections, 2 B body`,
      connections: 100,
      rate,
    })),
    {
      ...base,
      group: 'latency',
      target: 'delay',
      body: undefined,
      id: 'latency-10ms',
      title: `10 connections, server answers after a fixed ${KNOWN_DELAY_MS} ms`,
    },
  ];
  return quick ? all.filter((scenario) => !scenario.full) : all;
}
