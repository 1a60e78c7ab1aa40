import { resolve } from 'node:path';
import { formatResult, mergeResults } from '../../index.js';
import { renderReport } from '../../report/index.js';
import { EXIT, parseFlags, readResultFile, UsageError, writeOutput, type Command } from '../command.js';

const USAGE = `usage: salvo merge RESULT.json RESULT.json ... [--json] [--html REPORT.html] [--force]

Merges the results of one run's segments exactly: counts added, latency from the added histograms,
the timeline aligned on wall-clock seconds, thresholds judged again on the merged numbers. Exit 1
when a threshold fails. Each segment is one process or machine, all with the same flags and --start-at:
  salvo URL -R 20000 -d 5m --segment I/N --start-at 2030-01-01T12:00:00Z --json > segment-I.json

flags:
  --json              print the merged result as JSON
  --html FILE         also write the HTML report of the merged result
  --force             merge results that do not belong together (a warning says what differed)
  -h, --help          this help
`;

/** `salvo merge a.json b.json ...`: mergeResults over result files. */
export const mergeCommand: Command = {
  name: 'merge',
  summary: 'merge segment results from several processes or machines into one, exactly',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      json: { type: 'boolean' },
      html: { type: 'string' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help === true) {
      io.stdout.write(USAGE);
      return EXIT.ok;
    }
    if (positionals.length === 0) throw new UsageError('salvo merge takes the result files to merge');
    if (values.force !== true) {
      const twice = positionals.find(
        (path, i) => positionals.findIndex((other) => resolve(other) === resolve(path)) !== i,
      );
      if (twice !== undefined)
        throw new UsageError(`${twice} is given twice: each segment's result once (--force merges anyway)`);
    }
    const results = await Promise.all(positionals.map((path) => readResultFile(path)));
    const merged = mergeResults(results, { force: values.force === true });
    if (values.html !== undefined) {
      await writeOutput(values.html, renderReport(merged), io);
      io.stderr.write(`salvo: report written to ${values.html}\n`);
    }
    await writeOutput(
      undefined,
      values.json === true ? `${JSON.stringify(merged, null, 2)}\n` : `${formatResult(merged)}\n`,
      io,
    );
    return merged.ok ? EXIT.ok : EXIT.failed;
  },
};
