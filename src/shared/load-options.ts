import type { FormBody } from './form.js';
import type { StreamOptions } from './stream.js';
import type { LlmOptions, SloOptions } from './llm.js';
import type { ConnectionOptions } from 'node:tls';
import type { ProgressEvent } from './load-result.js';
import type { Segment, Thresholds, TransportName } from './terms.js';
import type { TaskFunction } from './task.js';
import type { Arrivals } from './arrivals.js';
import type { MonitorOptions, SocketIoOptions, WebSocketOptions } from './protocol-options.js';

export type {
  MonitorOptions,
  PrometheusSource,
  SocketIoOptions,
  WebSocketMessage,
  WebSocketOptions,
} from './protocol-options.js';
import type { FeedOptions, JourneyFlow } from './journey-options.js';
import type { LiveOptions } from './live.js';
import type { AgentsOptions } from './agents.js';

/** A duration: milliseconds as a number, or a string such as `'500ms'`, `'10s'`, `'2m'`, `'1h'`. */
export type Duration = number | string;

/** A request body: a string, a Buffer, or any other value sent as JSON. */
export type RequestBody = string | Buffer | Uint8Array | Record<string, unknown> | unknown[];

/** One request of a sequence that each connection walks in order and repeats. */
export interface RequestSpec {
  /**
   * What `result.byName` (and every per-name view) calls this request. Default: the method and the
   * path without its query (`'GET /search'`); a `setupRequest` that changes the path keeps it.
   */
  name?: string;
  /** HTTP method. Default: the run's `method`. */
  method?: string;
  /** Path and query, such as `'/users?id=1'`. Default: the path of `url`. */
  path?: string;
  /** Extra headers, merged over the run's `headers`. */
  headers?: Record<string, string>;
  /** Body; objects are sent as JSON with `content-type: application/json`. */
  body?: RequestBody;
  /**
   * Builds the request just before it is sent (an id, a token). Only requests with this hook are
   * encoded per send; the others stay pre-encoded. Mutate `request` or return a new spec.
   */
  setupRequest?: (request: RequestSpec, context: RequestContext) => RequestSpec | void;
  /**
   * Called with each response of this request (the last of a followed redirect chain). Its body and
   * headers are copied out only when this hook exists. `headers` has lower-case names, repeats joined
   * with ', ', but `set-cookie` lines joined with '\n'.
   */
  onResponse?: (status: number, body: Buffer, context: RequestContext, headers: Record<string, string>) => void;
  /**
   * A form body: `application/x-www-form-urlencoded`, or `multipart/form-data` when a value is a
   * Buffer or a `FormFile` (or `multipart: true`). Not with `body`.
   */
  form?: FormBody;
  /** Pause after this step's answer before the lane's next step: a duration or `[min, max]` (docs/journeys.md). */
  think?: Duration | [Duration, Duration];
}

/** State that one connection carries from one request of a sequence to the next. */
export interface RequestContext {
  /** Free-form values set by `onResponse` and read by `setupRequest`. */
  values: Record<string, unknown>;
  /** Index of this connection within its thread. */
  connection: number;
  /** How many times this connection has walked the sequence so far. */
  iteration: number;
  /** With `feed`: this journey's row (a CSV row as an object of its header's names to strings). */
  row?: unknown;
  /** With `flows`: the name of the flow this journey walks. */
  flow?: string;
  /** With `think`, `flows` or `feed`: this journey's number in the whole run, from 0 (all workers and segments). */
  journey?: number;
}

/**
 * One step of a ramp: `rate` ramps an open-loop run, `connections` ramps a closed-loop run. Each stage
 * moves linearly from where the previous one ended to its own target, reached at its end.
 */
export interface Stage {
  /** How long this stage lasts. */
  duration: Duration;
  /**
   * Target requests/s reached at the end of this stage (k6's ramping arrival rate): the rate, and
   * so the spacing of requests, changes smoothly over the stage, never in steps per second.
   */
  rate?: number;
  /** Open connections reached at the end of this stage; connections are opened and closed as it goes. */
  connections?: number;
}

/** Checks applied to every response; their outcome is in `result.checks`. */
export interface ExpectOptions {
  /** A status code, a list of codes, or a class such as `'2xx'`. */
  status?: number | string | Array<number | string>;
  /** The body includes this string, or matches this RegExp. */
  body?: string | RegExp;
  /** Each named header equals the string, or matches the RegExp (names are case-insensitive). */
  headers?: Record<string, string | RegExp>;
}

/**
 * An `outputs` entry: the run's per-second series written live to Prometheus's remote-write
 * endpoint (`prometheus --web.enable-remote-write-receiver`, Mimir, Thanos, VictoriaMetrics...).
 */
export interface PrometheusOutput {
  type: 'prometheus';
  /** The remote-write URL, such as `http://prometheus:9090/api/v1/write`. */
  url: string;
  /** Labels on every series. `testid` names the run; without it one is generated and printed. */
  labels?: Record<string, string>;
  /** Headers of each write, such as `authorization`. */
  headers?: Record<string, string>;
}

/** Where `outputs` can send a run's series live; more kinds can follow. */
export type OutputOptions = PrometheusOutput;

/** Options of `runLoad`. Only `url` (or, for a run of your own function, `task`) is required. */
export interface LoadOptions {
  /**
   * Target URL, `http:` or `https:`; `ws:` or `wss:` runs a WebSocket load test (see `websocket`).
   * Required unless `task` is given.
   */
  url?: string;
  /**
   * Load anything: an async function salvo calls as one unit of work, `task(ctx)`, instead of a
   * request to `url`, on the same schedule (closed loop with `concurrency` calls in flight, or
   * `rate`/`stages`), with the same statistics. A call that throws or rejects is an error counted
   * under the error's `code` (or its name); `errors.samples` keeps a few messages. With `workers` > 1
   * give a module instead: `'./task.mjs'` (its default or `task` export) or `'./task.mjs#checkout'`
   * (a named export); it may also export `setup(ctx)` (once per thread before the clock; what it
   * returns is `ctx.state`) and `teardown(state)` (after the run, also an aborted one).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a task typed with its own state must be assignable here
  task?: TaskFunction<any> | string;
  /** A task run's calls in flight over all workers: another name for `connections`. Default 10. */
  concurrency?: number;
  /**
   * A task run: how long each thread's `setup` may take before the run rejects with a
   * `SalvoTaskSetupError` (code `SALVO_TASK_SETUP_TIMEOUT`) and nothing is sent. Default 60 s.
   */
  setupTimeout?: Duration;
  /**
   * A task run: after a call fails (or times out), its slot waits before calling again, 5 ms doubling
   * to 1 s while the calls keep failing, as HTTP connections wait after an error. `false` calls again
   * at once. Default true.
   */
  backoff?: boolean;
  /**
   * Several workloads at once on the run's one clock, by name (`{ browse: {...}, checkout: {...} }`),
   * each with its own load shape and requests; the options here are the defaults each overrides.
   * `result.byScenario` holds each one's result, and the run's numbers are their exact sum.
   */
  scenarios?: Record<string, ScenarioOptions>;
  /** Which client sends the requests. Default `'net'`. */
  transport?: TransportName;
  /** The single request's name in `result.byName`. Default: the method and the url's path (`'GET /search'`). */
  name?: string;
  /** Concurrent connections over all workers. Default 10. */
  connections?: number;
  /**
   * The most connections `startLoad`'s `setConnections` may raise the run to: lanes are made for
   * this many at the start, `connections` of them open at first. Default: `connections` (or the stages' peak).
   */
  maxConnections?: number;
  /** How long to run. Default 10 s unless `amount` is given. */
  duration?: Duration;
  /** Send exactly this many requests, then stop. */
  amount?: number;
  /**
   * Target requests/s over all workers; turns on open-loop mode with coordinated-omission correction.
   * Request i is due at start + i / rate and goes out on whichever connection is free; when none is,
   * it waits, and its latency still counts from when it was due. Slots still waiting at the end are
   * counted in `requests.missed`. Give enough `connections` for rate × latency requests in flight.
   */
  rate?: number;
  /**
   * Ramping stages, run one after the other; together they set the run length (no `duration`).
   * Rate stages (`{ duration, rate }`, open loop) ramp from `rate`, or from 0 when `rate` is not
   * given; connection stages (`{ duration, connections }`, closed loop, no `rate`) ramp from
   * `connections`. Each timeline second shows the target rate and the open connections.
   */
  stages?: Stage[];
  /**
   * How open-loop requests are spaced around the rate: `'constant'` (default) evenly; `'poisson'` by
   * exponential gaps (a Poisson process, the rate's ramp followed under stages); `{ distribution:
   * 'gamma', shape }` by gamma gaps, burstier than Poisson below shape 1. `seed` (default 0) picks the
   * draws: the same seed gives the same instants however the run is split over workers and segments,
   * and a run with a `duration` sends exactly as many requests as the constant rate does. Latency
   * counts from each drawn instant, as from a constant slot.
   */
  arrivals?: Arrivals;
  /** Requests in flight per connection. Default 1. */
  pipelining?: number;
  /**
   * HTTP/2 (`transport: 'h2'`): concurrent streams per connection, that is requests in flight on each
   * of the `connections`. Default 1. Capped by the server's SETTINGS_MAX_CONCURRENT_STREAMS; when it
   * is, `result.warnings` has `H2_STREAMS_CAPPED` with the limit. (Not `stream`, which reads bodies.)
   */
  h2Streams?: number;
  /**
   * Worker threads: 1 runs in this thread; `'auto'` uses one per core, leaving one free. Default 1.
   * Capped so that each worker has at least one connection (and one request of `amount`, 1 req/s of
   * `rate`); `result.workers` is the number used.
   */
  workers?: number | 'auto';
  /** Reuse connections. Default true; false opens one connection per request. */
  keepAlive?: boolean;
  /** HTTP method. Default `'GET'`. */
  method?: string;
  /** Request headers. */
  headers?: Record<string, string>;
  /**
   * Ask for a compressed response, as curl's `--compressed`: `accept-encoding: gzip, deflate, br` on
   * every request (unless `headers` has an `accept-encoding`). Default false. Streamed bodies
   * (`stream`) and the bodies `expect` and `onResponse` see are decoded whatever asked for the coding;
   * `bytes.received` counts the bytes on the wire.
   */
  compressed?: boolean;
  /** Request body; objects are sent as JSON. */
  body?: RequestBody;
  /**
   * A sequence of requests each connection walks in order and repeats, instead of one request. With
   * `workers` > 1, specs with `setupRequest`/`onResponse` hooks must come from a module: give its path
   * or `file:` URL (default or `requests` export); each worker imports it.
   */
  requests?: RequestSpec[] | string;
  /** Per-request timeout. Default 10 s. Timeouts are counted under `errors.byCode.TIMEOUT`. */
  timeout?: Duration;
  /**
   * A period before the measured run whose requests are sent but kept out of every statistic (counts,
   * latency, timeline, checks, bytes) and counted in `requests.warmup`. Open loop: it runs at `rate`
   * (required with rate stages), and the stages start after it. Default 0: nothing is sent that the
   * run does not count.
   */
  warmup?: Duration;
  /**
   * Before its connections open, each thread runs the HTTP path (engine, transport, parser, recorder,
   * pacer) against a loopback server of its own, so that V8's cold start stays out of the measured
   * run; nothing reaches `url`. Default: on for a rate run of 1,000/s or more per worker thread.
   * Its cost is `result.generator.prewarm`.
   */
  prewarm?: boolean;
  /** Checks applied to every response. */
  expect?: ExpectOptions;
  /** Pass/fail criteria evaluated on the result. */
  thresholds?: Thresholds;
  /** Options for `tls.connect`. Certificates are verified unless `rejectUnauthorized: false`. */
  tls?: ConnectionOptions;
  /**
   * Resume TLS sessions on new connections, as browsers and wrk do: each worker thread keeps the
   * last session the server issued and offers it on every new connection (the `session` option of
   * `tls.connect`), so a returning visitor's abbreviated handshake is what `keepAlive: false`
   * measures. `false` forces a full handshake on every connection (first-visit cost). Default true.
   */
  tlsSessionReuse?: boolean;
  /**
   * Send again, once and on a new connection, a request the server provably never processed: one
   * pipelined behind a response that announced the close (`Connection: close`), and an idempotent one
   * (GET HEAD OPTIONS TRACE PUT DELETE) alone on a reused connection that closed before any byte of
   * its response (the keep-alive race), as browsers and Go's client do. Counted once in `requests.sent`, in `requests.retried`,
   * with its latency from its first send. `false` reports every such close as an error. Default true.
   */
  retry?: boolean;
  /** Aborting it ends the run promptly with the partial result and `aborted: true`. */
  signal?: AbortSignal;
  /**
   * Called about once per second with the last second's numbers and the totals (over all workers).
   * A string is a module path or `file:` URL whose default or `onProgress` export is the callback.
   */
  onProgress?: ((event: ProgressEvent) => void) | string;
  /**
   * Run only the `index`-th (from 0) of `count` shares of this plan: connections, `amount`, `rate`
   * and stages split exactly as over worker threads, with the rate schedule offset so that the
   * shares' sends interleave. One process or machine per segment, every segment given the same
   * options; `mergeResults` puts their results back together. `count` is at most `connections`
   * (and `amount`, `rate`).
   */
  segment?: Segment;
  /**
   * Wall-clock instant (epoch ms, or a Date) at which the measured run starts: the connections are
   * opened and the warm-up is run before it. Give every segment the same one so that their seconds
   * line up. A time already past starts at once and adds a `LATE_START` warning.
   */
  startAt?: number | Date;
  /**
   * What each connection of a WebSocket run (`ws:`/`wss:` url) does: send `message` and time each
   * reply (echo / request-reply), and/or time messages the server pushes by the `timestamp` they
   * carry (listen / broadcast). Only with a `ws:`/`wss:` url.
   */
  websocket?: WebSocketOptions;
  /**
   * Live series out, every second of the run (over all workers), and the final totals after it:
   * `[{ type: 'prometheus', url, labels: { testid } }]`. An endpoint that fails costs an
   * `OUTPUT_FAILED` warning, never the run or its numbers.
   */
  outputs?: OutputOptions[];
  /**
   * Watch the server while the run goes, once a second in the main thread on the timeline's
   * seconds: local processes by pid and Prometheus text endpoints. What they say is in
   * `result.server` and each timeline entry's `server`.
   */
  monitor?: MonitorOptions;
  /**
   * A cookie jar per journey (one walk of `requests` by a connection), as a browser keeps one per
   * session: `Set-Cookie` answers are stored and sent back by RFC 6265's rules (domain, path,
   * expiry and Max-Age, Secure, HttpOnly; SameSite ignored, as a client that is not a browser does).
   * `{ keep: true }` keeps each connection's jar across its walks. Every request is then encoded per send.
   */
  cookies?: boolean | { keep?: boolean };
  /**
   * Follow up to this many redirects (301 302 303 307 308) of each request to the same origin, by RFC
   * 9110's method rules; counted in `requests.redirects` of the request's name, and its latency is the
   * whole chain's. Default 0: a redirect is the request's answer.
   */
  followRedirects?: number;
  /**
   * A Socket.IO run (Engine.IO 4 over WebSocket; Socket.IO 3 and 4 servers): `url` is the server's
   * origin (`http:`, `https:`, `ws:` or `wss:`), and each connection connects to a namespace, emits
   * `emit` and times its acknowledgement or `reply`, and/or times the `listen` events the server
   * pushes. The result is a WebSocket run's, with `transport: 'socket.io'`.
   */
  socketio?: SocketIoOptions;
  /**
   * Read each response's body as a stream of events (Server-Sent Events, NDJSON lines or chunks) and
   * time them: `result.stream` has the time to first event, the gaps between events, events per
   * response and, with `tokens`, the LLM figures (TTFT, ITL, TPOT, output tokens/s).
   */
  stream?: StreamOptions;
  /** A weighted mix of journeys from one rate, each walking one flow's `requests` (docs/journeys.md). */
  flows?: FlowSpec[] | string;
  /** Rows handed out one per journey as `context.row`, each once before any again (docs/journeys.md). */
  feed?: FeedOptions;
  /**
   * Make this process the coordinator of a fleet of agents (`salvo agent URL` on each machine): it
   * sends no load itself, hands each agent its segment of the plan, and merges their seconds live.
   * See [Many machines](docs/many-machines.md).
   */
  agents?: AgentsOptions;
  /**
   * Serve a page on 127.0.0.1 that draws the run second by second with the report's charts and
   * cards, and becomes its report when it ends (docs/live.md): `{ port: 0, onLive: ({ url }) => ... }`.
   */
  live?: LiveOptions;
  /**
   * An LLM serving workload: salvo builds each request's body for the API (OpenAI chat or
   * completions, Ollama) from a dataset or synthetic prompts, and reads its answer as a token
   * stream. See docs/llm.md.
   */
  llm?: LlmOptions;
  /** Per-request objectives, ms (`{ ttft?, tpot?, itl?, e2e? }`): `result.goodput` counts the streams that met them all. */
  slo?: SloOptions;
}

/**
 * One of `scenarios`: the options of a run of its own (any of `LoadOptions` but those of the whole
 * run), over the run's as defaults, and when it starts.
 */
export interface ScenarioOptions extends Omit<
  LoadOptions,
  | 'url'
  | 'scenarios'
  | 'thresholds'
  | 'onProgress'
  | 'outputs'
  | 'monitor'
  | 'signal'
  | 'segment'
  | 'startAt'
  | 'agents'
  | 'maxConnections'
> {
  /** Default: the run's `url`. */
  url?: string;
  /** The single request's path, against the scenario's `url` (the run's by default): `'/browse?page=2'`. */
  path?: string;
  /** How long after the run's measured start this scenario's starts. Default 0. */
  start?: Duration;
}

/** One of `flows`: its `name`, `weight` and `requests`. */
export type FlowSpec = JourneyFlow<RequestSpec>;
