// Every option of `runLoad`, once: which kinds of run it applies to, its type, unit, default and what
// it does in a line. Validation derives the options each kind accepts from it (`rejectForKind`), a
// scenario's options are its rows without `run`, and test/option-table.test.ts checks that
// docs/options.md and the CLI's flags agree with it, so that none of them can drift.
import { SalvoOptionError } from './errors.js';
import type { LoadOptions } from './load-options.js';
import type { RunKind } from './run-kind.js';
import { show } from './validate.js';

export interface OptionRow {
  /** The kinds of run it has a meaning in; any other rejects it by name. */
  kinds: readonly RunKind[];
  /** An option of the whole run, never a scenario's (`scenarios` takes the others). */
  run?: true;
  /** Its type, as the docs write it. */
  type: string;
  /** What a number means, when it is one. */
  unit?: string;
  /** Its default, exactly as docs/options.md's `default` column writes it (`—`: none). */
  default: string;
  /** What it does, in a line. */
  doc: string;
  /** The `salvo` flags (LOAD_FLAGS) that set it, without the dashes. */
  flags?: readonly string[];
}

const ALL: readonly RunKind[] = ['http', 'websocket', 'socketio', 'task', 'subscription'];
/** Runs of HTTP requests: a request sequence, or SSE subscriptions held for the run. */
const HTTP: readonly RunKind[] = ['http', 'subscription'];
/** Runs against a url. */
const URL_RUNS: readonly RunKind[] = ['http', 'websocket', 'socketio', 'subscription'];
/** Runs whose rate and amount count sends (requests, calls). */
const SENDING: readonly RunKind[] = ['http', 'websocket', 'socketio', 'task'];
const NONE = '—';

/** The options of `runLoad`, in the order docs/options.md lists them. */
export const OPTION_TABLE: { readonly [K in keyof Required<LoadOptions>]: OptionRow } = {
  url: {
    kinds: URL_RUNS,
    type: 'string',
    default: 'required',
    doc: 'the URL to load: http:, https:, or ws:/wss: for a WebSocket run',
    flags: [],
  },
  name: { kinds: HTTP, type: 'string', default: "`'GET /path'`", doc: "the single request's name in result.byName" },
  transport: {
    kinds: HTTP,
    type: "'net' | 'undici' | 'http' | 'h2'",
    default: "`'net'`",
    doc: 'which client sends the requests',
    flags: ['transport'],
  },
  connections: {
    kinds: ALL,
    type: 'number',
    default: '`10`',
    doc: 'concurrent connections over all workers (call slots in a task run)',
    flags: ['connections'],
  },
  duration: {
    kinds: ALL,
    type: 'Duration',
    unit: 'ms',
    default: '`10s` unless `amount`',
    doc: 'how long the measured run lasts',
    flags: ['duration'],
  },
  amount: {
    kinds: SENDING,
    type: 'number',
    default: NONE,
    doc: 'send exactly this many requests (messages, calls), then stop',
    flags: ['amount'],
  },
  rate: {
    kinds: ['http', 'task'],
    type: 'number',
    unit: 'requests/s',
    default: NONE,
    doc: 'target rate over all workers: the open loop',
    flags: ['rate'],
  },
  stages: {
    kinds: ALL,
    type: 'Stage[]',
    default: NONE,
    doc: 'ramp the rate or the connections',
    flags: ['rate-stage', 'connection-stage'],
  },
  pipelining: {
    kinds: HTTP,
    type: 'number',
    default: '`1`',
    doc: 'HTTP/1.1 requests in flight per connection',
    flags: ['pipelining'],
  },
  h2Streams: {
    kinds: HTTP,
    type: 'number',
    default: '`1`',
    doc: 'HTTP/2 concurrent streams per connection',
    flags: ['h2-streams'],
  },
  workers: { kinds: ALL, type: "number | 'auto'", default: '`1`', doc: 'worker threads', flags: ['workers'] },
  keepAlive: {
    kinds: HTTP,
    type: 'boolean',
    default: '`true`',
    doc: 'false opens one connection per request',
    flags: ['keep-alive'],
  },
  compressed: {
    kinds: HTTP,
    type: 'boolean',
    default: '`false`',
    doc: 'ask for gzip, deflate or br and decode what comes back',
    flags: ['compressed'],
  },
  method: { kinds: HTTP, type: 'string', default: '`GET`', doc: 'the request method', flags: ['method'] },
  headers: {
    kinds: URL_RUNS,
    type: 'Record<string, string>',
    default: NONE,
    doc: 'request (or handshake) headers',
    flags: ['header'],
  },
  body: {
    kinds: HTTP,
    type: 'string | Buffer | object',
    default: NONE,
    doc: 'the request body',
    flags: ['body', 'body-file', 'json-body'],
  },
  requests: {
    kinds: HTTP,
    type: 'RequestSpec[] | string',
    default: NONE,
    doc: 'a sequence of requests each connection walks',
    flags: ['requests'],
  },
  timeout: {
    kinds: ALL,
    type: 'Duration',
    unit: 'ms',
    default: '`10s`',
    doc: 'per request (message, call)',
    flags: ['timeout'],
  },
  warmup: {
    kinds: ALL,
    type: 'Duration',
    unit: 'ms',
    default: '`0`',
    doc: 'a first period sent to the server but kept out of every statistic',
    flags: ['warmup'],
  },
  prewarm: {
    kinds: HTTP,
    type: 'boolean',
    default: 'on for an HTTP run of 1,000/s or more per worker',
    doc: "run salvo's own HTTP path against a loopback server before the clock",
    flags: ['prewarm'],
  },
  expect: {
    kinds: ['http'],
    type: 'ExpectOptions',
    default: NONE,
    doc: 'checks on every response',
    flags: ['expect-status', 'expect-body'],
  },
  thresholds: {
    kinds: ALL,
    run: true,
    type: 'Thresholds',
    default: NONE,
    doc: 'pass/fail criteria judged on the result',
    flags: ['threshold'],
  },
  tls: {
    kinds: URL_RUNS,
    type: 'ConnectionOptions',
    default: NONE,
    doc: 'tls.connect options',
    flags: ['insecure', 'ca'],
  },
  retry: {
    kinds: HTTP,
    type: 'boolean',
    default: '`true`',
    doc: 'send again a request the server provably never processed',
    flags: ['retry'],
  },
  tlsSessionReuse: {
    kinds: HTTP,
    type: 'boolean',
    default: '`true`',
    doc: 'resume the last TLS session on new connections',
  },
  signal: {
    kinds: ALL,
    run: true,
    type: 'AbortSignal',
    default: NONE,
    doc: 'aborting ends the run with the partial result',
  },
  onProgress: {
    kinds: ALL,
    run: true,
    type: '(event) => void | string',
    default: NONE,
    doc: 'called once per second of the run',
  },
  segment: { kinds: ALL, run: true, type: '{ index, count }', default: NONE, doc: 'run one exact share of the plan' },
  startAt: {
    kinds: ALL,
    run: true,
    type: 'number | Date',
    unit: 'epoch ms',
    default: NONE,
    doc: 'start the measured run at this instant',
  },
  websocket: {
    kinds: ['websocket'],
    type: 'WebSocketOptions',
    default: NONE,
    doc: 'a WebSocket run: messages, rate, timestamps',
    flags: ['ws-message', 'ws-rate', 'ws-timestamp'],
  },
  socketio: {
    kinds: ['socketio'],
    type: 'SocketIoOptions',
    default: NONE,
    doc: 'a Socket.IO run against url',
    flags: [
      'socketio-emit',
      'socketio-data',
      'socketio-ack',
      'socketio-reply',
      'socketio-rate',
      'socketio-listen',
      'socketio-timestamp',
      'socketio-namespace',
      'socketio-auth',
      'socketio-path',
    ],
  },
  stream: {
    kinds: HTTP,
    type: 'StreamOptions',
    default: NONE,
    doc: 'read response bodies as event streams and time them',
    flags: ['stream', 'stream-until', 'stream-tokens', 'stream-timestamp', 'stream-subscribe', 'stream-usage'],
  },
  task: {
    kinds: ['task'],
    type: 'function | string',
    default: NONE,
    doc: 'load your own async function instead of a url',
    flags: ['task'],
  },
  concurrency: {
    kinds: ['task'],
    type: 'number',
    default: '`10`',
    doc: "a task run's calls in flight: another name for connections",
    flags: ['concurrency'],
  },
  setupTimeout: {
    kinds: ['task'],
    type: 'Duration',
    unit: 'ms',
    default: '`60s`',
    doc: "how long a task module's setup may take before the run rejects",
    flags: ['setup-timeout'],
  },
  backoff: {
    kinds: ['task'],
    type: 'boolean',
    default: '`true`',
    doc: 'a failed call waits before its slot calls again',
    flags: ['backoff'],
  },

  scenarios: {
    kinds: ALL,
    run: true,
    type: 'Record<string, ScenarioOptions>',
    default: NONE,
    doc: 'several workloads at once on one clock',
  },
  outputs: {
    kinds: ALL,
    run: true,
    type: 'OutputOptions[]',
    default: NONE,
    doc: 'live series out (Prometheus remote write)',
  },
  monitor: {
    kinds: ALL,
    run: true,
    type: 'MonitorOptions',
    default: NONE,
    doc: "watch the server's processes and metrics",
    flags: ['monitor-pid', 'monitor-url'],
  },
  agents: {
    kinds: ALL,
    run: true,
    type: 'AgentsOptions',
    default: NONE,
    doc: 'coordinate agents on other machines (salvo agent) instead of sending load',
  },
};

/** What only a scenario takes, beside the run's options that are not `run`. */
export const SCENARIO_ONLY_TABLE: Readonly<Record<'start' | 'path', OptionRow>> = {
  start: {
    kinds: ALL,
    type: 'Duration',
    unit: 'ms',
    default: '`0`',
    doc: "how long after the run's start this scenario starts",
  },
  path: {
    kinds: HTTP,
    type: 'string',
    default: NONE,
    doc: "the single request's path, against the scenario's url (the run's by default)",
  },
};

/** Every option `runLoad` accepts. */
export const KNOWN_OPTIONS = Object.keys(OPTION_TABLE) as ReadonlyArray<keyof LoadOptions>;

/** Every option a scenario accepts. */
export const SCENARIO_KEYS: readonly string[] = [
  ...KNOWN_OPTIONS.filter((key) => OPTION_TABLE[key].run !== true),
  ...Object.keys(SCENARIO_ONLY_TABLE),
];

/** How an error names each kind of run. */
const RUN_WORDS: Record<RunKind, string> = {
  http: 'an HTTP run',
  websocket: 'a WebSocket run',
  socketio: 'a Socket.IO run',
  task: 'a task run',
  subscription: 'an SSE subscription run (stream.subscribe)',
};

/**
 * Rejects, by name, a given option that has no meaning in a run of `kind` (the table's `kinds`),
 * rather than dropping it. The kinds' own checks run first and say more where they know more.
 */
export function rejectForKind(options: LoadOptions, kind: RunKind): void {
  for (const key of KNOWN_OPTIONS) {
    const value = options[key];
    if (value === undefined || OPTION_TABLE[key].kinds.includes(kind)) continue;
    const where = OPTION_TABLE[key].kinds.map((other) => RUN_WORDS[other].replace(/^an? /, '')).join(', ');
    const message = `${key} has no meaning in ${RUN_WORDS[kind]} (it applies to: ${where}); got ${key} ${show(value)}`;
    throw new SalvoOptionError(message, { option: key, value });
  }
}
