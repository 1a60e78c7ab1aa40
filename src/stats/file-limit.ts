import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { SalvoRangeError } from '../shared/errors.js';
import { peakConnections, type Plan } from '../shared/plan.js';

/** Files a worker thread opens for itself (its event loop's epoll and wake-up descriptors), measured on Linux. */
const FILES_PER_WORKER = 3;
/** Room for what the run opens besides its sockets: DNS lookups, a TLS CA file, stdio of a child. */
const SPARE_FILES = 8;

/** Node cannot change its own limit after start: read once per process. */
let cachedLimit: { limit: number | undefined } | undefined;

/**
 * The open-file limit in force for this process (the soft RLIMIT_NOFILE; Node raises it to the hard
 * limit at start), or undefined when it cannot be read or is unlimited. Linux: /proc/self/limits;
 * elsewhere `ulimit -n` in a child shell, which inherits this process's limit.
 */
export function openFileLimit(): number | undefined {
  cachedLimit ??= { limit: readOpenFileLimit() };
  return cachedLimit.limit;
}

function readOpenFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'latin1')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft !== undefined) return /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    // Not Linux: ask a shell.
  }
  try {
    const out = execFileSync('sh', ['-c', 'ulimit -n'], {
      encoding: 'latin1',
      timeout: 2000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return /^\d+$/.test(out) ? Number(out) : undefined;
  } catch {
    return undefined;
  }
}

/** Files this process has open now (Linux), else 0. */
function filesOpen(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}

/** Sockets the run holds open at once, over all workers: each needs a file descriptor. */
function socketsNeeded(plan: Plan): number {
  const connections = peakConnections(plan);
  // Without keep-alive the net transport gives every pipelined lane a socket of its own.
  return plan.keepAlive ? connections : connections * plan.pipelining;
}

/**
 * Rejects a plan whose connections cannot all be open under the open-file limit: past it every
 * further connect fails with EMFILE, and the run would measure the limit instead of the server.
 */
export function assertFileLimit(plan: Plan): void {
  const limit = openFileLimit();
  if (limit === undefined) return;
  const open = filesOpen();
  const available = limit - open - FILES_PER_WORKER * (plan.workers > 1 ? plan.workers : 0) - SPARE_FILES;
  const needed = socketsNeeded(plan);
  if (needed <= available) return;
  throw new SalvoRangeError(
    `connections: ${plan.connections}${plan.keepAlive ? '' : ` with keepAlive: false and pipelining: ${plan.pipelining}`} needs ${needed} open sockets, ` +
      `but the open-file limit (ulimit -n) is ${limit} and this process already has ${open} files open, which leaves about ${Math.max(0, available)}; ` +
      `raise it (\`ulimit -n ${Math.max(1024, 2 ** Math.ceil(Math.log2(needed + open + 64)))}\` in the shell that starts node, LimitNOFILE= in a systemd unit, --ulimit nofile= for Docker) ` +
      `or ask for fewer connections (a server in this same process needs as many files again)`,
    { option: 'connections', value: plan.connections },
  );
}
