import { SalvoOptionError, SalvoRangeError } from '../index.js';
import { EXIT, UsageError, type Command, type CommandIO } from './command.js';
import { capacityCommand } from './commands/capacity.js';
import { compareCommand } from './commands/compare.js';
import { mergeCommand } from './commands/merge.js';
import { reportCommand } from './commands/report.js';
import { runCommand } from './commands/run.js';
import { SOCKETIO_FLAG_NAMES } from './socketio-flags.js';

/**
 * Every subcommand of `salvo`, in help order. A new one is a file in commands/ exporting a
 * `Command`, and one line here.
 */
const COMMANDS: readonly Command[] = [runCommand, reportCommand, compareCommand, mergeCommand, capacityCommand];

function help(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length)) + 2;
  return `${runCommand.usage}\ncommands:\n${COMMANDS.map((command) => `  ${command.name.padEnd(width)}${command.summary}`).join('\n')}\n`;
}

/**
 * Library option names in runLoad's and the other functions' errors that the command line spells
 * differently, with the flag that sets them (the rest, such as connections or timeout, are their
 * own flag's name).
 */
const FLAG_NAMES: ReadonlyArray<[RegExp, string]> = [
  [/\{ force: true \}/g, '--force'],
  [/\bwebsocket\.message\b/g, '--ws-message'],
  [/\bwebsocket\.rate\b/g, '--ws-rate'],
  [/\bwebsocket\.timestamp\b/g, '--ws-timestamp'],
  ...SOCKETIO_FLAG_NAMES,
  [/\bneeds keepAlive\b/g, 'needs keep-alive (leave out --no-keep-alive)'],
  [/\bstepDuration\b/g, '--step-duration'],
  [/\bconfirmDuration\b/g, '--confirm-duration'],
  [/\bsegment\.count\b/g, 'the --segment count'],
  [/\bsegment\.index\b/g, 'the --segment index'],
  [/\bstartAt\b/g, '--start-at'],
  [/^thresholds\[("[^"]*")\](?:\[\d+\])?/g, '--threshold $1'],
  [/^slo\[("[^"]*")\](?:\[\d+\])?/g, '--slo $1'],
];

/** An error message of the library, with its option names as the command line spells them. */
export function inFlagTerms(message: string): string {
  return FLAG_NAMES.reduce((text, [name, flag]) => text.replace(name, flag), message);
}

/**
 * The `salvo` command: `salvo <command> args` runs that command, anything else is `salvo run`'s.
 * Resolves with the exit status: 0 ok, 1 a threshold (or a command's verdict) failed, 2 bad input,
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
      const message = error instanceof UsageError ? error.message : inFlagTerms(error.message);
      io.stderr.write(`salvo: ${message}\n(${helpFor} lists the flags)\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
