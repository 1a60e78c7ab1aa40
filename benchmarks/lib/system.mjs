// What this machine offers (cores, tools on PATH) and how to start a pinned, time-bounded child.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { availableParallelism, cpus, release } from 'node:os';
import { delimiter, join } from 'node:path';

/** Absolute path of an executable on PATH (plus the sbin directories nginx lives in), or undefined. */
export function findExecutable(name) {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** Whether `wrk` at this path is wrk2 (the constant-rate fork, which requires `-R`). */
export function isWrk2(path) {
  const help = spawnSync(path, ['--help'], { encoding: 'utf8', timeout: 5000 });
  return /-R, --rate/.test(`${help.stdout}${help.stderr}`);
}

export function describeMachine() {
  const cpuList = cpus();
  return {
    cpu: cpuList[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    node: process.version,
    os: `${process.platform} ${release()}`,
    memoryGiB: Math.round(Number(readMemTotalKiB()) / 1024 / 1024),
  };
}

function readMemTotalKiB() {
  try {
    return /MemTotal:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0;
  } catch {
    return 0;
  }
}

/**
 * Core assignment: with two or more cores and `taskset`, the target gets core 1 and the load
 * generator core 0, so that neither steals the other's CPU. Otherwise nothing is pinned.
 */
export function planPinning() {
  const taskset = findExecutable('taskset');
  if (taskset && availableParallelism() >= 2) return { taskset, target: '1', generator: '0' };
  return { taskset: undefined, target: undefined, generator: undefined };
}

// 1000 connections need more descriptors than the usual soft limit of 1024: raise the soft limit
// to the hard limit (at most 65535) in the shell that then execs the real command.
const RAISE_FD_LIMIT =
  'h=$(ulimit -Hn); if [ "$h" = unlimited ] || [ "$h" -gt 65535 ]; then h=65535; fi; ulimit -n "$h";';

/**
 * argv that runs `command` pinned to `cpu` (when given) with the raised descriptor limit.
 * With `reportCpu`, the shell waits for the command and prints `times` (children's user and system
 * CPU) after it, which is how CPU is measured for tools that are not Node processes.
 */
export function wrapCommand(command, { taskset, cpu, reportCpu = false }) {
  const script = reportCpu
    ? `${RAISE_FD_LIMIT} "$@"; rc=$?; echo '--- times'; times; exit $rc`
    : `${RAISE_FD_LIMIT} exec "$@"`;
  const shell = ['bash', '-c', script, 'bash', ...command];
  return taskset && cpu !== undefined ? [taskset, '-c', cpu, ...shell] : shell;
}

const running = new Set();

/** Kills every process group that `runBounded` started and that is still running. */
export function killRunning() {
  for (const pid of running) killGroup(pid);
}

/**
 * Runs argv to completion, killing its whole process group after `timeoutMs`.
 * Resolves with exit code, output and whether it was killed; never rejects for a failing command.
 */
export function runBounded(argv, { timeoutMs, cwd }) {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    if (child.pid) running.add(child.pid);
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: `${stderr}${error.message}`, timedOut });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid);
      resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr, timedOut });
    });
  });
}

/** Sends SIGKILL to the process group this harness started (children are spawned detached). */
export function killGroup(pid, signal = 'SIGKILL') {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Parses bash's `times` output (second line: children's user and system time) into ms. */
export function parseBashTimes(text) {
  const lines = text.trim().split('\n');
  const children = lines.at(-1) ?? '';
  const parts = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(([, m, s]) => Number(m) * 60_000 + Number(s) * 1000);
  return parts.length === 2 ? parts[0] + parts[1] : undefined;
}
