import { SalvoOptionError, SalvoRangeError, SalvoTaskSetupError } from '../index.js';
import { EXIT, UsageError, type Command, type CommandIO } from './command.js';
import { agentCommand } from './commands/agent.js';
import { capacityCommand } from './commands/capacity.js';
import { compareCommand } from './commands/compare.js';
import { historyCommand } from './commands/history.js';
import { importCommand } from './commands/import.js';
import { mergeCommand } from './commands/merge.js';
import { reportCommand } from './commands/report.js';
import { runCommand } from './commands/run.js';
import { sweepCommand } from './commands/sweep.js';

/**
 * Every subcommand of `salvo`, in help order. A new one is a file in commands/ exporting a
 * `Command`, and one line here.
 */
export const COMMANDS: readonly Command[] = [
  runCommand,
  reportCommand,
  compareCommand,
  mergeCommand,
  capacityCommand,
  historyCommand,
  sweepCommand,
  importCommand,
  agentCommand,
];

function help(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length)) + 2;
  return `${runCommand.usage}\ncommands:\n${COMMANDS.map((command) => `  ${command.name.padEnd(width)}${command.summary}`).join('\n')}\n`;
}

/**
 * Options of runLoad (and of findCapacity, mergeResults) that the command line spells differently,
 * with the flag that sets them; `text` is how the library's messages write the name, where that is
 * more than the name (longest first). Every other option is its own flag's name (connections, rate,
 * timeout).
 */
const FLAGS: Readonly<Record<string, { flag: string; text?: readonly string[] }>> = {
  force: { text: ['{ force: true }'], flag: '--force' },
  keepAlive: { text: ['needs keepAlive'], flag: 'needs keep-alive (leave out --no-keep-alive)' },
  'websocket.message': { flag: '--ws-message' },
  'websocket.rate': { flag: '--ws-rate' },
  'websocket.timestamp': { flag: '--ws-timestamp' },
  stepDuration: { flag: '--step-duration' },
  confirmDuration: { flag: '--confirm-duration' },
  'segment.count': { flag: 'the --segment count' },
  'segment.index': { flag: 'the --segment index' },
  startAt: { flag: '--start-at' },
  h2Streams: { flag: '--h2-streams' },
  'socketio.emit': { flag: '--socketio-emit' },
  'socketio.emit.event': { flag: '--socketio-emit' },
  'socketio.emit.data': { flag: '--socketio-data' },
  'socketio.ack': { text: ['socketio.ack: true', 'socketio.ack'], flag: '--socketio-ack' },
  'socketio.reply': { flag: '--socketio-reply' },
  'socketio.rate': { flag: '--socketio-rate' },
  'socketio.listen': { flag: '--socketio-listen' },
  'socketio.listen.event': { flag: '--socketio-listen' },
  'socketio.listen.timestamp': { flag: '--socketio-timestamp' },
  'socketio.namespace': { flag: '--socketio-namespace' },
  'socketio.auth': { flag: '--socketio-auth' },
  'socketio.path': { flag: '--socketio-path' },
  'stream.format': { flag: '--stream' },
  'stream.until': { flag: '--stream-until' },
  'stream.tokens': { flag: '--stream-tokens' },
  'stream.timestamp': { flag: '--stream-timestamp' },
  'stream.usage': { flag: '--no-stream-usage' },
  'stream.subscribe': { text: ['stream.subscribe'], flag: '--stream-subscribe' },
  'arrivals.distribution': { flag: '--arrivals' },
  'arrivals.shape': { flag: '--arrivals gamma:SHAPE' },
  'arrivals.seed': { flag: '--arrivals-seed' },
  'sweep.steps': { flag: '--steps' },
  'sweep.to': { flag: '--to' },
};

/** How the command line names `option`: `thresholds["latency.p99"][0]` is `--threshold "latency.p99"`. */
function flagFor(option: string): { flag: string; text: readonly string[] } | undefined {
  for (const [prefix, flag] of [
    ['thresholds[', '--threshold'],
    ['slo[', '--slo'],
  ] as const) {
    if (!option.startsWith(prefix)) continue;
    const quote = option[prefix.length]!;
    const end = option.indexOf(`${quote}]`, prefix.length + 1);
    if (end > 0) return { text: [option], flag: `${flag} ${JSON.stringify(option.slice(prefix.length + 1, end))}` };
  }
  const known = FLAGS[option];
  return known === undefined ? undefined : { text: known.text ?? [option], flag: known.flag };
}

/** `text` as a regular expression that matches it literally. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A library error's message with the options it names (`error.option` and `error.mentions`) as the
 * command line spells them.
 */
export function inFlagTerms(error: SalvoOptionError | SalvoRangeError): string {
  // Longer names first, so that socketio.emit.event is not read as socketio.emit.
  const spellings = [error.option, ...error.mentions]
    .flatMap((option) => {
      const spelling = flagFor(option);
      return spelling === undefined ? [] : spelling.text.map((text) => ({ text, flag: spelling.flag }));
    })
    .sort((a, b) => b.text.length - a.text.length);
  let message = error.message;
  for (const { text, flag } of spellings)
    message = message.replace(new RegExp(`(?<![\\w.-])${escapeRegExp(text)}(?![\\w-]|\\.\\w)`, 'g'), flag);
  return message;
}

/**
 * The `salvo` command: `salvo <command> args` runs that command, anything else is `salvo run`'s.
 * Resolves with the exit status: 0 ok, 1 a threshold (or a command's verdict) failed, 2 bad input,
 * 3 a metric regressed, 6 a task's setup failed,
 * with the message on stderr. Any other error is a bug and propagates.
 */
export async function runCli(argv: string[], io: CommandIO): Promise<number> {
  const command = COMMANDS.find((candidate) => candidate.name === argv[0]);
  try {
    if (command === undefined && argv.some((arg) => arg === '--help' || arg === '-h')) {
      io.stdout.write(help());
      return EXIT.ok;
    }
    return await (command ?? runCommand).run(command === undefined ? argv : argv.slice(1), io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof SalvoOptionError || error instanceof SalvoRangeError) {
      const helpFor = command === undefined || command === runCommand ? 'salvo --help' : `salvo ${command.name} --help`;
      const message = error instanceof UsageError ? error.message : inFlagTerms(error);
      io.stderr.write(`salvo: ${message}\n(${helpFor} lists the flags)\n`);
      return EXIT.usage;
    }
    if (error instanceof SalvoTaskSetupError) {
      // The user's own code failed before anything was sent: its message and stack, as a hook's are.
      const { cause } = error;
      const detail =
        cause instanceof Error
          ? (cause.stack ?? `${cause.name}: ${cause.message}`)
          : cause === undefined
            ? ''
            : String(cause);
      io.stderr.write(`salvo: ${error.message} [${error.code}]\n${detail === '' ? '' : `${detail}\n`}`);
      return EXIT.hookFailed;
    }
    throw error;
  }
}
