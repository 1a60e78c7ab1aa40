// Your load test, as the coordinator runs it: an ordinary runLoad whose `agents` makes this process
// the coordinator. It waits for SALVO_AGENTS agents (`salvo agent URL` on each machine or pod) on
// SALVO_LISTEN, hands each its segment of the plan with this script's task module and data files,
// starts them together and merges their seconds as they arrive: onProgress, thresholds (abortOnFail
// stops the whole fleet) and outputs see every agent. Exits 1 when a threshold failed.
//   SALVO_AGENTS         how many agents to wait for (the agents' Job's completions, or your host count)
//   SALVO_LISTEN         where agents connect: a port or host:port (0.0.0.0:7070 in a pod)
//   SALVO_AGENT_TOKEN    the shared token agents must present (from a Secret, never a literal)
//   SALVO_TOLERATE_LOST  optional: agents the run may lose and go on without (default 0: one lost agent fails it)
//   TARGET_URL           optional: the URL under test
// The Kubernetes recipe (manifests.mjs) and the plain-hosts recipe (../hosts/) both run this file.
import { formatResult, runLoad } from 'salvo';

function required(name) {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

const result = await runLoad({
  url: process.env.TARGET_URL ?? 'http://api.internal:8080/orders',
  connections: 400,
  rate: 40_000,
  duration: '5m',
  thresholds: {
    'latency.p99': '< 50',
    // Judged live over the whole fleet: past 1,000 errors every agent stops within a second.
    'errors.total': { threshold: '< 1000', abortOnFail: true },
  },
  agents: {
    expect: Number(required('SALVO_AGENTS')),
    listen: required('SALVO_LISTEN'),
    token: required('SALVO_AGENT_TOKEN'),
    tolerateLost: Number(process.env.SALVO_TOLERATE_LOST ?? 0),
  },
});
console.log(formatResult(result));
process.exitCode = result.ok ? 0 : 1;
