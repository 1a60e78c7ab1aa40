import { SalvoOptionError, SalvoRangeError } from '../index.js';
import { EXIT, UsageError, type Command, type CommandIO } from './command.js';
import { capacityCommand } from './commands/capacity.js';
import { compareCommand } from './commands/compare.js';
import { historyCommand } from './commands/history.js';
import { mergeCommand } from './commands/merge.js';
import { reportCommand } from './commands/report.js';
import { runCommand } from './commands/run.js';
import { socketIoInFlagTerms } from './socketio-flags.js';

/**
 * Every subcommand of `salvo`, in help order. A new one is a file in commands/ exporting a
 * `Command`, and one line here.
 */
export const COMMANDS: readonly Command[] = [runCommand, reportCommand, compareCommand, mergeCommand, capacityCommand, historyCommand];

function help(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length)) + 2;
  return `${runCommand.usage}\ncommands:\n${COMMANDS.map((command) => `  ${command.name.padEnd(width)}${command.summary}`).join('\n')}\n`;
}

/**
 * Options of runLoad (and of findCapacity, mergeResults) that the command line spells differently,
 * with the flag that sets them; `text` is how the library's message writes the name, where that is
 * more than the name. Every other option is its own flag's name (connections, rate, timeout).
 */
const FLAGS: Readonly<Record<string, { flag: string; text?: string }>> = {
  force: { text: '{ force: true }', flag: '--force' },
  keepAlive: { text: 'needs keepAlive', flag: 'needs keep-alive (leave out --no-keep-alive)' },
  'websocket.message': { flag: '--ws-message' },
  'websocket.rate': { flag: '--ws-rate' },
  'websocket.timestamp': { flag: '--ws-timestamp' },
  stepDuration: { flag: '--step-duration' },
  confirmDuration: { flag: '--confirm-duration' },
  'segment.count': { flag: 'the --segment count' },
  'segment.index': { flag: 'the --segment index' },
  startAt: { flag: '--start-at' },
};

/** How the command line names `option`: `thresholds["latency.p99"][0]` is `--threshold "latency.p99"`. */
function flagFor(option: string): { flag: string; text: string } | undefined {
  for (const [prefix, flag] of [['thresholds[', '--threshold'], ['slo[', '--slo']] as const) {
    if (!option.startsWith(prefix)) continue;
    const quote = option[prefix.length]!;
    const end = option.indexOf(`${quote}]`, prefix.length + 1);
    if (end > 0) return { text: option, flag: `${flag} ${JSON.stringify(option.slice(prefix.length + 1, end))}` };
  }
  const known = FLAGS[option];
  return known === undefined ? undefined : { text: known.text ?? option, flag: known.flag };
}

/**
 * A library error's message with the options it names (`error.option` and `error.mentions`) as the
 * command line spells them.
 */
export function inFlagTerms(error: SalvoOptionError | SalvoRangeError): string {
  let message = error.message;
  for (const option of [error.option, ...error.mentions]) {
    const spelling = flagFor(option);
    if (spelling !== undefined) message = message.replaceAll(spelling.text, spelling.flag);
  }
  return socketIoInFlagTerms(message);
}

/**
 * The `salvo` command: `salvo <command> args` runs that command, anything else is `salvo run`'s.
 * Resolves with the exit status: 0 ok, 1 a threshold (or a command's verdict) failed, 2 bad input,
 * 3 a metric regressed,
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
    throw error;
  }
}
