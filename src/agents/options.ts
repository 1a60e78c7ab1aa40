// `agents` validated once, before anything listens: every bad value names its option.
import { isAbsolute, relative, resolve } from 'node:path';
import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import type { AgentsOptions } from '../shared/agents.js';
import type { LoadOptions } from '../shared/load-options.js';
import { durationOption, positiveInteger, rejectUnknownKeys, show } from '../shared/validate.js';

/** `agents`, checked and with its defaults. */
export interface PlannedAgents {
  expect: number;
  host: string;
  port: number;
  token: string;
  tolerateLost: number;
  readyTimeoutMs: number;
  lostAfterMs: number;
  /** Paths relative to the working directory, forward slashes. */
  files: string[];
  tls: AgentsOptions['tls'];
}

const KEYS = ['expect', 'listen', 'token', 'tolerateLost', 'readyTimeout', 'lostAfter', 'files', 'tls'];
/** Short enough to guess offline; a random token is 32 bytes of hex. */
const MIN_TOKEN_LENGTH = 16;

/** A path under the working directory, as agents recreate it in a directory of their own. */
export function underWorkingDirectory(option: string, path: string): string {
  const inside = relative(process.cwd(), resolve(path));
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new SalvoOptionError(
      `${option}: ${show(path)} is not under the working directory ${process.cwd()}; agents recreate files at their paths relative to it`,
      { option, value: path },
    );
  }
  return inside.split('\\').join('/');
}

function listenAddress(value: unknown): { host: string; port: number } {
  const text = typeof value === 'number' ? String(value) : value;
  const match = typeof text === 'string' ? /^(?:(.+):)?(\d+)$/.exec(text) : null;
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || port > 65535) {
    throw new SalvoOptionError(`agents.listen must be a port or 'host:port'; got ${show(value)}`, {
      option: 'agents.listen',
      value,
    });
  }
  return { host: (match[1] ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1'), port };
}

/** Validates `agents` and what a coordinated run cannot take. */
export function planAgents(options: LoadOptions): PlannedAgents {
  const agents = options.agents as unknown;
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents)) {
    throw new SalvoOptionError(`agents must be { expect, listen, token }; got ${show(agents)}`, {
      option: 'agents',
      value: agents,
    });
  }
  rejectUnknownKeys(agents, KEYS, 'agents');
  const given = agents as AgentsOptions;
  const expect = positiveInteger('agents.expect', given.expect);
  if (typeof given.token !== 'string' || given.token.length < MIN_TOKEN_LENGTH) {
    throw new SalvoOptionError(
      `agents.token must be a string of at least ${MIN_TOKEN_LENGTH} characters (openssl rand -hex 32 makes one); got ${typeof given.token === 'string' ? `${given.token.length} characters` : show(given.token)}`,
      { option: 'agents.token', value: '(hidden)' },
    );
  }
  const tolerateLost = given.tolerateLost ?? 0;
  if (!Number.isInteger(tolerateLost) || tolerateLost < 0 || tolerateLost >= expect) {
    throw new SalvoRangeError(
      `agents.tolerateLost must be an integer from 0 to expect - 1 (${expect - 1}); got ${show(tolerateLost)}`,
      { option: 'agents.tolerateLost', value: tolerateLost },
    );
  }
  if (given.files !== undefined && (!Array.isArray(given.files) || given.files.some((f) => typeof f !== 'string'))) {
    throw new SalvoOptionError(`agents.files must be an array of paths; got ${show(given.files)}`, {
      option: 'agents.files',
      value: given.files,
    });
  }
  if (
    given.tls !== undefined &&
    (typeof given.tls !== 'object' || given.tls === null || given.tls.cert === undefined)
  ) {
    throw new SalvoOptionError(
      `agents.tls must be https.createServer options with key and cert; got ${show(given.tls)}`,
      {
        option: 'agents.tls',
        value: given.tls,
      },
    );
  }
  for (const option of ['segment', 'scenarios'] as const) {
    if (options[option] !== undefined) {
      throw new SalvoOptionError(
        `${option} cannot be given with agents: the coordinator ${option === 'segment' ? 'splits the plan into one segment per agent itself' : 'runs a plain plan (scenarios over agents are not supported yet)'}`,
        { option, value: options[option], mentions: ['agents'] },
      );
    }
  }
  return {
    expect,
    ...listenAddress(given.listen),
    token: given.token,
    tolerateLost,
    readyTimeoutMs: durationOption('agents.readyTimeout', given.readyTimeout ?? '60s'),
    lostAfterMs: durationOption('agents.lostAfter', given.lostAfter ?? '5s'),
    files: (given.files ?? []).map((file) => underWorkingDirectory('agents.files', file)),
    tls: given.tls,
  };
}
