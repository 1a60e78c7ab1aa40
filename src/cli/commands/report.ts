import { type CapacityResult, type ComparisonRuns, type SweepResult } from '../../index.js';
import { renderCapacityReport, renderComparisonReport, renderReport, renderSweepReport } from '../../report/index.js';
import { EXIT, looksLikeResult, parseFlags, readJsonFile, UsageError, writeOutput, type Command } from '../command.js';

const USAGE = `usage: salvo report RESULT.json [-o REPORT.html]

Renders the HTML report of what salvo saved as JSON: a run (salvo --json, or JSON.stringify of
runLoad's result, merged or not), a capacity search (salvo capacity --json), a sweep (salvo sweep
--json) or a comparison (salvo compare --json). One self-contained file that opens offline. Without
-o the HTML goes to stdout.

flags:
  -o, --output FILE   where to write the report
  -h, --help          this help
`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The report of whichever kind of JSON `data` is. */
function reportOf(path: string, data: unknown): string {
  if (isRecord(data) && Array.isArray(data.steps) && 'slo' in data)
    return renderCapacityReport(data as unknown as CapacityResult);
  if (isRecord(data) && Array.isArray(data.points) && Array.isArray(data.loads))
    return renderSweepReport(data as unknown as SweepResult);
  if (isRecord(data) && isRecord(data.comparison) && Array.isArray(data.comparison.rows))
    return renderComparisonReport(data as unknown as ComparisonRuns);
  if (looksLikeResult(data)) return renderReport(data);
  throw new UsageError(
    `${path} is not a salvo result, capacity search or comparison (expected the JSON that salvo --json, salvo capacity --json or salvo compare --json writes)`,
  );
}

/** `salvo report result.json -o report.html`. */
export const reportCommand: Command = {
  name: 'report',
  summary: 'render the HTML report of a saved JSON result, capacity search or comparison',
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
    const path = positionals[0]!;
    await writeOutput(values.output, reportOf(path, await readJsonFile(path)), io);
    if (values.output !== undefined) io.stderr.write(`salvo: report written to ${values.output}\n`);
    return EXIT.ok;
  },
};
