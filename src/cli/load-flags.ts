import { resolve } from 'node:path';
import type { LoadOptions } from '../index.js';
import { UsageError, type ParsedFlags } from './command.js';
import { durationFlag, thresholdFlags } from './flag-values.js';
import { SOCKETIO_FLAGS, socketIoFromFlags } from './socketio-flags.js';
import { arrivalsFlags } from './arrival-flags.js';
import { LLM_FLAGS, llmFromFlags, sloFromFlags } from './llm-flags.js';
import { liveFromFlags } from './live-flags.js';
import { JOURNEY_FLAGS, journeyFromFlags } from './journey-flags.js';
import {
  expectStatus,
  headers,
  jsonBody,
  monitorFlags,
  numeric,
  readFlagFile,
  stages,
  streamFlags,
  webSocketFlags,
} from './flag-options.js';

/** A flag as parseArgs takes it, with what its help line shows. */
export interface Flag {
  short?: string;
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** Placeholder for the value in the help text. */
  value?: string;
  help: string;
}

/** `salvo URL`'s flags for `live`: the page that draws the run as it goes (docs/live.md). */
const LIVE_FLAGS = {
  live: {
    type: 'string',
    value: '[PORT]',
    help: 'serve a page on 127.0.0.1:PORT (a free port without one) that draws the run, then shows its report',
  },
  'live-host': {
    type: 'string',
    value: 'ADDRESS',
    help: '--live: bind this address instead of 127.0.0.1 (anyone who reaches it sees the run)',
  },
  'live-control': { type: 'boolean', help: '--live: put stop, rate and connections controls on the page' },
} as const satisfies Record<string, Flag>;

/**
 * The flags that make runLoad options, in help order: `salvo URL` takes them, and so can any command
 * that runs load (capacity). Short names follow autocannon, wrk and k6 where they agree:
 * -c connections, -d duration, -R rate (wrk2), -w workers, -p pipelining, -H header.
 */
export const LOAD_FLAGS = {
  connections: { short: 'c', type: 'string', value: 'N', help: 'concurrent connections over all workers (default 10)' },
  task: {
    type: 'string',
    value: 'MODULE[#NAME]',
    help: "load your own async function instead of a URL: the module's default (or NAME) export (docs/tasks.md)",
  },
  concurrency: { type: 'string', value: 'N', help: '--task: calls in flight over all workers (the same as -c)' },
  'setup-timeout': {
    type: 'string',
    value: 'TIME',
    help: "--task: how long each thread's setup may take before the run fails, exit 6 (default 60s)",
  },
  backoff: {
    type: 'boolean',
    help: '--task: call again at once after a failed call (default: wait 5 ms doubling to 1 s)',
  },
  duration: {
    short: 'd',
    type: 'string',
    value: 'TIME',
    help: '500ms, 10s, 2m, 1h; a bare number is seconds (default 10s unless -a)',
  },
  amount: { short: 'a', type: 'string', value: 'N', help: 'send exactly N requests, then stop' },
  rate: {
    short: 'R',
    type: 'string',
    value: 'N',
    help: 'target requests/s: open loop, coordinated-omission corrected',
  },
  arrivals: {
    type: 'string',
    value: 'KIND',
    help: "the open loop's spacing: constant (default), poisson, or gamma:SHAPE (below 1: burstier)",
  },
  'arrivals-seed': {
    type: 'string',
    value: 'N',
    help: 'the draws of --arrivals: the same seed, the same instants (default 0)',
  },
  workers: {
    short: 'w',
    type: 'string',
    value: 'N|auto',
    help: 'worker threads (default 1; auto: one per core but one)',
  },
  pipelining: { short: 'p', type: 'string', value: 'N', help: 'requests in flight per connection (default 1)' },
  'h2-streams': { type: 'string', value: 'N', help: 'h2: concurrent streams per connection (default 1)' },
  transport: { type: 'string', value: 'NAME', help: 'net (default, raw sockets), undici, http or h2 (HTTP/2)' },
  'keep-alive': { type: 'boolean', help: 'a new connection for every request' },
  compressed: {
    type: 'boolean',
    help: "ask for gzip, deflate or br, as curl's --compressed (streams and checks read the decoded body)",
  },
  retry: {
    type: 'boolean',
    help: 'report every closed connection as errors: send nothing again (runLoad retry: false)',
  },
  timeout: { short: 't', type: 'string', value: 'TIME', help: 'per-request timeout (default 10s)' },
  warmup: {
    type: 'string',
    value: 'TIME',
    help: 'a first period whose requests are sent but kept out of every statistic (default 0)',
  },
  prewarm: {
    type: 'boolean',
    help: "warm salvo's own code up against a loopback server first (default: rate runs of 1,000/s or more per worker); --no-prewarm: never",
  },
  'rate-stage': {
    type: 'string',
    multiple: true,
    value: 'TIME:RATE',
    help: 'ramp the rate to RATE over TIME; repeat for more',
  },
  'connection-stage': {
    type: 'string',
    multiple: true,
    value: 'TIME:N',
    help: 'ramp connections to N over TIME; repeat for more',
  },
  method: { short: 'm', type: 'string', value: 'NAME', help: 'HTTP method (default GET)' },
  header: {
    short: 'H',
    type: 'string',
    multiple: true,
    value: "'name: value'",
    help: 'a request header; repeat for more',
  },
  body: { short: 'b', type: 'string', value: 'TEXT', help: 'request body' },
  'body-file': { short: 'i', type: 'string', value: 'FILE', help: 'request body read from FILE' },
  'json-body': {
    type: 'string',
    value: 'JSON',
    help: "send JSON, as curl's --json: POST (unless -m), content-type and accept application/json",
  },
  requests: { type: 'string', value: 'FILE', help: 'a module exporting a sequence of request specs' },
  ...JOURNEY_FLAGS,
  insecure: { short: 'k', type: 'boolean', help: 'accept any TLS certificate (tls.rejectUnauthorized: false)' },
  ca: { type: 'string', value: 'FILE', help: 'trust this CA certificate (PEM) for https' },
  'expect-status': {
    type: 'string',
    multiple: true,
    value: 'CODE',
    help: 'check each status: 200, 2xx; repeat to allow several',
  },
  'expect-body': { type: 'string', value: 'TEXT', help: 'check that each response body includes TEXT' },
  threshold: {
    type: 'string',
    multiple: true,
    value: 'EXPR',
    help: "'latency.p99<50', 'errors.rate<0.01'; repeat; 'latency.p99<50 every 10s' judges each 10 s window; a failure exits 1",
  },
  'ws-message': {
    type: 'string',
    value: 'TEXT',
    help: 'ws:/wss: URL: send TEXT on each connection and time each reply',
  },
  'ws-rate': {
    type: 'string',
    value: 'N',
    help: 'ws:/wss: URL: messages/s per connection (default: when the reply came)',
  },
  'ws-timestamp': {
    type: 'string',
    value: 'FIELD',
    help: 'ws:/wss: URL: time received JSON messages from their epoch-ms FIELD',
  },
  stream: {
    type: 'string',
    value: 'FORMAT',
    help: 'read bodies as sse, ndjson or chunks: time to first event, gaps (result.stream)',
  },
  'stream-until': { type: 'string', value: 'DATA', help: "--stream: the event that ends a stream, such as '[DONE]'" },
  'stream-tokens': {
    type: 'string',
    value: 'PATH',
    help: '--stream: output tokens at this JSON path (TTFT, ITL), such as choices.0.delta.content',
  },
  'stream-timestamp': {
    type: 'string',
    value: 'FIELD',
    help: "--stream: time each event's delivery from its epoch-ms JSON FIELD",
  },
  'stream-usage': {
    type: 'boolean',
    help: '--stream-tokens: count events only and send the body as given (no stream_options.include_usage, no server usage read)',
  },
  'stream-subscribe': {
    type: 'boolean',
    help: '--stream sse: each connection holds one subscription for the run (reconnects with Last-Event-ID; --connection-stage ramps them)',
  },
  ...SOCKETIO_FLAGS,
  ...LLM_FLAGS,
  'monitor-pid': {
    type: 'string',
    multiple: true,
    value: 'PID',
    help: "watch the server's process (CPU, memory; Linux); repeat for more",
  },
  'monitor-url': {
    type: 'string',
    multiple: true,
    value: 'URL',
    help: 'watch a Prometheus endpoint (node_exporter, prom-client); repeat',
  },
  ...LIVE_FLAGS,
} as const satisfies Record<string, Flag>;

function flagHelp(name: string, flag: Flag): string {
  const names = `${flag.short === undefined ? '    ' : `-${flag.short}, `}--${name === 'keep-alive' || name === 'retry' || name === 'stream-usage' || name === 'backoff' ? `no-${name}` : name}`;
  return `  ${`${names}${flag.value === undefined ? '' : ` ${flag.value}`}`.padEnd(32)}${flag.help}`;
}

/** The help lines of `flags`, one per flag. */
export function flagsHelp(flags: Record<string, Flag>): string {
  return Object.entries(flags)
    .map(([name, flag]) => flagHelp(name, flag))
    .join('\n');
}

/** How an error names the flag `name` of LOAD_FLAGS: `-d/--duration`, `--warmup`. */
function flagName(name: keyof typeof LOAD_FLAGS): string {
  const flag: Flag = LOAD_FLAGS[name];
  return flag.short === undefined ? `--${name}` : `-${flag.short}/--${name}`;
}

/** What parseFlags returns for LOAD_FLAGS; a command without some of them (capacity) passes undefined. */
export type LoadFlagsParsed = Omit<ParsedFlags<typeof LOAD_FLAGS>, 'values'> & {
  values: Partial<ParsedFlags<typeof LOAD_FLAGS>['values']>;
};

/**
 * The runLoad options that LOAD_FLAGS and the URL (the one positional) give. The command line's
 * own syntax is checked here (a flag's shape, a duration, a threshold, a file to read), so that the
 * error names the flag; the other values are left to runLoad's validation, whose errors name the
 * option (the same word as its flag). Options not given are left out (runLoad's defaults).
 */
export function loadOptionsFromFlags({ values: flags, positionals }: LoadFlagsParsed): LoadOptions {
  if (flags.task !== undefined && positionals.length > 0) {
    throw new UsageError(
      `--task runs a function instead of loading a URL: give one or the other; got --task ${JSON.stringify(flags.task)} and ${positionals.map((p) => JSON.stringify(p)).join(', ')}`,
    );
  }
  if (positionals.length === 0 && flags.task === undefined) {
    throw new UsageError(
      'no URL given: salvo needs the URL to load, such as salvo http://127.0.0.1:3000/ -c 50 -d 30s',
    );
  }
  if (positionals.length > 1)
    throw new UsageError(`one URL at a time; got ${positionals.map((p) => JSON.stringify(p)).join(', ')}`);

  const rampedStages = [
    ...stages('rate-stage', flags['rate-stage'], 'rate'),
    ...stages('connection-stage', flags['connection-stage'], 'connections'),
  ];
  const bodies = (['body', 'body-file', 'json-body'] as const).filter((flag) => flags[flag] !== undefined);
  if (bodies.length > 1)
    throw new UsageError(
      `give one of --body, --body-file and --json-body; got ${bodies.map((flag) => `--${flag}`).join(' and ')}`,
    );
  const json = flags['json-body'] === undefined ? undefined : jsonBody(flags['json-body'], headers(flags.header));
  const expectBody = flags['expect-body'];
  const status = expectStatus(flags['expect-status']);
  const options: Record<string, unknown> = {
    url: positionals[0],
    // A path as a shell gives it (`tasks/pay.mjs`) is one to the library too: relative to here.
    task: flags.task === undefined || /^(\.|\/|file:|data:)/i.test(flags.task) ? flags.task : `./${flags.task}`,
    concurrency: numeric(flags.concurrency),
    setupTimeout:
      flags['setup-timeout'] === undefined
        ? undefined
        : durationFlag(flagName('setup-timeout'), flags['setup-timeout']),
    backoff: flags.backoff,
    connections: numeric(flags.connections),
    duration: flags.duration === undefined ? undefined : durationFlag(flagName('duration'), flags.duration),
    amount: numeric(flags.amount),
    rate: numeric(flags.rate),
    arrivals: arrivalsFlags(flags.arrivals, flags['arrivals-seed']),
    workers: flags.workers === 'auto' ? 'auto' : numeric(flags.workers),
    pipelining: numeric(flags.pipelining),
    h2Streams: numeric(flags['h2-streams']),
    transport: flags.transport,
    keepAlive: flags['keep-alive'],
    compressed: flags.compressed,
    retry: flags.retry,
    timeout: flags.timeout === undefined ? undefined : durationFlag(flagName('timeout'), flags.timeout),
    warmup: flags.warmup === undefined ? undefined : durationFlag(flagName('warmup'), flags.warmup),
    prewarm: flags.prewarm,
    stages: rampedStages.length === 0 ? undefined : rampedStages,
    method: flags.method ?? (json === undefined ? undefined : 'POST'),
    headers: json?.headers ?? headers(flags.header),
    body: json?.body ?? (flags['body-file'] === undefined ? flags.body : readFlagFile('body-file', flags['body-file'])),
    requests: flags.requests === undefined ? undefined : resolve(flags.requests),
    ...journeyFromFlags(flags),
    tls:
      flags.insecure === true || flags.ca !== undefined
        ? {
            ...(flags.insecure === true ? { rejectUnauthorized: false } : {}),
            ...(flags.ca === undefined ? {} : { ca: readFlagFile('ca', flags.ca) }),
          }
        : undefined,
    expect:
      status === undefined && expectBody === undefined
        ? undefined
        : { ...(status === undefined ? {} : { status }), ...(expectBody === undefined ? {} : { body: expectBody }) },
    thresholds: thresholdFlags('threshold', flags.threshold),
    websocket: webSocketFlags(flags['ws-message'], flags['ws-rate'], flags['ws-timestamp']),
    socketio: socketIoFromFlags(flags),
    stream: streamFlags(
      flags.stream,
      flags['stream-until'],
      flags['stream-tokens'],
      flags['stream-timestamp'],
      flags['stream-subscribe'],
      flags['stream-usage'],
    ),
    monitor: monitorFlags(flags['monitor-pid'], flags['monitor-url']),
    llm: llmFromFlags(flags),
    slo: sloFromFlags(flags['llm-slo']),
    live: liveFromFlags(flags.live, flags['live-host'], flags['live-control']),
  };
  for (const key of Object.keys(options)) if (options[key] === undefined) delete options[key];
  return options as unknown as LoadOptions;
}
