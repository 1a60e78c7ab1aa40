import { SalvoOptionError, SalvoRangeError } from './shared/errors.js';
import { usableWorkers } from './workers/shard.js';
import { planExpect } from './stats/checks.js';
import { planThresholds } from './stats/thresholds.js';
import { parseSegment, parseStartAt } from './segment-options.js';
import { planOutputs } from './outputs/options.js';
import type { Plan, PlanHooks } from './shared/plan.js';
import { parseHeaders } from './shared/request-spec.js';
import { planMonitor } from './monitor/options.js';
import { isWebSocketUrl, planWebSocket, rejectMismatchedOptions } from './websocket/options.js';
import type { LoadOptions, RequestSpec } from './shared/load-options.js';
import { durationOption, positiveInteger, rejectUnknownKeys, show } from './shared/validate.js';
import { planSocketIo } from './websocket/socketio-options.js';
import { planTaskOptions, rejectConcurrencyWithoutTask } from './tasks/options.js';
import type { ImportedTask } from './workers/task-module.js';
import { TRANSPORTS, parseUrl, parseWorkers, planInFlight, planStages } from './option-values.js';
import { importOptionModules, rejectFunctionsForWorkers } from './option-modules.js';
import { planStream, rejectWithSubscribe } from './engine/stream-options.js';
import { askForUsage } from './engine/usage-request.js';
import { planSession } from './engine/session-options.js';
import { planJourneys } from './engine/journey-options.js';
import { KNOWN_OPTIONS, rejectForKind } from './shared/option-table.js';
import type { RunKind } from './shared/run-kind.js';
import { planArrivals } from './shared/arrival-options.js';
import { planLlm, planSlo, rejectSloWithoutTokens } from './engine/llm-options.js';

const DEFAULT_DURATION_MS = 10_000;
const DEFAULT_TIMEOUT_MS = 10_000;

export { KNOWN_OPTIONS, importOptionModules };

/** Options renamed before 1.0, with their new names: the old name is refused, saying the new one. */
const RENAMED: Readonly<Record<string, { to: string; why: string }>> = {
  streams: {
    to: 'h2Streams',
    why: 'concurrent HTTP/2 streams per connection; stream is the option that reads response bodies as events',
  },
};

/** The options of a run, each known and meant for it: a renamed one says its new name. */
export function rejectUnknownOptions(options: object, known: readonly string[] = KNOWN_OPTIONS): void {
  for (const [old, { to, why }] of Object.entries(RENAMED)) {
    if (!(old in options)) continue;
    const value = (options as Record<string, unknown>)[old];
    const message = `${old} is now ${to} (${why}); got ${old} ${show(value)}`;
    throw new SalvoOptionError(message, { option: old, value, mentions: [to] });
  }
  rejectUnknownKeys(options, known);
}

/**
 * The kind of run `options` ask for, named here once: `planLoad` puts it in the plan, and a scenario
 * reads it to leave out the run's defaults its kind has no use for.
 */
export function runKindOf(options: LoadOptions): RunKind {
  if (options.task !== undefined) return 'task';
  if (options.socketio !== undefined) return 'socketio';
  if (typeof options.url === 'string' && /^wss?:/i.test(options.url)) return 'websocket';
  return options.stream?.subscribe === true ? 'subscription' : 'http';
}

/**
 * Validates `options` once, at the boundary, and resolves every default. Throws a SalvoOptionError or
 * SalvoRangeError whose message names the option and the bad value.
 */
export function planLoad(
  options: LoadOptions,
  requestsModule?: string,
  importedTask?: ImportedTask,
): { plan: Plan; hooks: PlanHooks } {
  if (typeof options !== 'object' || options === null) {
    throw new SalvoOptionError(`options must be an object with at least a url (or a task); got ${show(options)}`, {
      option: 'options',
      value: options,
    });
  }
  rejectUnknownOptions(options);
  const llm = planLlm(options);
  if (llm !== undefined) options = llm.options;
  const slo = planSlo(options.slo);
  // A task run has no url and no request options (planTaskOptions rejects each by name).
  const task = options.task === undefined ? undefined : planTaskOptions(options, importedTask);
  if (task === undefined) rejectConcurrencyWithoutTask(options);
  const url = task === undefined ? parseUrl(options.url) : undefined;
  const socketIo = options.socketio !== undefined;
  // A Socket.IO run speaks over a WebSocket too: the same options apply, whatever the url's scheme.
  const webSocket = url !== undefined && (isWebSocketUrl(url) || socketIo);
  if (url !== undefined) rejectMismatchedOptions(options, webSocket, socketIo);

  const transport = options.transport ?? 'net';
  if (!TRANSPORTS.includes(transport)) {
    throw new SalvoOptionError(
      `transport must be one of ${TRANSPORTS.map((t) => `'${t}'`).join(', ')}; got ${show(transport)}`,
      { option: 'transport', value: transport },
    );
  }
  const { pipelining, streams } = planInFlight(options, transport);
  if (pipelining > 1 && transport === 'http') {
    throw new SalvoOptionError(
      `pipelining ${pipelining} needs transport 'net' or 'undici'; node:http cannot pipeline`,
      { option: 'pipelining', value: pipelining, mentions: ['transport'] },
    );
  }
  const amount = options.amount === undefined ? undefined : positiveInteger('amount', options.amount);
  const rate = options.rate === undefined ? undefined : positiveInteger('rate', options.rate);
  const stages = planStages(options.stages);
  const ramps = stages === undefined ? undefined : stages[0]!.rate !== undefined ? 'rate' : 'connections';
  const stagedMs = stages?.reduce((sum, stage) => sum + stage.durationMs, 0);
  if (options.duration !== undefined && stages !== undefined) {
    throw new SalvoOptionError('duration cannot be combined with stages: the stages set the run length', {
      option: 'duration',
      value: options.duration,
      mentions: ['stages'],
    });
  }
  if (webSocket && ramps === 'rate') {
    const rateOption = socketIo ? 'socketio.rate' : 'websocket.rate';
    throw new SalvoOptionError(
      `stages of a ${socketIo ? 'Socket.IO' : 'WebSocket'} run ramp connections ({ duration, connections }); for a message rate use ${rateOption}`,
      {
        option: 'stages',
        value: options.stages,
        mentions: [rateOption],
      },
    );
  }
  if (rate !== undefined && ramps === 'connections') {
    throw new SalvoOptionError(
      `stages that ramp connections need a closed-loop run; drop rate (got ${rate}) or ramp the rate instead`,
      { option: 'stages', value: options.stages, mentions: ['rate'] },
    );
  }
  const warmupMs = options.warmup === undefined ? 0 : durationOption('warmup', options.warmup, { allowZero: true });
  if (rate === undefined && ramps === 'rate' && warmupMs > 0) {
    throw new SalvoOptionError(
      `warmup with rate stages needs rate, the rate the warm-up runs at and the first stage ramps from; got warmup ${show(options.warmup)} and no rate`,
      { option: 'warmup', value: options.warmup, mentions: ['rate', 'stages'] },
    );
  }
  const durationMs =
    options.duration !== undefined
      ? durationOption('duration', options.duration, { secondsLikely: true })
      : (stagedMs ?? (amount === undefined ? DEFAULT_DURATION_MS : undefined));

  if (options.compressed !== undefined && typeof options.compressed !== 'boolean') {
    throw new SalvoOptionError(`compressed must be true or false; got ${show(options.compressed)}`, {
      option: 'compressed',
      value: options.compressed,
    });
  }
  if (options.keepAlive !== undefined && typeof options.keepAlive !== 'boolean') {
    throw new SalvoOptionError(`keepAlive must be true or false; got ${show(options.keepAlive)}`, {
      option: 'keepAlive',
      value: options.keepAlive,
    });
  }
  if (options.keepAlive === false && streams > 1) {
    throw new SalvoOptionError(
      `h2Streams ${streams} needs keepAlive: without it every request has a connection of its own`,
      { option: 'h2Streams', value: streams, mentions: ['keepAlive'] },
    );
  }
  if (options.keepAlive === false && pipelining > 1) {
    throw new SalvoOptionError(
      `pipelining ${pipelining} needs keepAlive: a connection that closes after each response carries one request`,
      { option: 'pipelining', value: pipelining, mentions: ['keepAlive'] },
    );
  }
  if (options.tls !== undefined && (typeof options.tls !== 'object' || options.tls === null)) {
    throw new SalvoOptionError(`tls must be an object of tls.connect options; got ${show(options.tls)}`, {
      option: 'tls',
      value: options.tls,
    });
  }
  if (options.tlsSessionReuse !== undefined && typeof options.tlsSessionReuse !== 'boolean') {
    throw new SalvoOptionError(`tlsSessionReuse must be true or false; got ${show(options.tlsSessionReuse)}`, {
      option: 'tlsSessionReuse',
      value: options.tlsSessionReuse,
    });
  }
  if (options.prewarm !== undefined && typeof options.prewarm !== 'boolean') {
    throw new SalvoOptionError(`prewarm must be true or false; got ${show(options.prewarm)}`, {
      option: 'prewarm',
      value: options.prewarm,
    });
  }
  if (options.prewarm === true && (webSocket || task !== undefined)) {
    throw new SalvoOptionError(
      `prewarm runs the HTTP engine against a loopback server; a ${task !== undefined ? 'task' : 'WebSocket'} run has nothing to pre-warm: drop prewarm`,
      { option: 'prewarm', value: true, mentions: [task !== undefined ? 'task' : 'url'] },
    );
  }
  if (options.retry !== undefined && typeof options.retry !== 'boolean') {
    throw new SalvoOptionError(`retry must be true or false; got ${show(options.retry)}`, {
      option: 'retry',
      value: options.retry,
    });
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new SalvoOptionError(`signal must be an AbortSignal; got ${show(options.signal)}`, {
      option: 'signal',
      value: options.signal,
    });
  }
  if (
    options.onProgress !== undefined &&
    typeof options.onProgress !== 'function' &&
    typeof options.onProgress !== 'string'
  ) {
    throw new SalvoOptionError(
      `onProgress must be a function (or a module specifier with workers); got ${show(options.onProgress)}`,
      { option: 'onProgress', value: options.onProgress },
    );
  }
  // Here, once, so that a bad check or threshold fails before anything is sent.
  const expect = options.expect === undefined ? undefined : planExpect(options.expect);
  const thresholds = options.thresholds === undefined ? undefined : planThresholds(options.thresholds);

  const outputs = planOutputs(options.outputs);
  const connections =
    task !== undefined
      ? (task.connections ?? 10)
      : options.connections === undefined
        ? 10
        : positiveInteger('connections', options.connections);
  const workers = usableWorkers(parseWorkers(options.workers), { connections, amount, rate });
  if (workers > 1) rejectFunctionsForWorkers(options, workers, requestsModule, task?.task.module);
  const socketIoPlan = socketIo
    ? planSocketIo(options.socketio, { url: url!, amount, headers: parseHeaders('headers', options.headers) })
    : undefined;
  const webSocketPlan =
    webSocket && !socketIo
      ? planWebSocket(options.websocket, { amount, workers, headers: parseHeaders('headers', options.headers) })
      : undefined;
  const streamPlan = planStream(options.stream, { workers, webSocket });
  if (slo !== undefined) rejectSloWithoutTokens(slo, streamPlan?.planned);
  const planned =
    webSocket || task !== undefined
      ? { requests: [], names: [], journey: undefined, specs: undefined }
      : planJourneys(options, url!);
  const { names } = planned;
  const requests = streamPlan?.planned.usage === true ? planned.requests.map(askForUsage) : planned.requests;
  const kind = runKindOf(options);
  const plan: Plan = {
    kind,
    url: task?.url ?? url!.href,
    transport: task !== undefined ? 'task' : socketIo ? 'socket.io' : webSocket ? 'websocket' : transport,
    connections,
    durationMs,
    amount,
    rate,
    stages,
    loop: rate !== undefined || ramps === 'rate' ? 'open' : 'closed',
    ramps,
    pipelining,
    streams,
    workers,
    keepAlive: options.keepAlive ?? true,
    requests,
    names,
    requestsModule,
    timeoutMs:
      options.timeout === undefined
        ? DEFAULT_TIMEOUT_MS
        : durationOption('timeout', options.timeout, { secondsLikely: true }),
    warmupMs,
    ...(options.prewarm !== undefined ? { prewarm: options.prewarm } : {}),
    expect,
    thresholds,
    tls: options.tls,
    tlsSessionReuse: options.tlsSessionReuse ?? true,
    retry: options.retry ?? true,
    segment: parseSegment(options.segment, { connections, amount, rate }),
    startAtMs: parseStartAt(options.startAt),
    websocket: webSocketPlan?.planned,
    monitor: planMonitor(options.monitor),
    ...(socketIoPlan !== undefined ? { socketio: socketIoPlan } : {}),
    ...(task !== undefined ? { task: task.task } : {}),
    ...planSession(options),
    ...(streamPlan !== undefined
      ? { stream: slo === undefined ? streamPlan.planned : { ...streamPlan.planned, slo } }
      : {}),
    ...(llm !== undefined ? { llm: llm.llm } : {}),
    ...(planned.journey !== undefined ? { journey: planned.journey } : {}),
  };
  rejectWithSubscribe(plan, options);
  rejectForKind(options, plan.kind);
  const arrivals = planArrivals(options.arrivals, {
    open: plan.loop === 'open',
    rate,
    stageRates: ramps === 'rate' ? stages!.map((stage) => stage.rate!) : undefined,
  });
  if (arrivals !== undefined) plan.arrivals = arrivals;
  const maxConnections = planMaxConnections(options, connections);
  if (maxConnections !== undefined) plan.maxConnections = maxConnections;
  return {
    plan,
    hooks: {
      requests: planned.specs ?? (options.requests as RequestSpec[] | undefined),
      signal: options.signal,
      onProgress: options.onProgress,
      ...(webSocketPlan !== undefined ? { websocket: webSocketPlan.hooks } : {}),
      ...(outputs !== undefined ? { outputs } : {}),
      ...(task !== undefined ? { task: task.functions } : {}),
      ...(streamPlan !== undefined ? { stream: streamPlan.hooks } : {}),
    },
  };
}

/** `maxConnections`: a whole number, at least `connections` (lanes for the most the run's handle may set). */
function planMaxConnections(options: LoadOptions, connections: number): number | undefined {
  if (options.maxConnections === undefined) return undefined;
  const most = positiveInteger('maxConnections', options.maxConnections);
  if (most < connections) {
    throw new SalvoRangeError(`maxConnections must be at least connections (${connections}); got ${most}`, {
      option: 'maxConnections',
      value: most,
      mentions: ['connections'],
    });
  }
  return most;
}
