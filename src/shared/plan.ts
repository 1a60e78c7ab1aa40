import type { ConnectionOptions } from 'node:tls';
import type { ResolvedRequest } from './exchange.js';
import type { LoadOptions, RequestSpec } from './load-options.js';
import type { ResultTransport } from './load-result.js';
import type { Segment, Thresholds } from './terms.js';
import type { RunKind } from './run-kind.js';
import type { PlannedSocketIo, PlannedWebSocket, WebSocketHooks } from './websocket.js';
import type { PlannedTask, TaskFunctions } from './task.js';
import type { PlannedStream, StreamHooks } from './stream.js';
import type { PlannedArrivals } from './arrivals.js';
import type { PlannedLlm } from './llm.js';
import type { PlannedJourney } from './journey.js';

/** A ramp stage with its duration resolved. */
export interface PlannedStage {
  durationMs: number;
  rate?: number;
  connections?: number;
}

/** One request of the sequence, resolved; `spec` keeps the user's hooks (in-process only). */
export interface PlannedRequest extends ResolvedRequest {
  dynamic: boolean;
  capture: boolean;
  /** Its name (`name`, or `METHOD /path`) and that name's index in `Plan.names`. */
  name: string;
  nameIndex: number;
}

/**
 * The options after validation, with defaults applied. Everything but `hooks` is plain data, so a
 * Plan (or a shard of it) can be sent to a worker thread.
 */
export interface Plan {
  /** What the run drives, named here once (see `RunKind`): read it rather than testing options again. */
  kind: RunKind;
  url: string;
  /** The HTTP transport, or `'websocket'` for a `ws:`/`wss:` url (then `websocket` is set). */
  transport: ResultTransport;
  connections: number;
  /** Measured run length; undefined when only `amount` bounds the run. */
  durationMs: number | undefined;
  amount: number | undefined;
  rate: number | undefined;
  stages: PlannedStage[] | undefined;
  /**
   * Closed loop: each lane sends again as soon as it is answered. Open loop (`rate`, or stages that
   * ramp the rate): sends fall due on a schedule, whatever the answers.
   */
  loop: 'closed' | 'open';
  /** What `stages` ramp: the connections (closed loop) or the rate (open loop); undefined without stages. */
  ramps: 'connections' | 'rate' | undefined;
  /** HTTP/1.1 requests in flight per connection (1 with h2). */
  pipelining: number;
  /** HTTP/2 concurrent streams per session (1 with HTTP/1.1). */
  streams: number;
  workers: number;
  keepAlive: boolean;
  requests: PlannedRequest[];
  /**
   * The distinct names of `requests`, in order: a name's index selects its recorders in a thread's
   * recording, so the hot path indexes an array and never hashes a string. Empty for a WebSocket run.
   */
  names: string[];
  /** The `file:`/`data:` URL `requests` was imported from; each worker imports it again for the hooks. */
  requestsModule: string | undefined;
  /**
   * A worker shard's offset into the rate schedule, in slots (0 <= phase < 1): shard i of n has i / n,
   * so the shards' sends interleave. Absent outside worker shards.
   */
  ratePhase?: number;
  /** `arrivals`: the open loop's requests at drawn instants; undefined for even spacing. */
  arrivals?: PlannedArrivals | undefined;
  timeoutMs: number;
  warmupMs: number;
  /** `prewarm` as given: undefined lets each thread decide from its rate (`shouldPrewarm`). */
  prewarm?: boolean | undefined;
  /** `expect`, validated and normalised: plain data each thread compiles its checker from. */
  expect: PlannedExpect | undefined;
  /** `thresholds` as given (for `result.merge`) and parsed once. */
  thresholds: PlannedThresholds | undefined;
  tls: ConnectionOptions | undefined;
  tlsSessionReuse: boolean;
  /** Send again, once, a request the server provably never processed (`retry`). */
  retry: boolean;
  /** The share of the whole plan this run is; the plan itself stays whole until `run.ts` splits it. */
  segment: Segment | undefined;
  /** Wall-clock start of the measured run, epoch ms. */
  startAtMs: number | undefined;
  /** A WebSocket run (`ws:`/`wss:` url): what each connection does. */
  websocket: PlannedWebSocket | undefined;
  /** `monitor`: what the main thread watches while the run goes (never sent to a worker's use). */
  monitor: PlannedMonitor | undefined;
  /** A Socket.IO run (`socketio`, transport `'socket.io'`): what each connection does. */
  socketio?: PlannedSocketIo | undefined;
  /** A task run (`task`, transport `'task'`): what each thread calls; `connections` is its call slots. */
  task?: PlannedTask | undefined;
  /** `stream`: each response's body read as events and timed. */
  stream?: PlannedStream;
  /** `cookies`: a jar per journey, or per connection (`keep`); absent without cookies. */
  cookies?: 'journey' | 'connection';
  /** `followRedirects` when above 0: the most redirects followed per request. */
  followRedirects?: number;
  /** `llm`: the request bodies built per send, and where this share is in the run's order of prompts. */
  llm?: PlannedLlm;
  /** `think`, `flows`, `feed`: lanes walk journeys (see journey.ts); absent for a plain sequence. */
  journey?: PlannedJourney;
  /** `maxConnections`: lanes made for this many connections, `connections` of them in use at first. */
  maxConnections?: number;
}

/** One `outputs` entry after validation (`src/outputs/options.ts`): plain data, kept in the main thread. */
export interface PlannedOutput {
  type: 'prometheus';
  url: string;
  labels: Record<string, string>;
  headers: Record<string, string>;
}

/**
 * The most connections the plan has open at once: `connections`, or more when stages ramp them
 * higher or `maxConnections` leaves room for the run's handle to raise them.
 */
export function peakConnections(plan: Plan): number {
  const most = Math.max(plan.connections, plan.maxConnections ?? 0);
  if (plan.ramps !== 'connections') return most;
  return Math.max(most, ...plan.stages!.map((stage) => stage.connections!));
}

/** Requests in flight per connection, the engine's lanes per connection: `streams` with h2, else `pipelining`. */
export function lanesPerConnection(plan: Plan): number {
  return plan.transport === 'h2' ? plan.streams : plan.pipelining;
}

/** The parts of the options that cannot leave this thread. */
export interface PlanHooks {
  requests: RequestSpec[] | undefined;
  signal: AbortSignal | undefined;
  onProgress: LoadOptions['onProgress'];
  /** A WebSocket run's `message` / `timestamp` functions. */
  websocket?: WebSocketHooks;
  /** The `stream` option's functions. */
  stream?: StreamHooks;
  /** `outputs`, written from this thread's per-second roll-up. */
  outputs?: PlannedOutput[];
  /** A task run's functions (in this thread; a worker imports them from `plan.task.module`). */
  task?: TaskFunctions;
}

/**
 * `expect` validated and normalised, as a plan carries it: plain data that survives structured
 * cloning (RegExps do), compiled into a checker once per thread by `compileExpect`.
 */
export interface PlannedExpect {
  status: { allowed: Uint8Array; description: string } | undefined;
  body: { text: string | undefined; pattern: RegExp | undefined; description: string } | undefined;
  headers: Array<{ header: string; equals: string | undefined; pattern: RegExp | undefined }>;
}

/** A comparison a threshold expression may use. */
export type ThresholdOperator = '<' | '<=' | '>' | '>=' | '==' | '!=';

/** One threshold expression, validated: plain data, so a plan can carry it to a worker thread. */
export interface PlannedThreshold {
  /** The metric path, as the key was written: `latency.p99`. */
  readonly metric: string;
  /** The expression as written (trimmed): `< 50`. */
  readonly expression: string;
  readonly operator: ThresholdOperator;
  readonly value: number;
  /** End the run as soon as `cannotPass` finds that this threshold can no longer pass. */
  readonly abortOnFail: boolean;
  /** The metric never decreases while a run goes on, so an upper bound can fail early. */
  readonly monotone: boolean;
  /** Judged on every window of this many ms (whole seconds) instead of the whole run. */
  readonly windowMs?: number;
}

/** `thresholds` in a plan: as given (for `result.merge`, judged again on merged results) and parsed once. */
export interface PlannedThresholds {
  readonly given: Thresholds;
  readonly parsed: readonly PlannedThreshold[];
}

/** `monitor` after validation: plain data. */
export interface PlannedMonitor {
  processes: number[];
  prometheus: Array<{ url: string; devices: string[] | undefined }>;
}
