import { existsSync } from 'node:fs';
import { EXIT, parseFlags, readJsonFile, UsageError, writeOutput, type Command } from '../command.js';
import { importHar, loadFileText } from '../har.js';

const USAGE = `usage: salvo import RECORDING.har [-o LOAD.mjs] [--host HOST] [--no-static] [--min-think MS] [--url URL] [--force]

Writes a load file (salvo run LOAD.mjs) that replays a browser's recording: each request to the
first page's host as a named step, in order, with its headers (less cookies, host, content-length,
connection, HTTP/2 pseudo-headers, accept-encoding and validators), its body, and the pause before
the next request as think. Recorded cookies become cookies: true, accept-encoding compressed: true.
  salvo import session.har -o session.mjs --no-static && salvo run session.mjs -d 1m -c 20

flags:
  -o, --output FILE   the load file to write (default RECORDING.mjs)
  --host HOST         keep the requests to this host (host or host:port; default the first page's)
  --no-static         leave out static assets: stylesheets, scripts, images, fonts, media
  --min-think MS      shorter pauses are not kept as think (default 100)
  --url URL           the url to load (a staging copy of the site; default the recorded origin)
  --force             overwrite the load file
  -h, --help          this help
`;

/** `salvo import recording.har`: a load file from a HAR recording. */
export const importCommand: Command = {
  name: 'import',
  summary: "write a load file from a browser's HAR recording",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      output: { type: 'string', short: 'o' },
      host: { type: 'string' },
      static: { type: 'boolean' },
      'min-think': { type: 'string' },
      url: { type: 'string' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help === true) {
      io.stdout.write(USAGE);
      return EXIT.ok;
    }
    const [source, ...extra] = positionals;
    if (source === undefined || extra.length > 0) throw new UsageError('salvo import takes one HAR file');
    const minThinkMs = values['min-think'] === undefined ? undefined : Number(values['min-think']);
    if (minThinkMs !== undefined && !(minThinkMs >= 0))
      throw new UsageError(`--min-think must be milliseconds, 0 or more; got ${values['min-think']}`);
    if (values.url !== undefined && !/^https?:\/\/[^/]+\/?$/i.test(values.url))
      throw new UsageError(`--url must be an http: or https: origin such as http://127.0.0.1:8080; got ${values.url}`);
    const output = values.output ?? `${source.replace(/\.har$/i, '')}.mjs`;
    if (existsSync(output) && values.force !== true)
      throw new UsageError(`${output} exists: give another -o, or --force to overwrite it`);
    let imported;
    try {
      imported = importHar(await readJsonFile(source), {
        ...(values.host !== undefined ? { host: values.host } : {}),
        ...(values.static === false ? { static: false } : {}),
        ...(minThinkMs !== undefined ? { minThinkMs } : {}),
        ...(values.url !== undefined ? { url: values.url.replace(/\/$/, '') } : {}),
      });
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`${source}: ${(error as Error).message}`);
    }
    await writeOutput(output, loadFileText(imported, source), io);
    io.stderr.write(
      `salvo: wrote ${output}: ${imported.kept} requests to ${imported.options.url}` +
        ` (left out: ${imported.otherHosts} to other hosts, ${imported.staticAssets} static assets)\n`,
    );
    return EXIT.ok;
  },
};
