import { renderReport } from '../../index.js';
import { EXIT, parseFlags, readResultFile, UsageError, writeOutput, type Command } from '../command.js';

const USAGE = `usage: salvo report RESULT.json [-o REPORT.html]

Renders the HTML report of a result that salvo --json (or JSON.stringify of runLoad's result) wrote:
one self-contained file that opens offline. Without -o the HTML goes to stdout.

flags:
  -o, --output FILE   where to write the report
  -h, --help          this help
`;

/** `salvo report result.json -o report.html`. */
export const reportCommand: Command = {
  name: 'report',
  summary: 'render the HTML report of a saved JSON result',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help === true) {
      io.stdout.write(USAGE);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new UsageError(`salvo report takes one result file; got ${positionals.length}`);
    const result = await readResultFile(positionals[0]!);
    await writeOutput(values.output, renderReport(result), io);
    if (values.output !== undefined) io.stderr.write(`salvo: report written to ${values.output}\n`);
    return EXIT.ok;
  },
};
