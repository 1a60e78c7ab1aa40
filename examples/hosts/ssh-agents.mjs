#!/usr/bin/env node
// Starts `salvo agent` on each host over ssh, pointed at one coordinator, and waits for them:
//   node ssh-agents.mjs --coordinator http://coordinator.internal:7070 --token-file agent-token \
//     [--salvo salvo] [--ssh ssh] host1 user@host2 ...
// The token goes to each host on ssh's stdin, where the remote shell reads it into
// SALVO_AGENT_TOKEN: it is never on a command line (no `ps` on either machine shows it) and never
// in a file on the hosts. Each agent's output is printed with its host in front. Exits 1, naming
// them, when any agent failed. Start it before or after the coordinator: agents retry until it is up.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

/** `text` as one word of a POSIX shell command line. */
export const shellQuote = (text) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The command each host runs: reads the token from stdin, then becomes the agent (`--once`: it
 * exits after one run, which ends its ssh session).
 * @param {string} coordinator the coordinator's URL
 * @param {string} salvo how the host runs salvo (`salvo` when installed globally, `npx --yes salvo@1`)
 */
export function remoteCommand(coordinator, salvo = 'salvo') {
  return `IFS= read -r SALVO_AGENT_TOKEN && export SALVO_AGENT_TOKEN && exec ${salvo} agent ${shellQuote(coordinator)} --once`;
}

/**
 * Runs one agent per host and resolves with the hosts whose agent failed.
 * @param {{ hosts: string[], coordinator: string, token: string, salvo?: string, ssh?: string, out?: NodeJS.WritableStream }} options
 * @returns {Promise<string[]>}
 */
export async function runAgents({ hosts, coordinator, token, salvo = 'salvo', ssh = 'ssh', out = process.stdout }) {
  if (/[\r\n]/.test(token)) throw new Error('the token must be one line');
  const codes = await Promise.all(
    hosts.map(async (host) => {
      // BatchMode: a host that asks for a password fails at once instead of hanging the fleet.
      const child = spawn(ssh, ['-o', 'BatchMode=yes', host, remoteCommand(coordinator, salvo)], { stdio: ['pipe', 'pipe', 'pipe'] });
      child.stdin.end(`${token}\n`);
      for (const stream of [child.stdout, child.stderr]) {
        createInterface({ input: stream }).on('line', (line) => out.write(`[${host}] ${line}\n`));
      }
      const [code] = await once(child, 'close');
      return code;
    }),
  );
  return hosts.filter((_, index) => codes[index] !== 0);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      coordinator: { type: 'string' },
      'token-file': { type: 'string' },
      salvo: { type: 'string', default: 'salvo' },
      ssh: { type: 'string', default: 'ssh' },
    },
  });
  if (values.coordinator === undefined || values['token-file'] === undefined || positionals.length === 0) {
    console.error('usage: ssh-agents.mjs --coordinator URL --token-file FILE [--salvo salvo] [--ssh ssh] HOST...');
    process.exit(2);
  }
  const failed = await runAgents({
    hosts: positionals,
    coordinator: values.coordinator,
    token: readFileSync(values['token-file'], 'utf8').trim(),
    salvo: values.salvo,
    ssh: values.ssh,
  });
  if (failed.length > 0) console.error(`agents failed on: ${failed.join(', ')}`);
  process.exitCode = failed.length === 0 ? 0 : 1;
}
