import { formatSweep, formatSweepPoint, sweep, type SweepLoads, type SweepOptions } from '../../index.js';
import { renderSweepReport } from '../../report/index.js';
import { checkWritable, EXIT, parseFlags, UsageError, writeOutput, type Command } from '../command.js';
import { durationFlag, integerFlag } from '../flag-values.js';
import { flagsHelp, LOAD_FLAGS, loadOptionsFromFlags, type Flag } from '../load-flags.js';
import { SOCKETIO_FLAGS } from '../socketio-flags.js';

/**
 * The run flags that make sense for every point: the sweep sets each point's rate (or connections)
 * and duration, and sweeps HTTP requests and tasks (a WebSocket run's load is its clients).
 */
const NOT_POINT_FLAGS = [
  ...([
    'duration',
    'amount',
    'rate',
    'rate-stage',
    'connection-stage',
    'ws-message',
    'ws-rate',
    'ws-timestamp',
  ] as const),
  ...(Object.keys(SOCKETIO_FLAGS) as Array<keyof typeof SOCKETIO_FLAGS>),
];
const POINT_FLAGS = Object.fromEntries(
  Object.entries(LOAD_FLAGS).filter(([name]) => !(NOT_POINT_FLAGS as readonly string[]).includes(name)),
) as Omit<typeof LOAD_FLAGS, (typeof NOT_POINT_FLAGS)[number]>;

const SWEEP_FLAGS = {
  rates: { type: 'string', value: 'LIST', help: 'the rates to run, requests/s, lowest first: 100,200,400' },
  'sweep-connections': {
    type: 'string',
    value: 'LIST',
    help: 'or the connections (concurrency, closed loop), lowest first: 1,2,4,8',
  },
  from: { type: 'string', value: 'N', help: 'or from N ... --to M in --steps evenly spaced loads' },
  to: { type: 'string', value: 'M', help: 'the highest load of --from' },
  steps: { type: 'string', value: 'K', help: 'how many loads from --from to --to (at least 2)' },
  over: { type: 'string', value: 'rate|connections', help: 'what --from/--to sweep (default rate)' },
  'step-duration': { type: 'string', value: 'TIME', help: 'measured length of each point (default 5s)' },
  pause: { type: 'string', value: 'TIME', help: 'idle time between points (default 1s)' },
  all: { type: 'boolean', help: 'run every load, past the first over-saturated one' },
  json: { type: 'boolean', help: 'print the sweep result as JSON' },
  html: {
    type: 'string',
    value: 'FILE',
    help: 'also write an HTML report (throughput, latency, TTFT/TPOT and goodput by load, the knee marked) to FILE',
  },
  help: { short: 'h', type: 'boolean', help: 'this help' },
} as const satisfies Record<string, Flag>;

const USAGE = `usage: salvo sweep URL --rates 100,200,400 [flags]
       salvo sweep URL --sweep-connections 1,2,4,8 [flags]
       salvo sweep URL --from 100 --to 1000 --steps 10 [flags]

Runs each load in turn, lowest first, and draws the latency-throughput curve: throughput, latency
p50/p90/p99 (TTFT, TPOT and ITL for token streams, goodput with an SLO) by offered load, with the
knee marked (the point of highest goodput, or the Kneedle point of throughput against load). It
stops after the first over-saturated point: under 90% of the target rate done (a rate sweep),
throughput up by less than half the connections' rise (a connection sweep), or most requests failing.

sweep flags:
${flagsHelp(SWEEP_FLAGS)}

point flags:
${flagsHelp(POINT_FLAGS)}
`;

function loadList(flag: string, text: string): number[] {
  return text.split(',').map((item) => integerFlag(flag, item.trim(), 1));
}

function loadsFromFlags(values: Record<string, unknown>): SweepLoads {
  const given = (['rates', 'sweep-connections', 'from'] as const).filter((flag) => values[flag] !== undefined);
  if (given.length !== 1) {
    throw new UsageError(
      given.length === 0
        ? 'give the loads: --rates 100,200,400, --sweep-connections 1,2,4,8, or --from N --to M --steps K'
        : `give one of --rates, --sweep-connections and --from; got ${given.map((flag) => `--${flag}`).join(' and ')}`,
    );
  }
  if (values.rates !== undefined) return { rates: loadList('--rates', values.rates as string) };
  if (values['sweep-connections'] !== undefined) {
    return { connections: loadList('--sweep-connections', values['sweep-connections'] as string) };
  }
  if (values.to === undefined || values.steps === undefined) throw new UsageError('--from needs --to and --steps');
  const over = values.over as string | undefined;
  if (over !== undefined && over !== 'rate' && over !== 'connections') {
    throw new UsageError(`--over must be rate or connections; got ${JSON.stringify(over)}`);
  }
  return {
    from: integerFlag('--from', values.from as string, 1),
    to: integerFlag('--to', values.to as string, 1),
    steps: integerFlag('--steps', values.steps as string, 2),
    ...(over === undefined ? {} : { over }),
  };
}

/** `salvo sweep URL --rates ...`: sweep with a line per point on stderr. */
export const sweepCommand: Command = {
  name: 'sweep',
  summary: 'run a series of rates or connections and draw the latency-throughput curve with its knee',
  usage: USAGE,
  async run(args, io) {
    const parsed = parseFlags(args, { ...POINT_FLAGS, ...SWEEP_FLAGS });
    const { values } = parsed;
    if (values.help === true) {
      io.stdout.write(USAGE);
      return EXIT.ok;
    }
    const loads = loadsFromFlags(values);
    if (values.html !== undefined) await checkWritable('--html', values.html);
    const controller = new AbortController();
    const interrupt = () => {
      if (controller.signal.aborted) process.exit(EXIT.interrupted);
      io.stderr.write('salvo sweep: stopping (Ctrl-C again to quit at once)\n');
      controller.abort();
    };
    const over = 'rates' in loads ? 'rate' : 'connections' in loads ? 'connections' : (loads.over ?? 'rate');
    const options: SweepOptions = {
      ...(loadOptionsFromFlags(parsed) as Omit<SweepOptions, 'sweep'>),
      sweep: loads,
      ...(values['step-duration'] === undefined
        ? {}
        : { stepDuration: durationFlag('--step-duration', values['step-duration']) }),
      ...(values.pause === undefined ? {} : { pause: durationFlag('--pause', values.pause) }),
      ...(values.all === true ? { stopAtSaturation: false } : {}),
      signal: controller.signal,
      onPoint: (event) => {
        if (event.type === 'end') io.stderr.write(`${formatSweepPoint(event.point, event.index, over)}\n`);
      },
    };
    process.on('SIGINT', interrupt);
    let result;
    try {
      result = await sweep(options);
    } finally {
      process.off('SIGINT', interrupt);
    }
    await writeOutput(
      undefined,
      values.json === true ? `${JSON.stringify(result, null, 2)}\n` : `${formatSweep(result)}\n`,
      io,
    );
    if (values.html !== undefined) {
      await writeOutput(values.html, renderSweepReport(result), io);
      io.stderr.write(`salvo: report written to ${values.html}\n`);
    }
    return controller.signal.aborted ? EXIT.interrupted : EXIT.ok;
  },
};
