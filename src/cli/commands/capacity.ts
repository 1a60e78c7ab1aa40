import { findCapacity, formatCapacity, formatCapacityStep } from '../../index.js';
import { renderCapacityReport } from '../../report/index.js';
import { checkWritable, EXIT, parseFlags, UsageError, writeOutput, type Command } from '../command.js';
import { durationFlag, integerFlag, numberFlag, thresholdFlags } from '../flag-values.js';
import { flagsHelp, LOAD_FLAGS, loadOptionsFromFlags, type Flag } from '../load-flags.js';
import { withLivePort } from '../live-flags.js';
import { SOCKETIO_FLAGS } from '../socketio-flags.js';

/**
 * The run flags that make sense for every step: the search sets rate, duration and thresholds
 * itself, and searches HTTP request rates only (a WebSocket run's load is its clients and messages).
 */
const NOT_STEP_FLAGS = [
  ...([
    'duration',
    'amount',
    'rate',
    'rate-stage',
    'connection-stage',
    'threshold',
    'ws-message',
    'ws-rate',
    'ws-timestamp',
  ] as const),
  ...(Object.keys(SOCKETIO_FLAGS) as Array<keyof typeof SOCKETIO_FLAGS>),
];
const STEP_FLAGS = Object.fromEntries(
  Object.entries(LOAD_FLAGS).filter(([name]) => !(NOT_STEP_FLAGS as readonly string[]).includes(name)),
) as Omit<typeof LOAD_FLAGS, (typeof NOT_STEP_FLAGS)[number]>;

const SEARCH_FLAGS = {
  slo: {
    type: 'string',
    multiple: true,
    value: 'EXPR',
    help: "'latency.p99<50', 'errors.rate<0.001', 'goodput.rate>=0.95' (with --llm-slo): what every step must meet; repeat (required)",
  },
  start: { type: 'string', value: 'RATE', help: 'the first rate tried, requests/s (default 100)' },
  max: { type: 'string', value: 'RATE', help: 'the highest rate tried (default 1000000)' },
  precision: {
    type: 'string',
    value: 'FRACTION',
    help: 'bisect until passing and failing rates are this close (default 0.05)',
  },
  'step-duration': { type: 'string', value: 'TIME', help: 'measured length of each step (default 5s)' },
  pause: { type: 'string', value: 'TIME', help: 'idle time between steps (default 1s)' },
  'confirm-duration': {
    type: 'string',
    value: 'TIME',
    help: 'length of the confirming run, 0 for none (default 3 x step)',
  },
  json: { type: 'boolean', help: 'print the search result as JSON' },
  html: {
    type: 'string',
    value: 'FILE',
    help: 'also write an HTML report of the search (steps, rates, p99 against the SLO) to FILE',
  },
  help: { short: 'h', type: 'boolean', help: 'this help' },
} as const satisfies Record<string, Flag>;

const USAGE = `usage: salvo capacity URL --slo 'latency.p99<50' [flags]

The highest rate the server sustains within its SLO: open-loop steps grow the rate geometrically
until one fails, bisect between the last passing and the first failing rate, then confirm the answer
with a longer run. A step that the load generator or too few connections limited is not taken as the
server's limit: the search says what to raise instead. Exit 1 when no capacity could be claimed.

search flags:
${flagsHelp(SEARCH_FLAGS)}

step flags:
${flagsHelp(STEP_FLAGS)}
`;

/** `salvo capacity URL --slo ...`: findCapacity with a line per step on stderr. */
export const capacityCommand: Command = {
  name: 'capacity',
  summary: 'find the highest rate a server sustains within its SLO',
  usage: USAGE,
  async run(args, io) {
    const parsed = parseFlags(withLivePort(args), { ...STEP_FLAGS, ...SEARCH_FLAGS });
    const { values } = parsed;
    if (values.help === true) {
      io.stdout.write(USAGE);
      return EXIT.ok;
    }
    if (parsed.positionals.some((url) => /^wss?:/i.test(url))) {
      throw new UsageError(
        'salvo capacity searches HTTP request rates: a ws: or wss: URL has no request rate to search (load it with salvo URL --ws-message and -c)',
      );
    }
    if (values.slo === undefined) throw new UsageError("--slo is required, such as --slo 'latency.p99<50'");
    if (values.html !== undefined) await checkWritable('--html', values.html);
    const controller = new AbortController();
    const interrupt = () => {
      if (controller.signal.aborted) process.exit(EXIT.interrupted);
      io.stderr.write('salvo capacity: stopping (Ctrl-C again to quit at once)\n');
      controller.abort();
    };
    const load = loadOptionsFromFlags(parsed);
    // The page's address before the first step: the user opens it while the search goes.
    const onLive = ({ url }: { url: string }) => void io.stderr.write(`salvo: live page at ${url}\n`);
    if (load.live !== undefined) load.live = { ...load.live, onLive };
    // --llm-slo gives each request's objectives (runLoad's slo): the search's own slo is --slo.
    const { slo: requestSlo, ...stepLoad } = load;
    if (requestSlo === undefined && values.slo.some((expression) => /^\s*goodput\./.test(expression)))
      throw new UsageError(
        "--slo on goodput needs each request's objectives: give --llm-slo, such as --llm-slo ttft=500",
      );
    const options = {
      ...stepLoad,
      ...(requestSlo === undefined ? {} : { requestSlo }),
      slo: thresholdFlags('slo', values.slo)!,
      ...(values.start === undefined ? {} : { start: integerFlag('--start', values.start, 1) }),
      ...(values.max === undefined ? {} : { max: integerFlag('--max', values.max, 1) }),
      ...(values.precision === undefined
        ? {}
        : { precision: numberFlag('--precision', values.precision, 'a fraction between 0 and 1 (0.05 is 5%)') }),
      ...(values['step-duration'] === undefined
        ? {}
        : { stepDuration: durationFlag('--step-duration', values['step-duration']) }),
      ...(values.pause === undefined ? {} : { pause: durationFlag('--pause', values.pause) }),
      ...(values['confirm-duration'] === undefined
        ? {}
        : { confirmDuration: durationFlag('--confirm-duration', values['confirm-duration']) }),
      signal: controller.signal,
      onStep: (event: Parameters<NonNullable<Parameters<typeof findCapacity>[0]['onStep']>>[0]) => {
        if (event.type === 'end') io.stderr.write(`${formatCapacityStep(event.step, event.index)}\n`);
      },
    };
    process.on('SIGINT', interrupt);
    let result;
    try {
      result = await findCapacity(options as Parameters<typeof findCapacity>[0]);
    } finally {
      process.off('SIGINT', interrupt);
    }
    await writeOutput(
      undefined,
      values.json === true ? `${JSON.stringify(result, null, 2)}\n` : `${formatCapacity(result)}\n`,
      io,
    );
    if (values.html !== undefined) {
      await writeOutput(values.html, renderCapacityReport(result), io);
      io.stderr.write(`salvo: report written to ${values.html}\n`);
    }
    if (controller.signal.aborted) return EXIT.interrupted;
    return result.capacity === undefined ? EXIT.failed : EXIT.ok;
  },
};
