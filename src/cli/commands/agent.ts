import { readFile } from 'node:fs/promises';
import { runAgent } from '../../index.js';
import { EXIT, parseFlags, UsageError, type Command } from '../command.js';

const USAGE = `usage: salvo agent URL [--token TOKEN | --token-file FILE] [--once]

Serves a coordinator (runLoad({ ..., agents: { expect, listen, token } })) at URL, ws://host:port:
connects (retrying until the coordinator is up), proves the shared token and makes the coordinator
prove it back, then runs the segments of the plan it is handed, sending each second's figures and
the result. Nothing runs unless the coordinator proved the token. Exit 2 when the token is refused.

flags:
  --token TOKEN       the shared token (visible to other users in the process list: prefer the two below)
  --token-file FILE   read the token from FILE (its first line)
                      (else the token is the environment variable SALVO_AGENT_TOKEN)
  --once              exit after one run instead of waiting for the next
  -h, --help          this help
`;

/** `salvo agent ws://coordinator:7000`: runAgent until interrupted. */
export const agentCommand: Command = {
  name: 'agent',
  summary: 'run the segments a coordinator (runLoad with agents) hands out',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      token: { type: 'string' },
      'token-file': { type: 'string' },
      once: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help === true) {
      io.stdout.write(USAGE);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new UsageError("salvo agent takes the coordinator's URL (ws://host:port)");
    if (values.token !== undefined && values['token-file'] !== undefined)
      throw new UsageError('give --token or --token-file, not both');
    const fromFile = values['token-file'];
    const token =
      fromFile !== undefined
        ? (await readFile(fromFile, 'utf8')).split('\n')[0]!.trim()
        : (values.token ?? process.env.SALVO_AGENT_TOKEN ?? '');
    if (token === '')
      throw new UsageError('salvo agent needs a token: --token-file FILE, SALVO_AGENT_TOKEN or --token');
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      await runAgent({
        url: positionals[0]!,
        token,
        once: values.once === true,
        signal: controller.signal,
        log: (line) => io.stderr.write(`salvo agent: ${line}\n`),
      });
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
    return EXIT.ok;
  },
};
