import { performance } from 'node:perf_hooks';
import { peakConnections, type Plan } from '../shared/plan.js';
import type { PrewarmStats } from '../shared/prewarm.js';
import type { ShardStats } from '../stats/recorder.js';
import type { RunHooks } from '../runner/lifecycle.js';
import { startPrewarmServer } from './prewarm-server.js';

/** A rate run of this many requests/s per thread or more pre-warms unless `prewarm: false`. */
export const PREWARM_FROM_RATE = 1000;
/** The rounds' rate: the run's own when faster, so that they last some hundred milliseconds. */
const PREWARM_MIN_RATE = 20_000;
/** Each round ends by then whatever it sent (a slow host): start-up time is bounded. */
const PREWARM_MAX_MS = 1000;
/** What scenarios leave for a pre-warm before their shared start (`prewarmLeadMs`). */
const PREWARM_LEAD_MS = 2000;
/** Its connections: enough lanes for the loop's free-lane path; a thousand would only take time to open. */
const PREWARM_MAX_CONNECTIONS = 64;

/** One engine's run against the loopback server: `amount` requests at `rate`/s, its clock started `pastMs` ago. */
interface Round {
  amount: number;
  rate: number;
  pastMs: number;
}

/**
 * A pre-warm's rounds, each a new engine. V8 had optimised the send/parse/record path after 1-5
 * thousand requests (benchmarks/README.md, the generator's cold start): the first round. The
 * second starts its clock 1,990 ms in the past: its first send closes two timeline seconds, and the
 * next close falls 10 ms in, among its responses (branches of the hot path that only run as a
 * second closes). Those, a round's end and a new engine's first requests (another instance's
 * closures) deoptimise some of the path: the third round has V8 optimise it again with all of them
 * seen, as the run's own engine will find it.
 */
function rounds(rate: number): Round[] {
  const fast = Math.max(rate, PREWARM_MIN_RATE);
  return [
    { amount: 6000, rate: fast, pastMs: 0 },
    { amount: 2100, rate: 1000, pastMs: 1990 },
    { amount: 4000, rate: fast, pastMs: 0 },
  ];
}

/** The highest rate the plan's schedule reaches, requests/s (this thread's share). */
function peakRate(plan: Plan): number {
  const stageRates = plan.ramps === 'rate' ? plan.stages!.map((stage) => stage.rate ?? 0) : [];
  return Math.max(plan.rate ?? 0, ...stageRates);
}

/**
 * Transports this thread has pre-warmed: V8 keeps what it optimised for the thread's later runs
 * (a capacity search's steps, a test suite's runs), so `prewarm`'s default does it once per thread.
 */
const warmTransports = new Set<string>();

/**
 * Whether this thread's HTTP run pre-warms: `prewarm` as given, else a rate run whose peak rate per
 * thread is 1,000/s or more (below that the cold start's extra CPU queues nothing), unless this
 * thread already pre-warmed its transport.
 */
export function shouldPrewarm(plan: Plan): boolean {
  return (
    plan.prewarm ?? (plan.loop === 'open' && peakRate(plan) >= PREWARM_FROM_RATE && !warmTransports.has(plan.transport))
  );
}

/**
 * Time a scenario of `plan` leaves before the shared start for its threads' pre-warms (a few hundred
 * ms each here; bounded by the rounds' `PREWARM_MAX_MS`): 0 when none of its threads pre-warms.
 */
export function prewarmLeadMs(plan: Plan): number {
  if (
    plan.transport === 'websocket' ||
    plan.transport === 'socket.io' ||
    plan.transport === 'task' ||
    plan.stream?.subscribe === true
  )
    return 0;
  return (plan.prewarm ?? (plan.loop === 'open' && peakRate(plan) / plan.workers >= PREWARM_FROM_RATE))
    ? PREWARM_LEAD_MS
    : 0;
}

/**
 * The pre-warm's plan: the run's own requests, transport, pipelining and checks, sent as a short
 * open-loop run to a loopback server. No hook of the user's is called (`setupRequest`, `onResponse`,
 * `stream`), and none of the run's outputs, thresholds or start instant apply.
 */
function prewarmPlan(plan: Plan, origin: string, { amount, rate, pastMs }: Round): Plan {
  const { pathname, search } = new URL(plan.url);
  return {
    ...plan,
    url: `${origin}${pathname}${search}`,
    connections: Math.min(peakConnections(plan), PREWARM_MAX_CONNECTIONS),
    durationMs: pastMs + PREWARM_MAX_MS,
    amount,
    rate,
    stages: undefined,
    loop: 'open',
    ramps: undefined,
    workers: 1,
    requests: plan.requests.map((request) => ({ ...request, dynamic: false, capture: false })),
    requestsModule: undefined,
    ratePhase: 0,
    arrivals: undefined,
    warmupMs: 0,
    thresholds: undefined,
    tls: undefined,
    segment: undefined,
    startAtMs: undefined,
    monitor: undefined,
    stream: undefined,
    journey: undefined,
    prewarm: false,
  };
}

/**
 * Runs the thread's HTTP path (a new engine with the run's transport, parser, recorder and pacer:
 * the same classes, so the same code V8 optimises) against a server on 127.0.0.1 in this thread,
 * before the run opens its connections. Nothing reaches the server under test, and nothing of it is
 * in the run's counts: its engine, recorder and phases are its own and are dropped. Returns what it
 * cost, or undefined when the thread does not pre-warm.
 */
export async function prewarm(
  plan: Plan,
  run: (plan: Plan, hooks: RunHooks) => Promise<ShardStats>,
  signal: AbortSignal | undefined,
): Promise<PrewarmStats | undefined> {
  if (!shouldPrewarm(plan) || signal?.aborted) return undefined;
  const startedAt = performance.now();
  const cpu = process.cpuUsage();
  const server = await startPrewarmServer(plan.transport === 'h2');
  let requests = 0;
  try {
    for (const round of rounds(peakRate(plan))) {
      if (signal?.aborted) break;
      const ready = async () => performance.now() - round.pastMs;
      requests += (await run(prewarmPlan(plan, server.origin, round), { signal, ready })).completed;
    }
  } finally {
    await server.close();
  }
  if (!signal?.aborted) warmTransports.add(plan.transport);
  const used = process.cpuUsage(cpu);
  return { durationMs: performance.now() - startedAt, cpuMs: (used.user + used.system) / 1000, requests };
}
